/**
 * The background facts job: once the stored graph is loaded, and after every call that changed it
 * (an ingest, a watched edit picked up by a freshness check), the facts of every code file the
 * graph holds are computed ahead of the first scan — in slices through the same facts cache and
 * worker pool the verbs use (so they land in memory and in the persisted table), yielding between
 * files, never computing while a verb computes (the verb goes first; a verb arriving mid-slice waits
 * for that slice and reuses it), and cancelled and restarted when the graph changes again. Memory
 * stays bounded by the facts cache's own cap: a slice's results are dropped once cached.
 */
import { BACKGROUND_SLICE_MS, backgroundYield, SliceClock, type CodeGraph, type GraphService, type Language } from '../graph/api.ts';
import { CODE_LANGUAGES } from './code-trees.ts';
import { Deadline } from './deadline.ts';
import { backgroundSlice, factsOf, factsStoreOf, verbsComputing, warmClassNames } from './facts-cache.ts';

/** Files per slice: a few worker batches, so a new graph or a verb waits at most one slice. */
const SLICE_FILES = 96;
/** Quiet time after a change before the job starts (ingests and edits come in bursts). */
const DEBOUNCE_MS = 250;
/** A slice's own budget (a stuck worker must not hold the job forever). */
const SLICE_BUDGET_MS = 120_000;

export interface WarmerStatus {
  state: 'idle' | 'waiting' | 'running' | 'done' | 'cancelled' | 'failed';
  /** Code files of the graph the job covers, and how many it has gone through. */
  files: number;
  done: number;
  /** Files it parsed (the others were in memory or persisted already). */
  parsed: number;
  elapsed_ms: number;
  runs: number;
}

export class FactsWarmer {
  /** The graph the last (re)start saw: generation, version, node and edge counts (numbers, so a poke allocates nothing). */
  private seenGeneration = -1;
  private seenVersion = -1;
  private seenNodes = -1;
  private seenEdges = -1;
  private timer: NodeJS.Timeout | null = null;
  private current: { cancelled: boolean; promise: Promise<void> } | null = null;
  private stopped = false;
  readonly status: WarmerStatus = { state: 'idle', files: 0, done: 0, parsed: 0, elapsed_ms: 0, runs: 0 };

  constructor(
    private readonly graph: GraphService,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  /** Looks at the graph: when it changed since the last run, (re)starts the job after a short quiet time. O(1), no allocation when it did not (every call pokes). */
  poke(): void {
    if (this.stopped || !this.changed()) return;
    if (this.current) this.current.cancelled = true;
    if (this.timer) clearTimeout(this.timer);
    this.status.state = 'waiting';
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.start();
    }, DEBOUNCE_MS);
    this.timer.unref();
  }

  /** Resolves when the job in progress (if any) has finished or stopped. */
  async idle(): Promise<void> {
    while (this.timer || this.current) {
      if (this.current) await this.current.promise;
      else await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS));
    }
  }

  /** Stops for good (plugin shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.current) {
      this.current.cancelled = true;
      await this.current.promise;
    }
  }

  /** Whether the graph is loaded, not empty and not the one seen last; remembers it when it changed. */
  private changed(): boolean {
    const engine = this.graph.engine;
    let g: { nodeCount: number; edgeCount: number; version: number };
    try {
      g = engine.graph;
    } catch {
      return false; // not loaded yet
    }
    const nodes = g.nodeCount;
    if (nodes === 0) return false;
    const generation = engine.generation;
    const version = g.version;
    const edges = g.edgeCount;
    if (generation === this.seenGeneration && version === this.seenVersion && nodes === this.seenNodes && edges === this.seenEdges) return false;
    this.seenGeneration = generation;
    this.seenVersion = version;
    this.seenNodes = nodes;
    this.seenEdges = edges;
    return true;
  }

  private async start(): Promise<void> {
    const previous = this.current;
    const run = { cancelled: false, promise: Promise.resolve() };
    this.current = run;
    run.promise = (async () => {
      if (previous) await previous.promise;
      await this.work(run);
    })()
      .catch((error: Error) => {
        this.status.state = 'failed';
        this.onError(error.message);
      })
      .finally(() => {
        if (this.current === run) this.current = null;
      });
    await run.promise;
  }

  /** The job's start: the code files, then the class names and the persisted table, each in background slices or turns of their own; null when cancelled. */
  private async codeFiles(run: { cancelled: boolean }): Promise<{ path: string; language: Language }[] | null> {
    const g = this.graph.engine.graph;
    const gone = () => run.cancelled || this.stopped;
    const files = await codeFilesOf(g, gone);
    if (!files) return null;
    await backgroundYield();
    await warmClassNames(g);
    await backgroundYield();
    factsStoreOf(this.graph);
    await backgroundYield();
    return gone() ? null : files;
  }

  private async work(run: { cancelled: boolean }): Promise<void> {
    const files = await this.codeFiles(run);
    if (!files) {
      this.status.state = 'cancelled';
      return;
    }
    const started = performance.now();
    Object.assign(this.status, { state: 'running', files: files.length, done: 0, parsed: 0, elapsed_ms: 0 });
    this.status.runs++;
    for (let i = 0; i < files.length; i += SLICE_FILES) {
      // A verb computing facts goes first: it takes what the job made so far and computes the rest.
      while (verbsComputing() && !run.cancelled) await new Promise((resolve) => setTimeout(resolve, 25));
      if (run.cancelled || this.stopped) {
        this.status.state = 'cancelled';
        return;
      }
      const slice = files.slice(i, i + SLICE_FILES);
      const outcome = await backgroundSlice(factsOf(this.graph, slice, new Deadline(SLICE_BUDGET_MS), { background: true }));
      this.status.done += slice.length;
      this.status.parsed += outcome.computed;
      this.status.elapsed_ms = Math.round(performance.now() - started);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // A whole pass: rows of files no longer in the graph go.
    factsStoreOf(this.graph)?.retain(new Set(files.map((f) => f.path)));
    this.status.state = 'done';
  }
}

/**
 * The graph's code files in path order (code-unit order), read in background slices: all of a big
 * graph's nodes in one go plus a locale-aware sort held the loop ~30 ms when the job started on a
 * 10,000-node graph. Null when `cancelled()` turns true between slices.
 */
export async function codeFilesOf(g: CodeGraph, cancelled: () => boolean): Promise<{ path: string; language: Language }[] | null> {
  const files: { path: string; language: Language }[] = [];
  const clock = new SliceClock(BACKGROUND_SLICE_MS);
  let k = 0;
  for (const [, n] of g.nodes()) {
    if (n.kind === 'file' && n.language && CODE_LANGUAGES.includes(n.language)) files.push({ path: n.path, language: n.language });
    if ((++k & 1023) === 0 && clock.spent()) {
      await clock.yield();
      if (cancelled()) return null;
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
