/**
 * Reads the workspace files import resolution depends on: the root tsconfig.json / jsconfig.json
 * (`baseUrl`, `paths`; `extends` is not followed) and every go.mod (`module` path).
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
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
    try {
      const json = JSON.parse(stripJsonComments(readFileSync(join(root, configFiles.tsconfig), 'utf8'))) as {
        compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> };
      };
      const co = json.compilerOptions ?? {};
      const tsDir = posix.dirname(configFiles.tsconfig) === '.' ? '' : posix.dirname(configFiles.tsconfig);
      const base = co.baseUrl !== undefined ? posix.normalize(posix.join(tsDir, co.baseUrl)).replace(/^\.$/, '') : tsDir;
      if (co.baseUrl !== undefined) config.tsBaseUrl = base;
      if (co.paths && typeof co.paths === 'object') config.tsPaths = { baseDir: base, paths: co.paths };
    } catch {
      // An unreadable tsconfig only means path aliases stay unresolved.
    }
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
