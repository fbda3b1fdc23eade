/**
 * File facts (file-facts.ts) kept per file content hash: a scan or `twins` asks for the facts of
 * its files; cached ones come back at once, the rest are computed — across the facts workers when
 * there are many (the event loop stays free), in-process for a few (a worker's start costs more) —
 * until the call's time budget is spent. One parse feeds both the scans and the shapes, so a
 * `twins` after a `scan_all` (or the reverse) parses nothing.
 */
import { BACKGROUND_SLICE_MS, grammarPath, slicePace, type CodeGraph, type GrammarName, type GraphService, type Language } from '../graph/api.ts';
import { GRAMMAR_NAMES } from './code-trees.ts';
import type { Deadline } from './deadline.ts';
import { shapesJob, sketchJob } from './cold-shapes-work.ts';
import { computeFacts, type FileFacts } from './file-facts.ts';
import { factsPool, type FactsTask } from './facts-pool.ts';
import { FactsStore } from './facts-store.ts';
import './grammars.ts';

let grammarPaths: Record<string, string> | null = null;
const GRAMMAR_PATHS = () => (grammarPaths ??= Object.fromEntries(GRAMMAR_NAMES.map((n) => [n, grammarPath(n)])));

/** Below this many files to compute, the work stays in-process. */
export const POOL_MIN_FILES = 48;
const BATCH_FILES = 12;
/**
 * Rows written to the persisted table per transaction: each commit syncs the file, so a commit per
 * worker batch (12 rows) cost the stdlib's job ~3-5× the CPU of commits of 96 rows (one-off script).
 */
const FLUSH_ROWS = 96;
const MAX_CACHED_FILES = 20_000;

type Memory = Map<string, { hash: string; facts: FileFacts }>;
/** In-memory facts per engine (one per served workspace and host), by workspace path. */
const memories = new WeakMap<object, Memory>();

function memoryOf(engine: object): Memory {
  let m = memories.get(engine);
  if (!m) memories.set(engine, (m = new Map()));
  return m;
}
/** Class labels per graph version (the dependency-injection rules' context), cached per graph version. */
const classCache = new WeakMap<CodeGraph, { version: number; names: string[]; set: ReadonlySet<string>; key: string }>();

export function classNamesOf(g: CodeGraph): { names: string[]; set: ReadonlySet<string>; key: string } {
  let c = classCache.get(g);
  if (!c || c.version !== g.version) {
    const names = new ClassNames();
    for (const [, n] of g.nodes()) if (n.kind === 'class') names.add(n.label);
    c = cacheClassNames(g, names);
  }
  return c;
}

/**
 * Class labels gathered with an order-free key (the count and two sums of per-name hashes): a sorted
 * list and a hash of it cost ~20 ms in one piece on the stdlib's graph. The key only tells a facts
 * worker whether the names it holds are current; the names' order means nothing.
 */
class ClassNames {
  readonly set = new Set<string>();
  private sum = 0;
  private mix = 0;

  add(label: string): void {
    if (this.set.has(label)) return;
    this.set.add(label);
    let h = 0x811c9dc5;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    this.sum = (this.sum + (h >>> 0)) >>> 0;
    this.mix = (this.mix ^ Math.imul(h, 0x9e3779b1)) >>> 0;
  }

  get key(): string {
    return `${this.set.size}:${this.sum.toString(16)}:${this.mix.toString(16)}`;
  }
}

function cacheClassNames(g: CodeGraph, names: ClassNames): { version: number; names: string[]; set: ReadonlySet<string>; key: string } {
  const c = { version: g.version, names: [...names.set], set: names.set, key: names.key };
  classCache.set(g, c);
  return c;
}

/**
 * `classNamesOf` made ahead, a thousand nodes between two `pace()`s (background slices by default; a
 * read of every node holds the loop ~5-25 ms on a stdlib-sized graph): the background facts job's
 * first slice, or a scan, then finds it cached. Gives up when the graph changes meanwhile (the next
 * `classNamesOf` reads it again).
 */
export async function warmClassNames(g: CodeGraph, pace: () => Promise<void> = slicePace(BACKGROUND_SLICE_MS)): Promise<void> {
  const version = g.version;
  if (classCache.get(g)?.version === version) return;
  const names = new ClassNames();
  let k = 0;
  for (const [, n] of g.nodes()) {
    if (n.kind === 'class') names.add(n.label);
    if ((++k & 1023) === 0) {
      await pace();
      if (g.version !== version) return;
    }
  }
  cacheClassNames(g, names);
}

export interface FactsOutcome {
  facts: Map<string, FileFacts>;
  /** Files whose facts came from this process's memory. */
  fromCache: number;
  /** Files whose facts came from the persisted table (facts-store.ts). */
  fromStore: number;
  /** Files parsed for this call. */
  computed: number;
  /** Files not computed because the time budget ran out. */
  skipped: number;
  /** Worker threads used (0: in-process). */
  workers: number;
  /** With `lookupOnly`: the files whose facts are nowhere yet (nothing computed). */
  missing?: { path: string; language: Language }[];
}

type Task = FactsTask & { hash: string; size: number };

/** Work in progress in this process: verbs computing facts, and the background job's current slice. */
const activity = { verbs: 0, background: null as Promise<unknown> | null };

/** True while a verb is computing facts (the background job waits for it). */
export function verbsComputing(): boolean {
  return activity.verbs > 0;
}

/**
 * Runs a verb's work as facts activity: the background job starts no new slice meanwhile (a scan
 * answered from the ingest's findings computes no facts, yet shares the cores with the job's workers).
 */
export async function asVerbWork<T>(work: () => Promise<T>): Promise<T> {
  activity.verbs++;
  try {
    return await work();
  } finally {
    activity.verbs--;
  }
}

/** Marks the background job's slice in flight; a verb arriving meanwhile waits for it and reuses what it computed. */
export function backgroundSlice<T>(work: Promise<T>): Promise<T> {
  const p = work.finally(() => {
    if (activity.background === p) activity.background = null;
  });
  activity.background = p;
  return p;
}

/** Files whose facts this process parsed, read from the persisted table or found in memory, and whose findings a scan read from the ingest's parse, since it started (`health` shows them). */
export const factsCounters = { computed: 0, fromStore: 0, fromCache: 0, fromIngest: 0 };

const stores = new Map<string, FactsStore | null>();

/** The persisted facts of this graph's store (opened once per store directory); null when none can open. */
export function factsStoreOf(graph: GraphService): FactsStore | null {
  const dir = graph.engine.storeDir;
  if (!stores.has(dir)) {
    const opened = FactsStore.open(dir, graph.writable);
    // Read-only and nothing written yet: try again on a later call.
    if (opened || graph.writable) stores.set(dir, opened);
    return opened;
  }
  return stores.get(dir) ?? null;
}

/** Closes the persisted facts table of a store directory (plugin shutdown). */
export function closeFactsStore(storeDir: string): void {
  stores.get(storeDir)?.close();
  stores.delete(storeDir);
}

/** The files' hashes and those whose facts are in memory; the rest as tasks. */
function lookUp(engine: GraphService['engine'], files: readonly { path: string; language: Language }[], facts: Map<string, FileFacts>): Task[] {
  // Only these files' rows: after a commit the whole table's rows are re-read (10+ ms on 10,000
  // files), which a background slice of a few files must not pay.
  const hashes = engine.storedFiles(files.map((f) => f.path));
  const cache = memoryOf(engine);
  const missing: Task[] = [];
  for (const f of files) {
    if (facts.has(f.path)) continue;
    const row = hashes.get(f.path);
    const hash = row?.hash ?? '';
    const hit = cache.get(f.path);
    if (hit && hash && hit.hash === hash) facts.set(f.path, hit.facts);
    else missing.push({ path: f.path, language: f.language, hash, size: row?.size ?? 0 });
  }
  return missing;
}

function remember(engine: object, path: string, hash: string, f: FileFacts): void {
  if (!hash) return;
  const cache = memoryOf(engine);
  if (cache.size >= MAX_CACHED_FILES) cache.clear();
  cache.set(path, { hash, facts: f });
}

/**
 * Facts of `files` (workspace paths with their language): from memory, from the persisted table,
 * or computed within the deadline (persisted when the server is writable). A verb arriving while
 * the background job computes a slice waits for that slice and takes what it made.
 */
export async function factsOf(graph: GraphService, files: readonly { path: string; language: Language }[], deadline: Deadline, options: { pool?: boolean; background?: boolean; lookupOnly?: boolean } = {}): Promise<FactsOutcome> {
  const engine = graph.engine;
  const facts = new Map<string, FileFacts>();
  if (!options.background) activity.verbs++;
  try {
    let missing = lookUp(engine, files, facts);
    if (missing.length && !options.background && activity.background) {
      await deadline.progress?.(0, missing.length, `structure: waiting for the background facts job's slice (${files.length - missing.length}/${files.length} files ready)`);
      await activity.background.catch(() => undefined);
      missing = lookUp(engine, files, facts);
    }
    const fromCache = facts.size;
    // The persisted table: rows whose content hash is the file's.
    const store = factsStoreOf(graph);
    let fromStore = 0;
    if (store && missing.length) {
      const withHash = missing.filter((m) => m.hash);
      for (let i = 0; i < withHash.length; i += 100) {
        if (deadline.spent()) break;
        const got = store.read(withHash.slice(i, i + 100));
        for (const [path, f] of got) {
          facts.set(path, f);
          remember(engine, path, hashOf(withHash, i, path), f);
        }
        fromStore += got.size;
        await deadline.pace();
      }
      if (fromStore) missing = missing.filter((m) => !facts.has(m.path));
    }
    if (options.lookupOnly) {
      factsCounters.fromCache += fromCache;
      factsCounters.fromStore += fromStore;
      return { facts, fromCache, fromStore, computed: 0, skipped: 0, workers: 0, missing: missing.map(({ path, language }) => ({ path, language })) };
    }
    const outcome = await compute(graph, missing, facts, deadline, options);
    factsCounters.fromCache += fromCache;
    factsCounters.fromStore += fromStore;
    factsCounters.computed += outcome.computed;
    return { facts, fromCache, fromStore, ...outcome };
  } finally {
    if (!options.background) activity.verbs--;
  }
}

/**
 * Runs a `sketch` or `shapes` job (cold-shapes-work.ts) over `tasks`: across the facts workers in
 * batches of `batchFiles` when there are many, else (or when a worker fails) in-process batch by
 * batch; `onBatch` gets each batch's tasks and packed result. Stops feeding when the deadline is
 * spent. Returns the worker threads used (0: in-process).
 */
export async function runJob(graph: GraphService, job: 'sketch' | 'shapes', tasks: readonly FactsTask[], batchFiles: number, deadline: Deadline, onBatch: (tasks: readonly FactsTask[], packed: Int32Array) => void): Promise<number> {
  const engine = graph.engine;
  const batches: FactsTask[][] = [];
  for (let i = 0; i < tasks.length; i += batchFiles) batches.push(tasks.slice(i, i + batchFiles));
  const done = new Set<number>();
  let workers = 0;
  if (tasks.length >= POOL_MIN_FILES) {
    const pool = factsPool();
    try {
      // Neither job reads the graph's class names (only the facts' rules do): none sent (gathering them
      // walked every node, ~40 ms on the stdlib before the workers started); the next facts job sends them.
      await pool.run(engine.root, GRAMMAR_PATHS(), batches, [], '', (b, _facts, packed) => {
        done.add(b);
        if (packed) onBatch(batches[b], packed);
      }, () => !deadline.spent(), job);
      workers = pool.size;
    } catch {
      await pool.stop(); // what is left is computed in-process below
    }
  }
  // In-process one file at a time (a file's parse is the longest piece the event loop waits for).
  for (let b = 0; b < batches.length; b++) {
    if (done.has(b)) continue;
    for (const task of batches[b]) {
      if (deadline.spent()) return workers;
      await deadline.pace();
      let text: string | null = null;
      try {
        text = engine.readFile(task.path).content;
      } catch {
        // gone since the last ingest: the next ingest drops it
      }
      onBatch([task], job === 'sketch' ? sketchJob([task], [text]) : await shapesJob([task], [text]));
    }
  }
  return workers;
}

function hashOf(list: readonly Task[], from: number, path: string): string {
  for (let k = from; k < Math.min(list.length, from + 100); k++) if (list[k].path === path) return list[k].hash;
  return '';
}

/** Computes the facts of `missing` (workers for many files), keeping and persisting them. */
async function compute(graph: GraphService, missing: readonly Task[], facts: Map<string, FileFacts>, deadline: Deadline, options: { pool?: boolean; background?: boolean }): Promise<{ computed: number; skipped: number; workers: number }> {
  if (missing.length === 0) return { computed: 0, skipped: 0, workers: 0 }; // (the class names below walk every node)
  const engine = graph.engine;
  const store = graph.writable ? factsStoreOf(graph) : null;
  const handled = new Set<string>();
  let pendingRows: { path: string; hash: string; facts: FileFacts }[] = [];
  // The background job writes in short transactions between yields (in order, one after the other); a verb at once.
  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (store && pendingRows.length) {
      const rows = pendingRows;
      if (options.background) writing = writing.then(() => store.writeSliced(rows));
      else store.write(rows);
    }
    pendingRows = [];
  };
  const keep = (task: Task, f: FileFacts | null) => {
    handled.add(task.path);
    if (!f) return;
    facts.set(task.path, f);
    remember(engine, task.path, task.hash, f);
    if (task.hash) pendingRows.push({ path: task.path, hash: task.hash, facts: f });
  };
  const classes = classNamesOf(engine.graph);
  let computed = 0;
  let workers = 0;
  // The background job always computes in a worker: in-process, a few files still cost the rule
  // query's first compile (~60 ms of main-thread CPU in one piece) and each file's parse.
  const usePool = missing.length >= POOL_MIN_FILES || options.background === true;
  if (usePool && options.pool !== false) {
    const pool = factsPool();
    const batches: Task[][] = [];
    for (let i = 0; i < missing.length; i += BATCH_FILES) batches.push(missing.slice(i, i + BATCH_FILES));
    try {
      await pool.run(
        engine.root,
        GRAMMAR_PATHS(),
        batches.map((b) => b.map(({ path, language }) => ({ path, language }))),
        classes.names,
        classes.key,
        (b, list) => {
          for (let k = 0; k < list.length; k++) keep(batches[b][k], list[k]);
          computed += list.length;
          if (pendingRows.length >= FLUSH_ROWS) flush();
          void deadline.progress?.(computed, missing.length, `structure: ${computed}/${missing.length} files parsed`);
        },
        () => !deadline.spent(),
      );
      workers = pool.size;
    } catch {
      // A worker failed (or cannot start here): what is left is computed in-process below.
      await pool.stop();
    }
  }
  for (const task of missing) {
    if (handled.has(task.path)) continue;
    if (deadline.spent()) break;
    await deadline.pace();
    let text: string;
    try {
      text = engine.readFile(task.path).content;
    } catch {
      handled.add(task.path);
      computed++;
      continue; // gone since the last ingest: the next ingest drops it
    }
    keep(task, await computeFacts(task.language, text, task.path, classes.set));
    computed++;
    if (pendingRows.length >= FLUSH_ROWS) flush();
  }
  flush();
  await writing;
  return { computed, skipped: Math.max(0, missing.length - computed), workers };
}
