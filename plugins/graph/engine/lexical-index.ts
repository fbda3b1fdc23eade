/**
 * The lexical index behind `seek`: BM25F over per-node fields (identifier parts and the whole
 * identifier, qualified name, signature, doc comment, body tokens, path; see lexical-text.ts), with
 * stop words dropped and Porter stems on both sides; the postings and queries are IndexedPostings'
 * (lexical-postings.ts), scoring is in seek-scoring.ts. This file decides when and where a full build
 * runs: lazily, for the graph first queried; read from the index file beside the store when it holds
 * for the graph (lexical-persist.ts); else, for a big graph, in a child process (lexical-offthread.ts)
 * with the main thread's loop free, or in slices on the main thread. After a full build the file is
 * written; after incremental changes it is rebuilt in the background once the changes settle, so a
 * new process reads it instead of building.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CodeGraph, NodeKind } from './graph.ts';
import type { TextSource } from './lexical-buffers.ts';
import { buildBaseIndex, type BaseIndex } from './lexical-build.ts';
import { buildOffThread } from './lexical-offthread.ts';
import { readIndexFile, saveIndexFile, writeFileAtomic, type IndexFileOptions } from './lexical-persist.ts';
import { IndexedPostings } from './lexical-postings.ts';
import { BACKGROUND_SLICE_MS, SliceClock } from './steps.ts';

export { tokenize } from './lexical-words.ts';
export type { SeekHit, SeekOptions } from './seek-scoring.ts';
export type { TextSource } from './lexical-buffers.ts';
export type { IndexFileOptions } from './lexical-persist.ts';
export { FLAG_TEST } from './lexical-build.ts';
export { K1 } from './lexical-postings.ts';

/** Nodes re-indexed between two looks at the slice clock (`syncSliced`). */
const SYNC_CHUNK = 16;
/** Runs a step generator in the clock's slices while `wanted()` holds between them; null once it no longer does. */
async function drainWhile<T>(steps: Generator<unknown, T>, clock: SliceClock, wanted: () => boolean): Promise<{ value: T } | null> {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return { value: r.value };
    if (!clock.spent()) continue;
    await clock.yield();
    if (!wanted()) return null;
  }
}

/**
 * Graphs with at least this many node slots are built in a build process, and their index file is
 * rebuilt there after incremental changes; `M1ND_SEEK_PROCESS_NODES` overrides it. Below, the build
 * runs in slices on the main thread: starting the process is one synchronous fork of the whole server
 * (26–31 ms of main-thread CPU measured at ~14K nodes, more in a bigger process), longer than any
 * slice, while a sliced build of that size costs ~1 s of main-thread CPU spread over many turns.
 */
export function buildProcessMinNodes(): number {
  const v = Number(process.env.M1ND_SEEK_PROCESS_NODES);
  return Number.isInteger(v) && v > 0 ? v : 100_000;
}
/** Quiet time after the last incremental change before the index file is rebuilt, plus 1 ms per 10 nodes. */
const REWRITE_DELAY_MS = 1000;

/** Building in a separate process (the build process, lexical-worker.ts): the workspace root its files are read from. */
export interface OffThreadOptions {
  root(): string;
}

/** A full build, where it came from, and the store key it holds for. */
interface Built {
  base: BaseIndex;
  from: 'file' | 'build' | 'worker';
  key: string | null;
  /** The build process's build: the index file's bytes, written as they are. */
  bytes?: Buffer;
}

let scratchCount = 0;

let scratchDir: string | null = null;
/**
 * A directory only this user can enter (mkdtemp: 0700, a fresh name), made on first use and removed
 * at exit: a build's bytes never go to a predictable name in the shared temp folder, where another
 * local user could have put a symlink to a file of ours for the build process to overwrite.
 */
function privateScratchDir(): string {
  if (!scratchDir) {
    const dir = mkdtempSync(join(tmpdir(), 'm1nd-seek-'));
    scratchDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratchDir;
}


/** The seek index over one CodeGraph. */
export class LexicalIndex extends IndexedPostings {
  /** The graph the index was built for, and the graph version it last caught up with. */
  private builtFor: CodeGraph | null = null;
  private syncedVersion = -1;
  /** A sliced full build on the main thread under way (ensureAsync), with the graph version it reads. */
  private building: { graph: CodeGraph; version: number; steps: Generator<void, Built, void> } | null = null;
  /** A background full build under way (the file, else the build process), shared by the callers awaiting it. */
  private background: { graph: CodeGraph; version: number; done: Promise<void>; abort: AbortController } | null = null;
  /** The build process failed to start or build: later builds run on the main thread. */
  private workerFailed = false;
  private rewriteTimer: NodeJS.Timeout | null = null;
  /** A rewrite under way (reset aborts it). */
  private rewriting: AbortController | null = null;
  /** The store key of the index file this index last read or wrote (no rewrite while it is current). */
  private fileKey: string | null = null;
  /** Bumped by `reset()`: work started before it is no longer wanted. */
  private epoch = 0;
  /** Full builds read from the index file / built (on the main thread, or in the build process: `workerBuilds`) / written to it; rewrites after incremental changes. */
  readonly fileStats = { loads: 0, builds: 0, workerBuilds: 0, writes: 0, rewrites: 0 };
  /** The last index file write under way (close() awaits it). */
  fileWrite: Promise<void> | null = null;

  /**
   * `textOf` gives file contents for signature and body fields; without it only names, docs and
   * paths are indexed. With `file`, a full build is read from and written to an index file; with
   * `offThread`, big graphs are built in a child process reading the files under its root.
   */
  constructor(
    textOf: TextSource | null = null,
    private readonly file: IndexFileOptions | null = null,
    private readonly offThread: OffThreadOptions | null = null,
  ) {
    super(textOf);
  }

  /**
   * Brings the index up to date with the graph, lazily: a full build the first time it is queried
   * for a graph, then only the changed node slots. Ingest never pays for an index nobody queries.
   */
  ensure(graph: CodeGraph): void {
    if (this.builtFor !== graph) {
      const build = this.building;
      if (build?.graph === graph && build.version === graph.version) {
        // A sliced build is under way: finish it now.
        this.building = null;
        this.installBuilt(graph, runToEnd(build.steps));
      } else {
        this.reset();
        this.installBuilt(graph, runToEnd(this.fullBuild(graph, true)));
      }
    } else if (this.syncedVersion !== graph.version) {
      this.sync(graph);
    }
  }

  /** Drops everything (the next query rebuilds); releases the graph it was built for. */
  reset(): void {
    this.epoch++;
    this.building = null;
    this.background?.abort.abort();
    this.background = null;
    if (this.rewriteTimer) clearTimeout(this.rewriteTimer);
    this.rewriteTimer = null;
    this.rewriting?.abort();
    this.rewriting = null;
    this.builtFor = null;
    this.syncedVersion = -1;
    this.clearPostings();
  }

  /** Indexes every live node of the graph from scratch, at once (never from the index file). */
  rebuild(graph: CodeGraph): void {
    this.reset();
    this.installBuilt(graph, runToEnd(this.fullBuild(graph, false)));
  }

  /** The index file's build when it holds for this graph, else a new build (and the key to write it under). */
  private *fullBuild(graph: CodeGraph, useFile: boolean): Generator<void, Built, void> {
    const key = this.file?.key() ?? null;
    if (useFile && key !== null) {
      const loaded = yield* readIndexFile(this.file!.path(), key, graph);
      if (loaded) return { base: { ...loaded, version: graph.version }, from: 'file', key };
    }
    return { base: yield* buildBaseIndex(graph, this.textOf, this.averages), from: 'build', key };
  }

  private installBuilt(graph: CodeGraph, built: Built): void {
    const { base } = built;
    // The live index patches its counts and flags: the build process's arrays are views on the bytes still to be written.
    this.install(graph, built.bytes ? { ...base, postingCounts: base.postingCounts.slice(), flags: base.flags.slice() } : base);
    this.builtFor = graph;
    this.syncedVersion = base.version;
    if (built.from === 'file') {
      this.fileStats.loads++;
      this.fileKey = built.key;
      return;
    }
    this.fileStats.builds++;
    if (built.from === 'worker') this.fileStats.workerBuilds++;
    const key = built.key;
    if (key === null || !this.file!.writable()) return;
    // Written only while it still holds: the graph unchanged and this index still built for it.
    const holds = (): boolean => graph.version === base.version && this.builtFor === graph && this.file!.key() === key;
    const written = (ok: boolean): void => {
      if (!ok) return;
      this.fileStats.writes++;
      this.fileKey = key;
    };
    const writing = built.bytes
      ? this.writeBytes(built.bytes, holds)
      : saveIndexFile(this.file!, graph, key, { ...base, postingCounts: base.postingCounts.slice(), flags: base.flags.slice() }, holds);
    this.fileWrite = writing.then(written, () => undefined);
  }

  /**
   * Where a build process leaves its bytes: beside the index file when it may be written (a build
   * process killed midway leaves a temporary file the next write removes), else the system's temp folder.
   */
  private scratchPath(): string {
    const n = ++scratchCount;
    return this.file?.writable() && existsSync(dirname(this.file.path())) ? `${this.file.path()}.${process.pid}-${n}.tmp` : join(privateScratchDir(), `seek-index-${n}.tmp`);
  }

  private async writeBytes(bytes: Buffer, holds: () => boolean): Promise<boolean> {
    if (!holds()) return false;
    await writeFileAtomic(this.file!.path(), [bytes]);
    return true;
  }

  /**
   * Brings the index up to date like `ensure`, but without holding the event loop: a missing index
   * is read from the file or built in the build process (big graphs), else built in slices of about
   * `sliceMs`. Callers awaiting the same build share it; a query arriving meanwhile builds at once.
   */
  async ensureAsync(graph: CodeGraph, sliceMs = 20): Promise<void> {
    for (;;) {
      if (this.builtFor === graph) {
        if (this.syncedVersion !== graph.version) await this.syncSliced(graph, sliceMs);
        if (this.builtFor !== graph || this.syncedVersion === graph.version) return;
        continue; // the graph changed during a yield: sync again
      }
      if (this.offThread && !this.workerFailed && graph.nodeCapacity >= buildProcessMinNodes()) {
        const job = this.buildInBackground(graph, sliceMs);
        await job.done;
        // Reset meanwhile (the graph was replaced, the engine closed): nobody wants this graph's index.
        if (this.builtFor !== graph && job.abort.signal.aborted) return;
        continue; // built, or the graph changed meanwhile, or no build process: look again
      }
      // Not started, or the graph changed since it started: (re)start from the current graph.
      if (this.building?.graph !== graph || this.building.version !== graph.version) this.startBuild(graph);
      const build = this.building!;
      const clock = new SliceClock(sliceMs);
      do {
        const r = build.steps.next();
        if (r.done) {
          this.building = null;
          this.installBuilt(graph, r.value);
          return;
        }
      } while (!clock.spent());
      await clock.yield();
      // Reset meanwhile (the graph was replaced): nobody wants this graph's index any more.
      if (this.builtFor !== graph && this.building === null) return;
    }
  }

  /** True while a full build is under way (sliced or in the background). */
  get buildInProgress(): boolean {
    return this.building !== null || this.background !== null;
  }

  private startBuild(graph: CodeGraph): void {
    this.reset();
    this.building = { graph, version: graph.version, steps: this.fullBuild(graph, true) };
  }

  /** Starts (or joins) the background build of this graph version: the file in slices, else the build process. */
  private buildInBackground(graph: CodeGraph, sliceMs: number): NonNullable<LexicalIndex['background']> {
    const running = this.background;
    if (running?.graph === graph && running.version === graph.version) return running;
    this.reset();
    const job = { graph, version: graph.version, done: Promise.resolve(), abort: new AbortController() };
    this.background = job;
    const wanted = (): boolean => this.background === job && graph.version === job.version;
    job.done = this.readOrBuildOffThread(graph, sliceMs, wanted, job.abort.signal).finally(() => {
      if (this.background === job) this.background = null;
    });
    return job;
  }

  private async readOrBuildOffThread(graph: CodeGraph, sliceMs: number, wanted: () => boolean, signal: AbortSignal): Promise<void> {
    const version = graph.version;
    const key = this.file?.key() ?? null;
    if (key !== null) {
      const reading = readIndexFile(this.file!.path(), key, graph);
      try {
        const read = await drainWhile(reading, new SliceClock(sliceMs), wanted);
        if (!read) return;
        if (read.value) {
          this.installBuilt(graph, { base: { ...read.value, version }, from: 'file', key });
          return;
        }
      } finally {
        reading.return(null); // closes the file when abandoned midway
      }
    }
    let built;
    try {
      built = await buildOffThread(graph, this.offThread!.root(), key ?? '', this.averages, sliceMs, wanted, signal, this.scratchPath());
    } catch {
      this.workerFailed = true; // no build process here (or it failed): later builds run on the main thread
      return;
    }
    if (built && wanted()) this.installBuilt(graph, { base: built.base, from: 'worker', key, bytes: built.bytes });
  }

  /**
   * `sync` in slices of about `sliceMs`: re-indexing the nodes of a burst of re-ingested files (a few
   * hundred files, thousands of nodes) tokenises each one, ~10-40 ms in one piece. Returns early,
   * unsynced, when the graph changed or the index was reset during a yield (the caller looks again).
   */
  private async syncSliced(graph: CodeGraph, sliceMs: number): Promise<void> {
    const version = graph.version;
    const changed = this.changedSlots(graph);
    const clock = new SliceClock(sliceMs);
    for (let k = 0; k < changed.length; k += SYNC_CHUNK) {
      if (k > 0 && clock.spent()) {
        await clock.yield();
        if (graph.version !== version || this.builtFor !== graph) return;
      }
      this.update(graph, changed.slice(k, k + SYNC_CHUNK));
    }
    this.syncedVersion = version;
    if (changed.length) this.scheduleRewrite(graph);
  }

  /** Re-indexes whatever differs between the graph and the index (O(nodes), no tokenising of unchanged nodes). */
  sync(graph: CodeGraph): void {
    this.syncedVersion = graph.version;
    const changed = this.changedSlots(graph);
    if (changed.length) {
      this.update(graph, changed);
      this.scheduleRewrite(graph);
    }
  }

  /**
   * After incremental changes, once they settle: a full build of the current graph in the background
   * (the build process when available), installed when the graph has not changed meanwhile (stale postings
   * dropped) and written to the index file, so the next process reads it instead of building.
   */
  private scheduleRewrite(graph: CodeGraph): void {
    // A graph built on the main thread in a new process is cheaper than rebuilding here after every change.
    if (!this.file?.writable() || this.file.key() === null || graph.nodeCapacity < buildProcessMinNodes()) return;
    if (this.rewriteTimer) clearTimeout(this.rewriteTimer);
    const epoch = this.epoch;
    this.rewriteTimer = setTimeout(
      () => {
        this.rewriteTimer = null;
        if (this.epoch === epoch) void this.rewrite(graph).catch(() => undefined);
      },
      REWRITE_DELAY_MS + graph.nodeCount / 10,
    );
    this.rewriteTimer.unref();
  }

  private async rewrite(graph: CodeGraph): Promise<void> {
    const key = this.file!.key();
    if (key === null || key === this.fileKey || this.builtFor !== graph || this.background || this.building || this.rewriting) return;
    const version = graph.version;
    const epoch = this.epoch;
    const wanted = (): boolean => this.epoch === epoch && this.builtFor === graph && graph.version === version && this.file!.key() === key;
    const abort = (this.rewriting = new AbortController());
    try {
      await this.rebuildInBackground(graph, key, wanted, abort.signal);
    } finally {
      if (this.rewriting === abort) this.rewriting = null;
    }
  }

  private async rebuildInBackground(graph: CodeGraph, key: string, wanted: () => boolean, signal: AbortSignal): Promise<void> {
    let built: Built | null = null;
    if (this.offThread && !this.workerFailed) {
      const job = buildOffThread(graph, this.offThread.root(), key, this.averages, 10, wanted, signal, this.scratchPath());
      const worker = await job.catch(() => null);
      if (worker) built = { base: worker.base, from: 'worker', key, bytes: worker.bytes };
    } else {
      const build = await drainWhile(buildBaseIndex(graph, this.textOf, this.averages), new SliceClock(BACKGROUND_SLICE_MS), wanted);
      if (!build) return;
      built = { base: build.value, from: 'build', key };
    }
    if (!built || !wanted()) return;
    this.installBuilt(graph, built);
    this.fileStats.rewrites++;
  }

  /** Index size facts and what the index file did. */
  stats(): { tokens: number; postings: number; stalePostings: number; documents: number; builds: number; workerBuilds: number; fileLoads: number; fileWrites: number; rewrites: number } {
    const { builds, workerBuilds, loads, writes, rewrites } = this.fileStats;
    return { ...this.sizes(), builds, workerBuilds, fileLoads: loads, fileWrites: writes, rewrites };
  }
}

function runToEnd<T>(steps: Generator<void, T, void>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** Re-exported for callers that filter by kind. */
export type { NodeKind };
