/**
 * A pool of parse workers (worker_threads): an ingest hands it the files to read and parse, and gets
 * their outcomes back in the same order, so the merged graph is the same as a single-threaded run's.
 * Workers start on first use or when an ingest warms the pool before its walk (from source through
 * tsx, or the built .js), and stop after a quiet half minute or right after a parse of 500+ files,
 * so an idle server holds no grammars in extra threads and a big build does not share memory with them.
 * Outcomes come back in task order, a batch at a time (`onBatch`), so a caller can pass each batch on.
 * The messages (protocol.ts) are plain data: a `parse` request of tasks, a `result` with one wire
 * outcome per task; a new kind of per-file fact is a new optional field of the wire outcome.
 */
import { availableParallelism } from 'node:os';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { spawnEngineWorker } from '../engine-worker.ts';
import type { ParseExtensionSpec } from '../parse-extensions.ts';
import { fromWire, type ParseOutcome, type ParseTask, type WireOutcome } from './parse-file.ts';
import type { ParseRequest, ParseResponse } from './protocol.ts';

const IDLE_MS = 30_000;
/** A batch closes at this many bytes or files: small enough to balance the workers, large enough to amortise a message. */
const BATCH_BYTES = 256 * 1024;
const BATCH_FILES = 24;
/** Batches queued per worker, so a worker never waits for the main thread between two. */
const IN_FLIGHT = 2;
/**
 * After parsing at least this many files the workers stop at once instead of idling: each holds
 * ~60 MB after a big parse (the tree-sitter heap grown by the largest files, its own V8 heap), which
 * the graph build that follows needs more; a big run is rare, and its parse dwarfs a restart.
 */
const RELEASE_AFTER_FILES = 500;

/**
 * The workers' young generation (MB) for a big parse. A worker's garbage is per file (query matches,
 * capture nodes, the hand-over's JSON) and dies young; V8's default young generation is several
 * times that, and its semi-spaces stay committed. On 1,500 python3-prefix files two workers peaked
 * 35–60 MB lower in RSS with 8 MB (4 MB: no lower; 16 MB: between). On the stdlib (~20 MB of
 * sources) it cost 8–10 % of wall and CPU for no lower peak, so it applies only to a parse of at
 * least YOUNG_CAP_MIN_BYTES, where the parse's RSS is what the ingest's peak is made of; smaller
 * parses run with V8's default. docs/benchmarks.md.
 */
export const WORKER_YOUNG_MB = 8;
/** Declared bytes of a parse's files from which its workers run with WORKER_YOUNG_MB (the search cache's default budget: what a big full ingest exceeds). */
export const YOUNG_CAP_MIN_BYTES = 64 << 20;

/**
 * How much lower than the main thread the parse workers run (Linux nice, per thread; 0: the same).
 * On 2 cores two workers and the main thread compete for the cores: niced workers leave the main
 * thread a core whenever it has work (a ping of another session, staging the parsed files' nodes,
 * the link after the parse) and still get every cycle it does not use; docs/benchmarks.md.
 */
export const DEFAULT_WORKER_NICE = 10;

/**
 * Parse workers when none are configured: one per core (at most 8). Parsing off the main thread is
 * what keeps the server answering during an ingest (a large file's parse holds a thread for 100+ ms,
 * which no slicing can split); on 2 cores the pooled ingest costs more CPU in all than a
 * single-threaded one (each worker loads its own grammars), see docs/benchmarks.md. `parseWorkers: 0`
 * keeps everything on the main thread.
 */
export function defaultParseWorkers(): number {
  return Math.max(1, Math.min(availableParallelism(), 8));
}

/** What a pooled parse reports: outcomes (unless `onBatch` took them), the workers' summed read and parse milliseconds. */
export interface PooledParse {
  /** Outcomes in task order; empty when `onBatch` received them instead. */
  outcomes: ParseOutcome[];
  read: number;
  parse: number;
  /** The most V8 heap (committed bytes) any worker reported after a batch. */
  workerHeap: number;
  /** The most tree-sitter linear memory (bytes) any worker reported (it never shrinks within a worker). */
  workerWasm: number;
}

/** How a caller follows one pooled parse. */
export interface ParseRunOptions {
  /** Files finished so far (every finished batch). */
  onDone?: (done: number) => void;
  /** Checked after each batch: an error stops the parse with it (the workers are stopped). */
  cancelled?: () => Error | null;
  /**
   * Receives outcomes in task order, one run of consecutive tasks at a time, as soon as every
   * earlier batch has arrived; the pool then keeps none of them, so an ingest can hand each batch
   * on (to the store, to the graph) and a big run never holds every extraction's JSON at once.
   * When a worker dies, what was delivered stays delivered: the caller resumes from there.
   * Outcomes come as sent (`fromWire` makes each a ParseOutcome), so the caller decodes them in its
   * own slices: a few batches decoded at once held the loop ~8 ms.
   */
  onBatch?: (start: number, outcomes: readonly WireOutcome[]) => void;
  /** Outcomes carry the light copy of their extraction (`ParseOutcome.light`); the whole one is parsed only when read. */
  light?: boolean;
  /** Outcomes carry the file's text (default true); false sends '' instead (the caller keeps no text). */
  text?: boolean;
  /** Parse extensions to run on each tree (parse-extensions.ts). */
  extensions?: ParseExtensionSpec[];
}

interface Slot {
  worker: Worker;
  inFlight: number;
  /** The young generation cap the worker was started with (MB), or undefined for V8's default. */
  youngMb: number | undefined;
  /** The worker's thread id (Linux), once its first answer told it. */
  tid?: number;
}

interface Pending {
  slot: Slot;
  resolve: (res: Extract<ParseResponse, { type: 'result' }>) => void;
  reject: (err: Error) => void;
}

/** A fixed-size set of parse workers. */
export class ParsePool {
  readonly size: number;
  /** How much the workers lower their own priority (see DEFAULT_WORKER_NICE). */
  readonly nice: number;
  private slots: Slot[] = [];
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private idle: NodeJS.Timeout | null = null;
  /** Parses under way (0 or 1: the queue runs one at a time); the idle timer never runs during one. */
  private running = 0;
  /** Runs one parse at a time: batches of two runs would compete for the same in-flight slots. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(size: number, nice: number = DEFAULT_WORKER_NICE) {
    this.size = Math.max(1, Math.floor(size));
    this.nice = niceOf(nice);
  }

  /** Whether workers are running (started and not yet stopped for idleness): a parse now needs no start-up. */
  get started(): boolean {
    return this.slots.length > 0;
  }

  /**
   * Starts the workers now if they are not running (each loads the parser modules and the
   * tree-sitter runtime at once), so their start-up overlaps what the caller does before its first
   * parse, e.g. an ingest's walk. They stop after a quiet half minute as usual.
   */
  warm(): void {
    this.ensureWorkers(undefined);
    if (this.running === 0) this.scheduleIdle();
  }

  /** Reads and parses `tasks` across the workers (see ParseRunOptions for how results come back). */
  parse(root: string, parserVersion: string, tasks: readonly ParseTask[], options: ParseRunOptions = {}): Promise<PooledParse> {
    const run = this.queue.then(() => this.parseNow(root, parserVersion, tasks, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async parseNow(root: string, parserVersion: string, tasks: readonly ParseTask[], options: ParseRunOptions): Promise<PooledParse> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.running++;
    try {
      return await this.parseBatches(root, parserVersion, tasks, options);
    } finally {
      this.running--;
    }
  }

  private async parseBatches(
    root: string,
    parserVersion: string,
    tasks: readonly ParseTask[],
    options: ParseRunOptions,
  ): Promise<PooledParse> {
    const { onDone, cancelled, onBatch, light = false, text = true, extensions } = options;
    // Workers started for another class of parse (capped young generation or not) are restarted: a
    // big parse dwarfs a restart, and a small one after a big one should not keep the cap's cost.
    const youngMb = youngGenerationFor(tasks);
    if (this.slots.some((s) => s.youngMb !== youngMb)) await this.stop();
    this.ensureWorkers(youngMb);
    const batches = batchTasks(tasks);
    const outcomes: ParseOutcome[] = onBatch ? [] : new Array(tasks.length);
    // Batches that arrived ahead of an earlier one wait here (by batch index) until it comes.
    const early = new Map<number, WireOutcome[]>();
    let delivered = 0;
    const deliver = (index: number, batch: WireOutcome[]): void => {
      if (!onBatch) {
        for (let i = 0; i < batch.length; i++) outcomes[batches[index].start + i] = fromWire(batch[i]);
        return;
      }
      early.set(index, batch);
      for (let b = early.get(delivered); b !== undefined; b = early.get(delivered)) {
        early.delete(delivered);
        onBatch(batches[delivered].start, b);
        delivered++;
      }
    };
    let read = 0;
    let parse = 0;
    let workerHeap = 0;
    let workerWasm = 0;
    let done = 0;
    let next = 0;
    try {
      await new Promise<void>((resolveAll, failAll) => {
        let settled = 0;
        let failed = false;
        // After a failure or a cancel, batches still in flight are dropped unreported.
        const rejectAll = (err: Error): void => {
          failed = true;
          failAll(err);
        };
        const feed = (slot: Slot): void => {
          while (slot.inFlight < IN_FLIGHT && next < batches.length) {
            const index = next++;
            slot.inFlight++;
            this.send(slot, root, parserVersion, batches[index].tasks, light, text, extensions).then((res) => {
              slot.inFlight--;
              if (res.tid !== undefined) slot.tid = res.tid;
              if (failed) return;
              try {
                deliver(index, res.outcomes);
              } catch (err) {
                return rejectAll(err as Error);
              }
              read += res.read;
              parse += res.parse;
              if (res.heap > workerHeap) workerHeap = res.heap;
              if (res.wasm > workerWasm) workerWasm = res.wasm;
              done += res.outcomes.length;
              onDone?.(done);
              const stop = cancelled?.();
              if (stop) return rejectAll(stop);
              if (++settled === batches.length) resolveAll();
              else feed(slot);
            }, rejectAll);
          }
        };
        if (batches.length === 0) resolveAll();
        for (const slot of this.slots) feed(slot);
      });
    } catch (err) {
      // A dead worker leaves the pool unusable for this run; the caller parses the rest in-process.
      await this.stop();
      throw err;
    }
    if (tasks.length >= RELEASE_AFTER_FILES) void this.stop();
    else this.scheduleIdle();
    return { outcomes, read, parse, workerHeap, workerWasm };
  }

  /** The resource limits the running workers were started with (for tests). */
  workerLimits(): ResourceLimits[] {
    return this.slots.map((s) => s.worker.resourceLimits ?? {});
  }

  /** The running workers' thread ids (Linux; those that answered a batch yet). */
  workerThreads(): number[] {
    return this.slots.flatMap((s) => (s.tid === undefined ? [] : [s.tid]));
  }

  /** Stops every worker (pending batches reject). */
  async stop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private send(slot: Slot, root: string, parserVersion: string, tasks: ParseTask[], light: boolean, text: boolean, extensions?: ParseExtensionSpec[]): Promise<Extract<ParseResponse, { type: 'result' }>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { slot, resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage({ type: 'parse', id, root, parserVersion, tasks, ...(light ? { light } : {}), ...(text ? {} : { noText: true }), ...(extensions?.length ? { extensions } : {}) } satisfies ParseRequest);
    });
  }

  private ensureWorkers(youngMb: number | undefined): void {
    while (this.slots.length < this.size) this.slots.push({ worker: this.spawn(youngMb), inFlight: 0, youngMb });
  }

  private spawn(youngMb: number | undefined): Worker {
    const worker = spawnEngineWorker(import.meta.url, './worker.ts', youngMb === undefined ? undefined : { maxYoungGenerationSizeMb: youngMb }, { nice: this.nice });
    worker.on('message', (res: ParseResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.type === 'error') p.reject(new Error(res.message));
      else p.resolve(res);
      if (![...this.pending.values()].some((q) => q.slot.worker === worker)) worker.unref();
    });
    worker.unref(); // referenced only while it has a batch (see spawnEngineWorker)
    const fail = (err: Error): void => {
      this.slots = this.slots.filter((s) => s.worker !== worker);
      for (const [id, p] of this.pending) {
        if (p.slot.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`parse worker exited (${code})`)));
    return worker;
  }

  private scheduleIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.stop(), IDLE_MS);
    this.idle.unref();
  }
}

/** Consecutive runs of tasks, each closed at BATCH_BYTES or BATCH_FILES. */
/** The young generation cap for a parse of `tasks`: WORKER_YOUNG_MB for a big one (by declared bytes), else none. */
export function youngGenerationFor(tasks: readonly ParseTask[]): number | undefined {
  let bytes = 0;
  for (const t of tasks) bytes += t.size;
  return bytes >= YOUNG_CAP_MIN_BYTES ? WORKER_YOUNG_MB : undefined;
}

function batchTasks(tasks: readonly ParseTask[]): { start: number; tasks: ParseTask[] }[] {
  const out: { start: number; tasks: ParseTask[] }[] = [];
  let cur: ParseTask[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < tasks.length; i++) {
    cur.push(tasks[i]);
    bytes += tasks[i].size;
    if (bytes >= BATCH_BYTES || cur.length >= BATCH_FILES) {
      out.push({ start, tasks: cur });
      cur = [];
      start = i + 1;
      bytes = 0;
    }
  }
  if (cur.length > 0) out.push({ start, tasks: cur });
  return out;
}

let shared: ParsePool | null = null;

const niceOf = (nice: number): number => Math.min(19, Math.max(0, Math.floor(nice)));

/**
 * The process's parse pool of `size` workers at `nice` (a pool of another size or nice is replaced;
 * its workers stop when idle).
 */
export function sharedParsePool(size: number, nice: number = DEFAULT_WORKER_NICE): ParsePool {
  if (!shared || shared.size !== Math.max(1, Math.floor(size)) || shared.nice !== niceOf(nice)) shared = new ParsePool(size, nice);
  return shared;
}

/** Whether the shared pool of this size and priority has workers running (asked without making one). */
export function sharedParsePoolStarted(size: number, nice: number = DEFAULT_WORKER_NICE): boolean {
  return shared !== null && shared.size === Math.max(1, Math.floor(size)) && shared.nice === niceOf(nice) && shared.started;
}
