/**
 * Worker threads that compute file facts (file-facts.ts) for many files at once: parsing is most
 * of a cold scan's cost and a large file's parse holds a thread for 100+ ms, so a cold `scan_all`
 * or `twins` hands its files to these workers and the event loop stays free. Workers start on
 * first use (from source through tsx, or the built .js), stop after a quiet half minute, and never
 * keep the process alive.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Language } from '../graph/api.ts';
import type { FileFacts } from './file-facts.ts';

/** One file to read and parse (workspace-relative path under the request's root). */
export interface FactsTask {
  path: string;
  language: Language;
}
export type WireFacts = FileFacts | null;
export interface FactsRequest {
  id: number;
  root: string;
  tasks: FactsTask[];
  /** Sent when the worker's class names are not this key's (the graph's class labels, for dependency-injection rules). */
  classNames?: string[];
  classKey: string;
  /** Grammar name → .wasm path (the worker loads grammars itself, without the engine). */
  grammars: Record<string, string>;
}
export type FactsResponse = { type: 'result'; id: number; facts: WireFacts[] } | { type: 'error'; id: number; message: string; stale?: boolean };

const IDLE_MS = 30_000;
const IN_FLIGHT = 2;

/** Workers when the pool is used: one per core, at most 4. */
export function factsWorkers(): number {
  return Math.max(1, Math.min(availableParallelism(), 4));
}

interface Slot {
  worker: Worker;
  inFlight: number;
  classKey: string;
}

/** A fixed set of facts workers. */
export class FactsPool {
  private slots: Slot[] = [];
  private nextId = 1;
  private pending = new Map<number, { slot: Slot; resolve: (facts: WireFacts[]) => void; reject: (err: Error) => void }>();
  private idle: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly size: number) {}

  /**
   * Computes the facts of `batches` across the workers; `onBatch` receives each batch's facts as it
   * lands (in any order). `more()` is asked before each new batch is sent: false stops feeding
   * (a spent time budget), and the promise resolves once the batches in flight are back.
   */
  run(root: string, grammars: Record<string, string>, batches: FactsTask[][], classNames: readonly string[], classKey: string, onBatch: (batch: number, facts: WireFacts[]) => void, more: () => boolean): Promise<void> {
    // One run at a time: two runs would compete for the same in-flight slots.
    const run = this.queue.then(() => this.runNow(root, grammars, batches, classNames, classKey, onBatch, more));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private runNow(root: string, grammars: Record<string, string>, batches: FactsTask[][], classNames: readonly string[], classKey: string, onBatch: (batch: number, facts: WireFacts[]) => void, more: () => boolean): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    while (this.slots.length < this.size) this.slots.push({ worker: this.spawn(), inFlight: 0, classKey: '' });
    let next = 0;
    let inFlight = 0;
    return new Promise<void>((resolve, reject) => {
      let failed = false;
      const feed = (slot: Slot): void => {
        while (!failed && slot.inFlight < IN_FLIGHT && next < batches.length && more()) {
          const b = next++;
          slot.inFlight++;
          inFlight++;
          const sendNames = slot.classKey !== classKey;
          slot.classKey = classKey;
          this.send(slot, { id: 0, root, grammars, tasks: batches[b], classKey, ...(sendNames ? { classNames: [...classNames] } : {}) }).then(
            (facts) => {
              slot.inFlight--;
              inFlight--;
              if (failed) return;
              onBatch(b, facts);
              feed(slot);
              if (inFlight === 0) resolve();
            },
            (err: Error) => {
              failed = true;
              reject(err);
            },
          );
        }
      };
      for (const slot of [...this.slots]) feed(slot);
      if (inFlight === 0) resolve();
    }).finally(() => this.scheduleIdle());
  }

  /** Stops every worker. */
  async stop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private send(slot: Slot, req: FactsRequest): Promise<WireFacts[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { slot, resolve, reject });
      slot.worker.postMessage({ ...req, id });
    });
  }

  private spawn(): Worker {
    const worker = spawnWorker(import.meta.url, './facts-worker.ts');
    worker.on('message', (res: FactsResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.type === 'error') p.reject(new Error(res.message));
      else p.resolve(res.facts);
    });
    const fail = (err: Error): void => {
      this.slots = this.slots.filter((s) => s.worker !== worker);
      for (const [id, p] of this.pending) {
        if (p.slot.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`facts worker exited (${code})`)));
    return worker;
  }

  private scheduleIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.stop(), IDLE_MS);
    this.idle.unref();
  }
}

/** A worker running `relative` next to `base`: from source through tsx (as the host runs), or the built .js; unref'd. */
function spawnWorker(base: string, relative: string): Worker {
  const fromSource = new URL(base).pathname.endsWith('.ts');
  const entry = new URL(fromSource ? relative : relative.replace(/\.ts$/, '.js'), base).href;
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
    : `import(${JSON.stringify(entry)});`;
  const worker = new Worker(code, { eval: true });
  worker.unref();
  return worker;
}

let shared: FactsPool | null = null;

/** The process's facts pool. */
export function factsPool(): FactsPool {
  return (shared ??= new FactsPool(factsWorkers()));
}
