/**
 * Loads the compiled bundle (dist/m1nd.cjs) through a V8 code cache. Node 20 has no
 * `module.enableCompileCache`, and compiling the 3.5 MB bundle was the largest single cost of a
 * start. The bundle is CommonJS so that it can be compiled as a `vm.Script` with the cached data of
 * an earlier process; dist/m1nd.js (the `m1nd` package entry, an ES module) imports this file, loads
 * the bundle once and re-exports its names, so user plugins share the host's module instance.
 *
 * The cache file sits in the user's cache folder (`M1ND_CACHE_DIR`, else `$XDG_CACHE_HOME/m1nd` or
 * `~/.cache/m1nd`; `M1ND_CACHE_DIR=off` for none; created 0700, since V8 runs the code a cache file
 * holds), named by a hash of the bundle file (size, mtime, inode) and of Node, V8 and the
 * architecture. Its payload is checked against a CRC-32 in its header before V8 sees it (V8 only
 * checks that it was made by the same build and flags: `cachedDataRejected`). A missing, corrupt,
 * foreign or rejected cache is ignored: the bundle is compiled without it, and the cache is written
 * (atomically: a temporary file renamed) when the process exits, so it holds every function the
 * process compiled, not only the top level. Nothing here can stop a start: any failure of the cache
 * is a compile without it.
 */
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { cacheDir, cacheFileFor, readCacheFile, writeCacheFile } from './cache-file.ts';
import { underDefaultHeapFlags } from './cli-heap.ts';
import { setBootCheckpoint } from './boot-checkpoint.ts';

const BARE = /^(?![a-z][a-z0-9+.-]*:|\.{0,2}\/)/i;

/**
 * The bundle's `import()`. A package the bundle also imports statically (`required`: the CommonJS
 * bundle requires those) is required, so a package with both builds, such as web-tree-sitter, is one
 * instance (or the runtime one `import()` starts is not the one another module's `Query` uses).
 * Anything else is imported where `resolve` (the bundle's `import.meta.resolve`) finds it.
 */
function dynamicImportFor(require: NodeJS.Require, resolve: (specifier: string) => string, required: ReadonlySet<string>): (specifier: string, options?: ImportCallOptions) => Promise<unknown> {
  return async (specifier, options) => {
    if (required.has(specifier) && options === undefined) {
      const exports: unknown = require(specifier);
      // A module namespace as `import()` gives it: the CommonJS exports as `default`, and their names.
      const object = exports !== null && (typeof exports === 'object' || typeof exports === 'function');
      return object && (exports as { __esModule?: boolean }).__esModule ? exports : { ...(object ? (exports as object) : {}), default: exports };
    }
    return import(/^[a-z][a-z0-9+.-]*:/i.test(specifier) ? specifier : resolve(specifier), options);
  };
}

/**
 * What a bundle is compiled inside: a function of the CommonJS module arguments, the bundle's
 * `import.meta.resolve` and `$m1ndI`, its `import()` (scripts/bundle.mjs renames every dynamic import to
 * it: Node 20 loses a vm.Script's import callback when the script comes from a code cache). The build
 * writes dist/m1nd.cjs already wrapped (esbuild's banner and footer, so the source map stays right).
 */
export const BUNDLE_HEAD = '(function (exports, require, module, __filename, __dirname, __m1ndImportMetaResolve, $m1ndI) {';
export const BUNDLE_TAIL = '\n})';

/** How the bundle was compiled: with a valid cache, or without (`none`: no file or off; `corrupt`: failed our check; `rejected` by V8). */
export type BundleLoad = 'cached' | 'none' | 'corrupt' | 'rejected';

/** The folder for code caches, or null when turned off (`M1ND_CACHE_DIR=off`). */
export const codeCacheDir = cacheDir;

/** The cache file of the bundle at `file` under `dir`. */
export function codeCacheFile(dir: string, file: string): string {
  return cacheFileFor(dir, `${basename(file).replace(/\W/g, '_')}-`, file, '.v8cache');
}

export interface LoadedBundle {
  exports: Record<string, unknown>;
  load: BundleLoad;
  /** The cache file (null when off). */
  cacheFile: string | null;
  /** Writes the cache now if this load had no valid one (the exit handler does it otherwise); true when written. */
  saveCache(): boolean;
}

/**
 * Compiles and runs the CommonJS file at `url` (a file: URL or path) as a module, with the code
 * cache of `cacheDir` (null: none). `importMetaResolve` stands in for `import.meta.resolve` in the
 * bundle (the bundle's sources use it; the caller passes its own). The cache is written at exit when
 * it was not used, unless `saveAtExit` is false. `required` names the packages the bundle also
 * imports statically (see dynamicImportFor).
 */
export function loadBundle(url: string | URL, importMetaResolve: (specifier: string) => string, cacheDir: string | null = codeCacheDir(), saveAtExit = true, required: readonly string[] = []): LoadedBundle {
  const file = typeof url === 'string' && !url.startsWith('file:') ? url : fileURLToPath(url);
  // Read as bytes, then decoded as Latin-1: the build writes the bundle in ASCII (scripts/bundle.mjs
  // checks it), so this is the same text, and Node makes a string this long an external one-byte
  // string with one copy, where UTF-8 decoding scans it (~6M instructions at every start).
  const bytes = readFileSync(file);
  const source = bytes.toString('latin1');
  let cacheFile: string | null = null;
  try {
    cacheFile = cacheDir === null ? null : codeCacheFile(cacheDir, file);
  } catch {
    cacheFile = null;
  }
  // The bundle's bytes are copied into `source`: the code cache is read into the same memory.
  const cached = readCacheFile(cacheFile, bytes);
  // A bundle the build wrote wrapped (starting with BUNDLE_HEAD, BUNDLE_TAIL before its source-map comment) is compiled as it is: the text V8
  // compiles is then the external string itself, not a concatenation V8 flattens into a second copy
  // of 3 MB (~700 page faults at every start).
  const wrapped = source.startsWith(BUNDLE_HEAD) ? source : `${BUNDLE_HEAD}${source}${BUNDLE_TAIL}`;
  const options = { filename: file };
  let script: vm.Script;
  let load: BundleLoad;
  try {
    // Checked against V8's default flags, as `m1nd call` makes the cache, whatever heap setting this process has by now (core/cli-heap.ts).
    script = underDefaultHeapFlags(() => new vm.Script(wrapped, { ...options, cachedData: typeof cached === 'string' ? undefined : cached }));
    load = typeof cached === 'string' ? cached : script.cachedDataRejected ? 'rejected' : 'cached';
  } catch (error) {
    // Data V8 could not use at all: compile without it (a syntax error throws again here).
    if (typeof cached === 'string') throw error;
    script = new vm.Script(wrapped, options);
    load = 'rejected';
  }
  const mod = new Module(file);
  mod.filename = file;
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const require = createRequire(file);
  run.call(mod.exports, mod.exports, require, mod, file, dirname(file), importMetaResolve, dynamicImportFor(require, importMetaResolve, new Set(required)));
  mod.loaded = true;
  let saved = load === 'cached' || cacheFile === null;
  const saveCache = (): boolean => {
    if (saved || cacheFile === null) return false;
    saved = true;
    let data: Buffer;
    try {
      // Stamped with V8's default flags whatever the server's heap setting (core/cli-heap.ts): one cache for every command.
      data = underDefaultHeapFlags(() => script.createCachedData());
    } catch {
      return false;
    }
    return writeCacheFile(cacheFile, data);
  };
  if (!saved && saveAtExit) {
    process.once('exit', saveCache);
    // The CLI calls this once its host is up (core/boot-checkpoint.ts, called by core/cli.ts): the cache then holds what
    // every start runs, not also what the first command did after (an ingest's parser and builder
    // code: 2.4 MB instead of ~1.9 MB, deserialised by every later start).
    setBootCheckpoint(saveCache);
  }
  return { exports: mod.exports as Record<string, unknown>, load, cacheFile, saveCache };
}
