/**
 * Finds plugins on disk (fast-glob over plugin folders: one `index.ts` per sub-folder) and in npm packages,
 * and imports them. Each generation imports through its own tsx namespace, so an edited plugin
 * (and every file it imports) is read fresh on reload instead of served from the module cache.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import fg from 'fast-glob';
import { register } from 'tsx/esm/api';
import type { PluginDefinition, PluginSource } from './plugin.ts';

const ENTRY_GLOB = '*/index.{ts,mts,js,mjs}';

/** Plugin entry files under each folder, sorted by path (one plugin per sub-folder). */
export async function findPluginEntries(dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    const entries = await fg(ENTRY_GLOB, { cwd: dir, absolute: true, onlyFiles: true, followSymbolicLinks: true });
    // One entry per folder even if both index.ts and index.js exist (the .ts source wins).
    const byFolder = new Map<string, string>();
    for (const e of entries.sort()) if (!byFolder.has(path.dirname(e))) byFolder.set(path.dirname(e), e);
    found.push(...byFolder.values());
  }
  return found.sort();
}

function pickDefinition(mod: Record<string, unknown>): PluginDefinition<any> | undefined {
  const candidate = (mod.default ?? mod.plugin) as PluginDefinition<any> | undefined;
  return candidate && typeof candidate === 'object' ? candidate : undefined;
}

/** An importer whose module cache is private to one generation. */
export function generationImporter(generation: number): (file: string) => Promise<Record<string, unknown>> {
  const api = register({ namespace: `m1nd-gen-${generation}-${process.pid}` });
  return (file) => api.import(pathToFileURL(file).href, import.meta.url) as Promise<Record<string, unknown>>;
}

/** Imports plugin entry files; an import failure becomes a source the loader quarantines. */
export async function importPlugins(files: string[], importer: (file: string) => Promise<Record<string, unknown>>): Promise<PluginSource[]> {
  const out: PluginSource[] = [];
  for (const file of files) {
    const fallbackName = path.basename(path.dirname(file));
    try {
      const definition = pickDefinition(await importer(file));
      out.push(definition ? { definition, origin: file } : { origin: file, fallbackName, importError: new Error('no default export of definePlugin(...)') });
    } catch (importError) {
      out.push({ origin: file, fallbackName, importError });
    }
  }
  return out;
}

/** Resolves npm package names (plugins or bundles) to their entry files, from the workspace. */
export function resolvePackages(names: string[], from: string): { name: string; file?: string; error?: unknown }[] {
  const req = createRequire(path.join(from, 'package.json'));
  return names.map((name) => {
    try {
      return { name, file: req.resolve(name) };
    } catch (error) {
      return { name, error };
    }
  });
}
