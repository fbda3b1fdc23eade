/**
 * Finds plugins on disk (one `index.ts` per sub-folder of a plugin folder) and in npm packages,
 * and imports them. Each generation imports through its own module namespace (fresh-import-hooks),
 * so an edited plugin (and every file it imports) is read fresh on reload instead of served from the
 * module cache. TypeScript files are loaded through tsx, registered on the first one found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { register as registerHooks } from 'node:module';
import type { PluginDefinition, PluginSource } from './plugin.ts';

/** Entry file names of a plugin folder, in the order that picks one when several exist (sorted by name). */
const ENTRY_NAMES = ['index.js', 'index.mjs', 'index.mts', 'index.ts'];

/** A file (following symbolic links), not a folder or a broken link. */
async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Plugin entry files under each folder, sorted by path: one per sub-folder (not hidden ones), the
 * first of `ENTRY_NAMES` it holds. A directory read and a stat or more per sub-folder: a glob library's
 * walker cost ~10 ms of every start for this.
 */
export async function findPluginEntries(dirs: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await fs.promises.readdir(dir);
    } catch {
      continue; // a missing folder holds no plugin (the config's warning names it)
    }
    const entries = await Promise.all(
      names
        .filter((name) => !name.startsWith('.'))
        .map(async (name) => {
          const folder = path.resolve(dir, name);
          for (const entry of ENTRY_NAMES) if (await isFile(path.join(folder, entry))) return path.join(folder, entry);
          return undefined;
        }),
    );
    for (const e of entries) if (e !== undefined) found.push(e);
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

/**
 * Set by the bundle build's own check (scripts/bundle.mjs): the built-in plugins load with every
 * schema check, so a schema that does not compile fails the build instead of being trusted.
 */
const CHECK_BUILTIN_SCHEMAS = Symbol.for('m1nd.checkBuiltinSchemas');

/** Whether bundled plugins' verb schemas count as checked (always, except in the build's check). */
function builtinSchemasChecked(): boolean {
  return (globalThis as { [CHECK_BUILTIN_SCHEMAS]?: boolean })[CHECK_BUILTIN_SCHEMAS] !== true;
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
      const builtin = builtinModules.has(file) && builtinSchemasChecked();
      out.push(definition ? { definition, origin: file, ...(builtin ? { builtin } : {}) } : { origin: file, fallbackName, importError: new Error('no default export of definePlugin(...)') });
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
