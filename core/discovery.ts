/**
 * Finds plugins on disk (fast-glob over plugin folders: one `index.ts` per sub-folder) and in npm packages,
 * and imports them. Each generation imports through its own module namespace (fresh-import-hooks),
 * so an edited plugin (and every file it imports) is read fresh on reload instead of served from the
 * module cache. TypeScript files are loaded through tsx, registered on the first one found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import fg from 'fast-glob';
import { register as registerHooks } from 'node:module';
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

/** Whether Node treats this file as an ES module (.mts/.mjs, or a .ts/.js under a `"type": "module"` package.json). */
export function isEsmFile(file: string): boolean {
  if (/\.m[tj]s$/.test(file)) return true;
  if (/\.c[tj]s$/.test(file)) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg)) {
      try {
        return JSON.parse(fs.readFileSync(pkg, 'utf8')).type === 'module';
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/** Refuses CommonJS-scoped sources: they cannot be re-imported fresh on reload. */
export function assertEsm(file: string): void {
  if (!isEsmFile(file)) {
    throw new Error(`${file} is not an ES module: name it .mts, or add a package.json with {"type":"module"} to its folder (m1nd new-plugin does this)`);
  }
}

let importerSeq = 0;
/** Modules compiled into the bundle (dist/m1nd.js), keyed by the file the host would import instead. */
const builtinModules = new Map<string, Record<string, unknown>>();

/** Called by the bundled build: imports of these files return the bundled modules (one copy of the core). */
export function registerBuiltinModules(modules: Map<URL, Record<string, unknown>>): void {
  for (const [url, mod] of modules) builtinModules.set(fileURLToPath(url), mod);
}

let freshHooksRegistered = false;
let typeScriptLoader: Promise<void> | undefined;
/** True when this module itself runs from TypeScript sources: a TypeScript loader is already active. */
const RUNNING_FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * Registers tsx's loader the first time a `.ts`/`.mts`/`.cts` file is imported (compiled m1nd
 * starts without it: its hooks slow every later import, and most workspaces have no TypeScript
 * config or plugin).
 */
export function ensureTypeScriptLoader(): Promise<void> {
  typeScriptLoader ??= RUNNING_FROM_SOURCES
    ? Promise.resolve()
    : import('tsx/esm/api').then(({ register }) => {
        register();
      });
  return typeScriptLoader;
}

/**
 * An importer for generation `generation`. With `fresh` (the default: hot reload, several hosts in
 * one process) its module cache is private to the generation; without it (a server that never
 * reloads) modules import as they are, and no module hooks are registered.
 */
export function generationImporter(generation: number, fresh = true): (file: string) => Promise<Record<string, unknown>> {
  // Unique per call, not per generation id: several hosts in one process each start at generation 1.
  const tag = `${generation}.${++importerSeq}`;
  return async (file) => {
    const builtin = builtinModules.get(file);
    if (builtin) return builtin;
    assertEsm(file);
    if (/\.[mc]?ts$/.test(file)) await ensureTypeScriptLoader();
    if (!fresh) return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    if (!freshHooksRegistered) {
      freshHooksRegistered = true;
      const coreDir = new URL('./', import.meta.url).href;
      registerHooks(new URL('./fresh-import-hooks.mjs', import.meta.url), { data: { coreDir } });
    }
    return (await import(`${pathToFileURL(file).href}?m1nd-gen=${tag}`)) as Record<string, unknown>;
  };
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
