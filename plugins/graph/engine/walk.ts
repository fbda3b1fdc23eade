/**
 * Walking the workspace: fast-glob for discovery, the `ignore` package for .gitignore semantics
 * (nested files, negations, `.git/info/exclude`), and the engine's skip rules: always-pruned
 * directories, vendored and build output, minified and generated files, binaries, oversized files.
 * Content-based checks (binary, generated, minified) run on the bytes ingest reads anyway.
 */
import fg from 'fast-glob';
import ignore, { type Ignore } from 'ignore';
import { lstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import picomatch from 'picomatch';
import { join, posix, relative, sep } from 'node:path';
import type { Language } from './extraction.ts';
import { runSteps, runStepsSliced } from './steps.ts';
import { WalkRecorder, type WalkCache } from './walk-cache.ts';
import { noteFailedReads } from './walk-reads.ts';

export { WalkCache } from './walk-cache.ts';
export { classifyContent } from './content-class.ts';

/** Why a file was left out of the graph. */
export type SkipReason =
  | 'gitignored'
  | 'excluded'
  | 'vendored'
  | 'build_output'
  | 'generated'
  | 'minified'
  | 'binary'
  | 'too_large'
  | 'symlink'
  | 'unreadable'
  | 'parse_failed'
  | 'unsupported';

/** A skipped file or directory (directories end with '/'). */
export interface SkippedPath {
  path: string;
  reason: SkipReason;
  /** Why a parse failed (`parse_failed` only). */
  error?: string;
}

/** A file the walk selected for ingest. */
export interface WalkEntry {
  path: string;
  language: Language;
  size: number;
  mtimeMs: number;
}

/** Walk settings. */
export interface WalkOptions {
  root: string;
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes: number;
  /** Extra fast-glob patterns to prune silently (e.g. `test/**`). */
  exclude?: readonly string[];
  /** Probe for pruned vendored/build/ignored directories to list them as skipped (default true). */
  reportPruned?: boolean;
  detectLanguage: (path: string) => Language | null;
}

/** What the walk found. */
export interface WalkResult {
  files: WalkEntry[];
  /** Skipped paths, except `unsupported` ones (only counted). */
  skipped: SkippedPath[];
  skippedByReason: Partial<Record<SkipReason, number>>;
  /** Config files the resolver reads: root tsconfig/jsconfig and every go.mod. */
  configFiles: { tsconfig: string | null; goMods: string[] };
}

/** Directories never entered and never reported: VCS, dependencies, the store itself, caches, dot-dirs. */
const ALWAYS_PRUNED = ['.git', 'node_modules', '.m1nd', '__pycache__', '.*'];
/** Directories pruned and reported: third-party code and build output. */
const VENDORED_DIRS = new Set(['vendor', 'third_party', 'third-party']);
const BUILD_DIRS = new Set(['dist', 'build']);
/** One brace pattern: fast-glob matches it once per entry instead of once per name. */
const PRUNED_PATTERN = `**/{${[...ALWAYS_PRUNED, ...VENDORED_DIRS, ...BUILD_DIRS].join(',')}}/**`;
const MINIFIED_NAME = /\.min\.(js|mjs|cjs|css)$|[-.]bundle\.js$/;

/** Lists the workspace files to ingest, with the skip list. */
export function walkWorkspace(options: WalkOptions): WalkResult {
  const plan = walkPlan(options);
  return runSteps(classifyEntries(options, plan, fg.sync('**', plan.glob)));
}

/**
 * `walkWorkspace` without holding the event loop: the listing runs on fast-glob's asynchronous
 * walker, and the entries are classified (a stat per candidate file) in slices of `sliceMs`.
 * With a `cache` (incremental runs): when no directory and no ignore file changed since the walk
 * the cache recorded, only the candidate files are stat'ed again (no listing); otherwise the tree
 * is walked and recorded in the cache.
 */
export async function walkWorkspaceAsync(options: WalkOptions, sliceMs = 20, cache?: WalkCache): Promise<WalkResult> {
  if (cache) {
    const cached = await runStepsSliced(cache.revalidate(options), sliceMs);
    if (cached) return cached;
  }
  const plan = walkPlan(options);
  const recorder = cache ? new WalkRecorder() : undefined;
  const listedAt = Date.now();
  const result = await runStepsSliced(classifyEntries(options, plan, await fg('**', plan.glob), recorder), sliceMs);
  if (cache && recorder) await runStepsSliced(cache.record(options, recorder, result, listedAt), sliceMs);
  return result;
}

interface WalkPlan {
  rootIgnore: string;
  ignoredDirs: ReturnType<typeof prunePatterns>;
  glob: fg.Options & { objectMode: true };
  /** Directories the listing could not read (absolute paths): skipped as unreadable, the rest is walked. */
  unreadable: string[];
}

function walkPlan(options: WalkOptions): WalkPlan {
  const { root } = options;
  const rootIgnore = readIgnoreFile(join(root, '.git', 'info', 'exclude')) + '\n' + readIgnoreFile(join(root, '.gitignore'));
  const ignoredDirs = prunePatterns(rootIgnore);
  const prune = [PRUNED_PATTERN, ...ignoredDirs.globs, ...(options.exclude ?? [])];
  // No `stats`: fast-glob would lstat every entry; only candidate files are stat'ed below.
  const unreadable: string[] = [];
  const glob = { cwd: root, dot: true, onlyFiles: false, markDirectories: true, objectMode: true, followSymbolicLinks: false, ignore: prune, suppressErrors: true, fs: noteFailedReads(unreadable) } as const;
  return { rootIgnore, ignoredDirs, glob, unreadable };
}

/** Classifies listed entries into files and skips, yielding every few entries (a step of the walk). */
function* classifyEntries(options: WalkOptions, plan: WalkPlan, entries: fg.Entry[], recorder?: WalkRecorder): Generator<void, WalkResult> {
  const { root, maxFileBytes } = options;
  const { rootIgnore, ignoredDirs } = plan;
  const matchers = new GitignoreChain();
  matchers.add('', rootIgnore);
  for (const e of entries) {
    if (e.path.endsWith('/.gitignore') && e.dirent.isFile()) matchers.add(posix.dirname(e.path), readIgnoreFile(join(root, e.path)));
  }

  const files: WalkEntry[] = [];
  const skipped: SkippedPath[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  const skip = (path: string, reason: SkipReason, probe = false): void => {
    skippedByReason[reason] = (skippedByReason[reason] ?? 0) + 1;
    if (reason !== 'unsupported') skipped.push({ path, reason });
    recorder?.skip(path, reason, probe);
  };
  let tsconfig: string | null = null;
  const goMods: string[] = [];
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const isDirectory = (p: string): boolean => {
    try {
      return statSync(join(root, p), { throwIfNoEntry: false })?.isDirectory() === true;
    } catch {
      return false; // inside a folder this user cannot read
    }
  };
  const probeNames: [string, SkipReason][] = [
    ...ignoredDirs.anywhere.map((n): [string, SkipReason] => [n, 'gitignored']),
    ...[...VENDORED_DIRS].map((n): [string, SkipReason] => [n, 'vendored']),
    ...[...BUILD_DIRS].map((n): [string, SkipReason] => [n, 'build_output']),
  ];
  const reported = new Set<string>();
  // Work since the last yield, counted in entries: a stat costs about as much as 8 entries' matching
  // (16 µs warm, far more on a busy disk), so a step of a re-ingest's walk holds the loop for
  // ~64 entries' worth, not 64 stats (a background burst's walk held it 10+ ms per step).
  let work = 0;
  const STAT_WORK = 8;
  const reportPrunedIn = (dir: string): void => {
    // Pruned directories are not listed by the glob; probe the few names so the skip list shows them.
    if (options.reportPruned === false) return;
    for (const [name, reason] of probeNames) {
      const p = dir === '' ? name : `${dir}/${name}`;
      if (reported.has(p)) continue;
      work += STAT_WORK;
      if (isDirectory(p)) {
        reported.add(p);
        skip(`${p}/`, reason, true);
      }
    }
  };
  for (const d of options.reportPruned === false ? [] : ignoredDirs.atRoot) {
    if (!isDirectory(d)) continue;
    reported.add(d);
    skip(`${d}/`, 'gitignored', true);
  }
  reportPrunedIn('');
  for (const dir of plan.unreadable) {
    const rel = relative(root, dir).split(sep).join('/');
    // The root itself unreadable lists nothing: an empty walk must not replace the stored graph.
    if (rel === '') throw Object.assign(new Error(`EACCES: permission denied, cannot list the workspace root ${root}`), { code: 'EACCES' });
    skip(`${rel}/`, 'unreadable');
  }
  for (const e of entries) {
    if (++work >= 64) {
      work = 0;
      yield;
    }
    const isDir = e.path.endsWith('/');
    const path = isDir ? e.path.slice(0, -1) : e.path;
    const base = posix.basename(path);
    if (isDir) recorder?.directory(path);
    else if (base === '.gitignore') recorder?.ignoreFile(path);
    if (isDir) {
      if (matchers.ignores(path, true)) {
        // Report only the top-most ignored directory, not each one below it.
        if (!matchers.ignores(posix.dirname(path), true)) skip(`${path}/`, 'gitignored');
      } else reportPrunedIn(path);
      continue;
    }
    if (base.startsWith('.')) continue; // dotfiles (.gitignore, .eslintrc) are configuration, not code
    if (e.dirent.isSymbolicLink()) {
      skip(path, 'symlink');
      continue;
    }
    if (!e.dirent.isFile()) continue;
    const language = options.detectLanguage(path);
    // Files of no ingested language are only counted, so ignored junk (logs, data) does not flood the list.
    const ignored = matchers.ignores(path, false);
    if (!language) {
      if (!ignored && base === 'go.mod') goMods.push(path);
      if (!ignored && (base === 'tsconfig.json' || base === 'jsconfig.json') && !path.includes('/') && tsconfig === null) tsconfig = path;
      skip(path, 'unsupported');
      continue;
    }
    if (ignored) {
      if (!matchers.ignores(posix.dirname(path), true)) skip(path, 'gitignored');
      continue;
    }
    if (MINIFIED_NAME.test(base)) {
      skip(path, 'minified');
      continue;
    }
    // From here on the outcome depends on the file's stat: the cache re-stats it.
    recorder?.candidate(path, language);
    let size: number;
    let mtimeMs: number;
    work += STAT_WORK;
    try {
      const st = statSync(join(root, path));
      size = st.size;
      mtimeMs = st.mtimeMs;
    } catch {
      skip(path, 'unreadable'); // vanished between the listing and the stat
      continue;
    }
    if (size > maxFileBytes) {
      skip(path, 'too_large');
      continue;
    }
    files.push({ path, language, size, mtimeMs });
  }
  return { files, skipped, skippedByReason, configFiles: { tsconfig, goMods } };
}

/** Outcome of checking specific paths (watcher-reported) against the walk's rules. */
export interface PathCheck {
  /** Paths that qualify for ingest now. */
  files: WalkEntry[];
  /** Paths that exist no more or no longer qualify (with the reason when they exist). */
  gone: { path: string; reason: SkipReason | 'deleted' }[];
}

/** Directory names the walk never enters (the watcher ignores the same ones). */
export const PRUNED_SEGMENTS: ReadonlySet<string> = new Set([...ALWAYS_PRUNED.filter((d) => d !== '.*'), ...VENDORED_DIRS, ...BUILD_DIRS]);

/**
 * `checkPaths` with the paths' lstat calls made asynchronously, 32 at a time (a watcher's burst of
 * 200 paths spent 10-30 ms of main-thread time in synchronous lstat calls).
 */
export async function checkPathsAsync(options: WalkOptions, paths: readonly string[]): Promise<PathCheck> {
  const stats = new Map<string, Stats | null>();
  for (let i = 0; i < paths.length; i += 32) {
    const batch = paths.slice(i, i + 32);
    const found = await Promise.all(batch.map((p) => lstat(join(options.root, p)).catch(() => null)));
    batch.forEach((p, k) => stats.set(p, found[k]));
  }
  // The ignore files of every folder the paths are in, read asynchronously too (100 folders' missing
  // .gitignore read synchronously, each a thrown ENOENT, held the loop ~10 ms).
  const ignoreFiles = new Set([join(options.root, '.git', 'info', 'exclude'), join(options.root, '.gitignore')]);
  for (const p of paths) {
    const parts = posix.dirname(p) === '.' ? [] : posix.dirname(p).split('/');
    for (let i = 1; i <= parts.length; i++) ignoreFiles.add(join(options.root, ...parts.slice(0, i), '.gitignore'));
  }
  const texts = new Map<string, string>();
  const list = [...ignoreFiles];
  for (let i = 0; i < list.length; i += 32) {
    const batch = list.slice(i, i + 32);
    const found = await Promise.all(batch.map((f) => readFile(f, 'utf8').catch(() => '')));
    batch.forEach((f, k) => texts.set(f, found[k]));
  }
  return checkPaths(options, paths, (p) => stats.get(p) ?? null, (f) => texts.get(f) ?? readIgnoreFile(f));
}

/** Applies the walk's rules to individual workspace-relative file paths, without walking (`statOf`: the paths' lstat, `ignoreText`: the ignore files' texts, when already read). */
export function checkPaths(options: WalkOptions, paths: readonly string[], statOf?: (path: string) => Stats | null, ignoreText: (file: string) => string = readIgnoreFile): PathCheck {
  const { root } = options;
  const rootIgnore = ignoreText(join(root, '.git', 'info', 'exclude')) + '\n' + ignoreText(join(root, '.gitignore'));
  const files: WalkEntry[] = [];
  const gone: PathCheck['gone'] = [];
  const excluded = options.exclude?.length ? picomatch([...options.exclude], { dot: true }) : null;
  const chains = new Map<string, GitignoreChain>();
  const chainFor = (path: string): GitignoreChain => {
    // The .gitignore files of the path's ancestors (plus .git/info/exclude), read on demand.
    const dir = posix.dirname(path);
    let chain = chains.get(dir);
    if (chain) return chain;
    chain = new GitignoreChain();
    chain.add('', rootIgnore);
    const parts = dir === '.' ? [] : dir.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      chain.add(d, ignoreText(join(root, d, '.gitignore')));
    }
    chains.set(dir, chain);
    return chain;
  };
  for (const path of paths) {
    const segments = path.split('/');
    const base = segments[segments.length - 1];
    const reason = ((): SkipReason | 'deleted' | null => {
      if (segments.slice(0, -1).some((s) => PRUNED_SEGMENTS.has(s) || s.startsWith('.')) || base.startsWith('.')) return 'excluded';
      if (excluded && excluded(path)) return 'excluded';
      let st;
      try {
        st = statOf ? statOf(path) : lstatSync(join(root, path));
      } catch {
        return 'deleted';
      }
      if (!st) return 'deleted';
      if (st.isSymbolicLink()) return 'symlink';
      if (!st.isFile()) return 'unsupported';
      if (chainFor(path).ignores(path, false)) return 'gitignored';
      const language = options.detectLanguage(path);
      if (!language) return 'unsupported';
      if (MINIFIED_NAME.test(base)) return 'minified';
      if (st.size > options.maxFileBytes) return 'too_large';
      files.push({ path, language, size: st.size, mtimeMs: st.mtimeMs });
      return null;
    })();
    if (reason) gone.push({ path, reason });
  }
  return { files, gone };
}

function readIgnoreFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Directories the root ignore rules exclude, as fast-glob prune globs and as names to report. */
export interface IgnoredDirs {
  globs: string[];
  /** Names ignored at any depth (`target/`, `venv`). */
  anywhere: string[];
  /** Paths ignored relative to the root (`/out`, `build/cache`). */
  atRoot: string[];
}

/**
 * Prune globs from the root ignore rules, so ignored trees (target/, venv/) are never walked. Only
 * literal names (no wildcards) are pruned, and nothing when any rule negates: git cannot re-include
 * a file below an excluded directory, but a negation could re-include the directory itself.
 */
export function prunePatterns(rules: string): IgnoredDirs {
  const out: IgnoredDirs = { globs: [], anywhere: [], atRoot: [] };
  const lines = rules.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (lines.some((l) => l.startsWith('!'))) return out;
  for (let line of lines) {
    if (/[*?[\]{}\\]/.test(line)) continue;
    line = line.replace(/\/+$/, '');
    if (line === '' || line === '.' || line === '/') continue;
    if (line.includes('/')) {
      const rel = line.replace(/^\//, '');
      out.globs.push(`${rel}/**`);
      out.atRoot.push(rel);
    } else {
      out.globs.push(`**/${line}/**`);
      out.anywhere.push(line);
    }
  }
  return out;
}

/** Nested .gitignore matchers: the deepest file with an opinion on a path decides. */
class GitignoreChain {
  private readonly byDir: { dir: string; ig: Ignore }[] = [];

  add(dir: string, rules: string): void {
    if (!rules.trim()) return;
    this.byDir.push({ dir: dir === '.' ? '' : dir, ig: ignore().add(rules) });
    // Deepest first, so the nearest .gitignore is consulted before its ancestors.
    this.byDir.sort((a, b) => b.dir.length - a.dir.length);
  }

  ignores(path: string, isDir: boolean): boolean {
    if (path === '' || path === '.') return false;
    for (const { dir, ig } of this.byDir) {
      if (dir !== '' && !path.startsWith(`${dir}/`)) continue;
      const rel = dir === '' ? path : path.slice(dir.length + 1);
      const r = ig.test(isDir ? `${rel}/` : rel);
      if (r.ignored) return true;
      if (r.unignored) return false;
    }
    return false;
  }
}
