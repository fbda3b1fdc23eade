/**
 * The engine's side of the checker worker: starts it on first use (from source through tsx, or the
 * built .js), sends one pass at a time, and stops it after a quiet minute so an idle server does not
 * hold the programs in memory (the next pass rebuilds them).
 */
import { Worker } from 'node:worker_threads';
import type { CheckerWorkerData, CheckInputFile, CheckRequest, CheckResponse, WarmRequest } from './protocol.ts';

/** A pass's answer (the worker's result message). */
export type CheckResult = Extract<CheckResponse, { type: 'result' }>;

const IDLE_MS = 60_000;
const MAX_HEAP_MB = 2048;

/** Spawns and talks to the checker worker. */
export class CheckerClient {
  /** `cacheDir`: where the worker keeps the compiler's code cache (see compiler-cache.ts); null for none. */
  constructor(private readonly cacheDir: string | null = null) {}

  private worker: Worker | null = null;
  private nextId = 1;
  private idle: NodeJS.Timeout | null = null;
  private pending = new Map<number, { resolve: (r: CheckResponse) => void; reject: (e: Error) => void }>();

  /** Runs one pass: edges for `check`, with `files` as the workspace's TS/JS files. */
  async run(root: string, files: CheckInputFile[], check: string[]): Promise<CheckResult> {
    const res = await this.send({ type: 'check', id: 0, root, files, check });
    if (res.type !== 'result') throw new Error(`checker worker answered ${res.type} to check`);
    return res;
  }

  /**
   * Starts the worker, if it is not running, and has it build the programs from disk. The worker
   * answers requests in order, so a pass asked for meanwhile waits for (and reuses) this.
   */
  warm(root: string): Promise<void> {
    if (this.worker) return Promise.resolve();
    return this.send({ type: 'warm', id: 0, root }).then(() => undefined);
  }

  private send(req: CheckRequest | WarmRequest): Promise<CheckResponse> {
    const worker = this.ensure();
    if (this.idle) clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise<CheckResponse>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...req, id });
    });
  }

  /** Stops the worker (pending passes reject). */
  async stop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const fromSource = new URL(import.meta.url).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
    const ext = fromSource ? 'ts' : 'js';
    const url = (name: string) => JSON.stringify(new URL(`./${name}.${ext}`, import.meta.url).href);
    // The compiler (one 9 MB file) is loaded first, from its code cache, by a vm.Script: never through
    // a loader's hooks, which make it 2-4x slower. From source the worker registers the TypeScript
    // loader the host runs under, for its own modules.
    const tsx = fromSource ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register())` : 'Promise.resolve()';
    const code = `const { workerData } = require('node:worker_threads');
${tsx}.then(() => import(${url('compiler-cache')})).then((m) => { m.loadCompiler(workerData.cacheDir); return import(${url('checker-worker')}); });`;
    const workerData: CheckerWorkerData = { spawnedAt: performance.now(), cacheDir: this.cacheDir };
    // A bound on the checker's heap: past it the worker dies, the pass reports `failed` files and
    // last_error, and the graph keeps name-resolved calls (the server itself is unaffected).
    const worker = new Worker(code, { eval: true, workerData, resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB } });
    worker.on('message', (res: CheckResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.type === 'error') p.reject(new Error(res.message));
      else p.resolve(res);
      if (this.pending.size === 0) {
        worker.unref();
        this.scheduleIdle();
      }
    });
    worker.unref(); // referenced only while a pass is pending; after the 'message' listener, which references it again
    const fail = (err: Error): void => {
      this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`checker worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private scheduleIdle(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.stop(), IDLE_MS);
    this.idle.unref();
  }
}
