/**
 * The workspace's tsconfig.json / jsconfig.json files, parsed with `extends`, `paths` and project
 * references followed, each with the compiler options its program uses. A config whose `extends`
 * names a file that is not there (a framework's generated base such as `.nitro/types/tsconfig.json`
 * or `.nuxt/tsconfig.json`, absent until the framework runs) takes the options of the nearest config
 * above it as its base: the workspace's own settings are a closer guess than the compiler's defaults
 * (ES5, the full DOM lib), and the programs then share parsed files and libs (see document-registry.ts).
 */
import { dirname } from 'node:path';
import type TS from 'typescript';
import ts from './compiler.ts';
import { findConfigFiles } from './fingerprint.ts';

/** One parsed config. */
export interface ParsedConfig {
  /** Workspace-relative path of the config file. */
  config: string;
  cmd: TS.ParsedCommandLine;
  /** The options its program is built with. */
  options: TS.CompilerOptions;
}

/** Diagnostics for an `extends` target that cannot be read or found. */
const MISSING_BASE = new Set([5083, 6053]);

/** Parses every config under `root`; nearest first (deepest directory first). */
export function parseConfigs(root: string): ParsedConfig[] {
  const parsed: ParsedConfig[] = [];
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined };
  for (const rel of findConfigFiles(root)) {
    const cmd = ts.getParsedCommandLineOfConfigFile(`${root}/${rel}`, { noEmit: true }, host);
    if (cmd) parsed.push({ config: rel, cmd, options: cmd.options });
  }
  // Shallowest first, so a base's own base is settled before it is used.
  parsed.sort((a, b) => depth(a.config) - depth(b.config));
  const byDir = new Map<string, ParsedConfig>();
  for (const p of parsed) {
    const raw = p.cmd.raw as { extends?: unknown } | undefined;
    if (raw?.extends !== undefined && p.cmd.errors.some((d) => MISSING_BASE.has(d.code))) {
      const base = nearestAbove(byDir, dirname(p.config));
      // The config's own options win; `paths` keep the base they were written against.
      if (base) p.options = { ...base.options, ...p.cmd.options };
    }
    if (!byDir.has(dirname(p.config))) byDir.set(dirname(p.config), p);
  }
  return parsed.sort((a, b) => depth(b.config) - depth(a.config));
}

const depth = (rel: string): number => rel.split('/').length;

/** The config of the nearest directory strictly above `dir` ('.' is the root). */
function nearestAbove(byDir: ReadonlyMap<string, ParsedConfig>, dir: string): ParsedConfig | undefined {
  while (dir !== '.' && dir !== '') {
    dir = dirname(dir);
    const hit = byDir.get(dir);
    if (hit) return hit;
  }
  return undefined;
}
