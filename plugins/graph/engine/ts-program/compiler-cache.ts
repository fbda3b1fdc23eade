/**
 * Loads the TypeScript compiler into the checker worker through a V8 code cache (Node 20 has no
 * `module.enableCompileCache`). The compiler is one 9 MB CommonJS file: compiling it, and then
 * lazily compiling each function the first pass runs, is a fixed cost of every worker start. Here it
 * is compiled as a `vm.Script` (the same function wrapper the CommonJS loader uses) with the cached
 * data of an earlier worker, and put in the require cache, so compiler.ts's `require('typescript')`
 * gets this instance. After the first pass, when no valid cache was used, the worker
 * writes `script.createCachedData()`: made then, it holds the functions the pass compiled too.
 *
 * The cache file sits in the user's cache folder (`M1ND_CACHE_DIR`, else `$XDG_CACHE_HOME/m1nd` or
 * `~/.cache/m1nd`; `M1ND_CACHE_DIR=off` for none), so a first ingest of any workspace finds it, named
 * by a hash of the compiler file (version, size, mtime) and of Node, V8 and the architecture; V8
 * itself rejects data made by another build or with other V8 flags (`cachedDataRejected`), and a
 * rejected file is rewritten after the pass. Any failure leaves the plain `require` to load the
 * compiler, as without a cache. The folder must be the user's own (it is created 0700): V8 runs
 * the code a cache file holds.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import vm from 'node:vm';

/**
 * How the compiler was loaded: from the cache; compiled (no cache yet, or the cache off, or
 * `rejected` by V8: written after the pass unless off); or by a plain `require` (the load here failed).
 */
export type CompilerLoad = 'cached' | 'compiled' | 'rejected' | 'require';

/** Cache files kept per folder (one per compiler/Node combination in use); older ones are removed. */
const KEEP = 2;
const PREFIX = 'typescript-';
const SUFFIX = '.v8cache';

let state: { load: CompilerLoad; script: vm.Script | null; file: string | null; saved: boolean } = { load: 'require', script: null, file: null, saved: true };

/** The folder for the code cache (see the file comment), or null when turned off. */
export function compilerCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const set = env.M1ND_CACHE_DIR;
  if (set !== undefined && set !== '') return set === 'off' ? null : set;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'm1nd');
}

/** How the compiler was loaded in this thread (`require` until `loadCompiler` runs). */
export function compilerLoad(): CompilerLoad {
  return state.load;
}

/** The cache file for the compiler at `compiler` under `dir`. */
export function compilerCacheFile(dir: string, compiler: string): string {
  const st = statSync(compiler);
  const version = (createRequire(compiler)('../package.json') as { version: string }).version;
  const key = createHash('sha1')
    .update([version, st.size, st.mtimeMs, process.version, process.versions.v8, process.arch].join('\0'))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `${PREFIX}${version}-${key}${SUFFIX}`);
}

/**
 * Loads the compiler, from the cache in `dir` when there is a valid one, into the require cache;
 * call before anything imports `typescript`. With `dir` null it is compiled without a cache (still
 * outside any loader's hooks); on any failure nothing is loaded, and compiler.ts's `require` loads it.
 */
export function loadCompiler(dir: string | null): CompilerLoad {
  const require = createRequire(import.meta.url);
  let compiler = '';
  try {
    compiler = require.resolve('typescript');
    if (require.cache[compiler]) return state.load;
    const file = dir === null ? null : compilerCacheFile(dir, compiler);
    let cachedData: Buffer | undefined;
    try {
      cachedData = file === null ? undefined : readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(Module.wrap(readFileSync(compiler, 'utf8')), {
      filename: compiler,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const mod = new Module(compiler);
    mod.filename = compiler;
    require.cache[compiler] = mod;
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
    wrapper.call(mod.exports, mod.exports, createRequire(compiler), mod, compiler, dirname(compiler));
    mod.loaded = true;
    const load: CompilerLoad = cachedData === undefined ? 'compiled' : script.cachedDataRejected ? 'rejected' : 'cached';
    state = { load, script, file, saved: load === 'cached' || file === null };
  } catch {
    if (compiler) delete require.cache[compiler];
    state = { load: 'require', script: null, file: null, saved: true };
  }
  return state.load;
}

/**
 * Writes the code cache once, when the compiler was compiled without a valid one (call after a
 * pass, so the functions it ran are in it). Returns true when a file was written.
 */
export function saveCompilerCache(): boolean {
  const { script, file } = state;
  if (state.saved || !script || !file) return false;
  state.saved = true;
  try {
    const data = script.createCachedData();
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}-${threadId}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, file);
    prune(dirname(file), file);
    return true;
  } catch {
    return false;
  }
}

/** Removes all but the newest KEEP cache files of the folder (other compiler or Node versions). */
function prune(dir: string, keep: string): void {
  const files = readdirSync(dir)
    .filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX))
    .map((n) => join(dir, n))
    .filter((f) => f !== keep)
    .map((f) => ({ f, at: statSync(f).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of files.slice(KEEP - 1)) rmSync(f, { force: true });
}
