/**
 * Reads the workspace files import resolution depends on: the root tsconfig.json / jsconfig.json
 * (`baseUrl`, `paths`; `extends` is not followed) and every go.mod (`module` path).
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { sortOutputs, type OutputRoot } from './build-outputs.ts';
import type { ResolverConfig } from './resolve.ts';

/** Strips // and /* *\/ comments and trailing commas from JSONC, leaving strings intact. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Builds the resolver settings from the config files the walk found. */
export function readResolverConfig(root: string, configFiles: { tsconfig: string | null; goMods: readonly string[] }): ResolverConfig {
  const config: ResolverConfig = { goModules: [] };
  if (configFiles.tsconfig) {
    let json: TsConfigJson | undefined;
    try {
      json = JSON.parse(stripJsonComments(readFileSync(join(root, configFiles.tsconfig), 'utf8'))) as TsConfigJson;
      const co = json.compilerOptions ?? {};
      const tsDir = posix.dirname(configFiles.tsconfig) === '.' ? '' : posix.dirname(configFiles.tsconfig);
      const base = co.baseUrl !== undefined ? posix.normalize(posix.join(tsDir, co.baseUrl)).replace(/^\.$/, '') : tsDir;
      if (co.baseUrl !== undefined) config.tsBaseUrl = base;
      if (co.paths && typeof co.paths === 'object') config.tsPaths = { baseDir: base, paths: co.paths };
    } catch {
      // An unreadable tsconfig only means path aliases stay unresolved.
    }
    const output = json === undefined ? null : readOutputRoot(root, configFiles.tsconfig, json);
    if (output) config.tsOutputs = sortOutputs([output]);
  }
  for (const mod of configFiles.goMods) {
    try {
      const m = /^\s*module\s+(\S+)/m.exec(readFileSync(join(root, mod), 'utf8'));
      const dir = posix.dirname(mod) === '.' ? '' : posix.dirname(mod);
      if (m) config.goModules.push({ dir, module: m[1].replace(/^"|"$/g, '') });
    } catch {
      // skip an unreadable go.mod
    }
  }
  // Longest module path first, so a nested module wins over its parent.
  config.goModules.sort((a, b) => b.module.length - a.module.length);
  return config;
}

type TsConfigJson = {
  extends?: unknown;
  include?: unknown;
  compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]>; outDir?: unknown; rootDir?: unknown };
};

/**
 * The root tsconfig's (`rootJson`, parsed) `outDir` and `rootDir` (each relative to the config that sets it), following
 * `extends` through relative paths (at most 8). Without a `rootDir`, the one folder every `include`
 * pattern starts in, else the config's own folder.
 */
function readOutputRoot(root: string, tsconfig: string, rootJson: TsConfigJson): OutputRoot | null {
  let outDir: string | undefined;
  let rootDir: string | undefined;
  let include: unknown;
  let file: string | null = tsconfig;
  for (let depth = 0; file !== null && depth < 8; depth++) {
    let json: TsConfigJson = rootJson;
    try {
      if (depth > 0) json = JSON.parse(stripJsonComments(readFileSync(join(root, file), 'utf8'))) as TsConfigJson;
    } catch {
      break;
    }
    const dir = posix.dirname(file);
    const at = (p: string): string => posix.normalize(posix.join(dir, p)).replace(/^\.$/, '').replace(/\/$/, '');
    const co = json.compilerOptions ?? {};
    if (outDir === undefined && typeof co.outDir === 'string') outDir = at(co.outDir);
    if (rootDir === undefined && typeof co.rootDir === 'string') rootDir = at(co.rootDir);
    if (include === undefined && Array.isArray(json.include)) include = json.include.map((p) => (typeof p === 'string' ? at(p) : ''));
    const base = Array.isArray(json.extends) ? json.extends[0] : json.extends;
    file = typeof base === 'string' && base.startsWith('.') ? posix.normalize(posix.join(dir, base.endsWith('.json') ? base : `${base}.json`)) : null;
    if (file?.startsWith('..')) file = null;
  }
  if (outDir === undefined || outDir.startsWith('..')) return null;
  if (rootDir === undefined) {
    const firsts = new Set(Array.isArray(include) ? include.map(includeFolder) : []);
    rootDir = firsts.size === 1 ? [...firsts][0] : posix.dirname(tsconfig).replace(/^\.$/, '');
  }
  return rootDir.startsWith('..') ? null : { outDir, rootDir };
}

/** The folder an `include` pattern starts in: its segments before the first glob (a file's folder). */
function includeFolder(pattern: string): string {
  const segs = pattern.split('/');
  const glob = segs.findIndex((seg) => seg.includes('*') || seg.includes('?'));
  const folder = glob >= 0 ? segs.slice(0, glob) : segs.at(-1)?.includes('.') ? segs.slice(0, -1) : segs;
  return folder.join('/');
}
