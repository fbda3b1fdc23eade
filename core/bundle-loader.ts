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
 * architecture. Its payload is checked against a SHA-1 in its header before V8 sees it (V8 only
 * checks that it was made by the same build and flags: `cachedDataRejected`). A missing, corrupt,
 * foreign or rejected cache is ignored: the bundle is compiled without it, and the cache is written
 * (atomically: a temporary file renamed) when the process exits, so it holds every function the
 * process compiled, not only the top level. Nothing here can stop a start: any failure of the cache
 * is a compile without it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** How the bundle was compiled: with a valid cache, or without (`none`: no file or off; `corrupt`: failed our check; `rejected` by V8). */
export type BundleLoad = 'cached' | 'none' | 'corrupt' | 'rejected';

const MAGIC = Buffer.from('M1NDCC01');
const HEADER = MAGIC.length + 20;
const SUFFIX = '.v8cache';
/** Cache files kept per bundle name (one per build or Node in use); older ones are removed. */
const KEEP = 2;

/** The folder for code caches, or null when turned off (`M1ND_CACHE_DIR=off`). */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const set = env.M1ND_CACHE_DIR;
  if (set !== undefined && set !== '') return set === 'off' ? null : set;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'm1nd');
}

/** The cache file of the bundle at `file` under `dir`. */
export function codeCacheFile(dir: string, file: string): string {
  const st = statSync(file);
  const key = createHash('sha1')
    .update([file, st.size, st.mtimeMs, st.ino, process.version, process.versions.v8, process.arch].join('\0'))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `${basename(file).replace(/\W/g, '_')}-${key}${SUFFIX}`);
}

/** The cached data stored in `file`, or why there is none usable. */
function readCache(file: string | null): Buffer | 'none' | 'corrupt' {
  if (file === null) return 'none';
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch {
    return 'none';
  }
  if (raw.length <= HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return 'corrupt';
  const payload = raw.subarray(HEADER);
  const sum = createHash('sha1').update(payload).digest();
  return sum.equals(raw.subarray(MAGIC.length, HEADER)) ? payload : 'corrupt';
}

/** Writes `data` with its header to `file` through a temporary file; false on any failure. */
function writeCache(file: string, data: Buffer): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([MAGIC, createHash('sha1').update(data).digest(), data]), { mode: 0o600 });
    renameSync(tmp, file);
    prune(dirname(file), file);
    return true;
  } catch {
    return false;
  }
}

/** Removes all but the newest KEEP cache files of the same bundle name. */
function prune(dir: string, keep: string): void {
  const prefix = basename(keep).replace(/-[0-9a-f]{16}\.v8cache$/, '-');
  const files = readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && n.endsWith(SUFFIX))
    .map((n) => join(dir, n))
    .filter((f) => f !== keep)
    .map((f) => ({ f, at: statSync(f).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of files.slice(KEEP - 1)) rmSync(f, { force: true });
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
 * it was not used, unless `saveAtExit` is false.
 */
export function loadBundle(url: string | URL, importMetaResolve: (specifier: string) => string, cacheDir: string | null = codeCacheDir(), saveAtExit = true): LoadedBundle {
  const file = typeof url === 'string' && !url.startsWith('file:') ? url : fileURLToPath(url);
  // Read as bytes, then decoded: `readFileSync(file, 'utf8')` measured 2× slower here.
  const source = readFileSync(file).toString('utf8');
  let cacheFile: string | null = null;
  try {
    cacheFile = cacheDir === null ? null : codeCacheFile(cacheDir, file);
  } catch {
    cacheFile = null;
  }
  const cached = readCache(cacheFile);
  const wrapped = `(function (exports, require, module, __filename, __dirname, __m1ndImportMetaResolve) {${source}\n})`;
  const options = { filename: file, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER };
  let script: vm.Script;
  let load: BundleLoad;
  try {
    script = new vm.Script(wrapped, { ...options, cachedData: typeof cached === 'string' ? undefined : cached });
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
  run.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file), importMetaResolve);
  mod.loaded = true;
  let saved = load === 'cached' || cacheFile === null;
  const saveCache = (): boolean => {
    if (saved || cacheFile === null) return false;
    saved = true;
    let data: Buffer;
    try {
      data = script.createCachedData();
    } catch {
      return false;
    }
    return writeCache(cacheFile, data);
  };
  if (!saved && saveAtExit) process.once('exit', saveCache);
  return { exports: mod.exports as Record<string, unknown>, load, cacheFile, saveCache };
}
