/**
 * The engine's side of the checker worker. One worker thread serves every engine of the process
 * that keeps its compiler code cache in the same folder (a server's engine, a history snapshot
 * built with the checker, the many hosts of a test run): the compiler loads once, and the lib files
 * (lib.dom.d.ts and the ES libs: most of a small workspace's warm-up) are parsed once and shared by
 * the engines' programs. Each engine is a client with its own programs in the worker, dropped when it
 * stops. The worker answers requests in order, is started on first use (from source through tsx, or
 * the built .js), and stops after a quiet minute so an idle server does not hold the programs in
 * memory (the next pass rebuilds them).
 */
import { Worker } from 'node:worker_threads';
import type { CheckerWorkerData, CheckInputFile, CheckProgress, CheckRequest, CheckResponse, ReleaseRequest, WarmRequest } from './protocol.ts';

/** A pass's answer (the worker's result message). */
export type CheckResult = Extract<CheckResponse, { type: 'result' }>;

const IDLE_MS = 60_000;
const MAX_HEAP_MB = 2048;

type Request = CheckRequest | WarmRequest | ReleaseRequest;
type Waiter = { resolve: (r: CheckResponse) => void; reject: (e: Error) => void; onProgress?: (p: CheckProgress) => void };

/** One checker worker thread: spawned on demand, referenced only while a request is pending. */
class CheckerThread {
  private worker: Worker | null = null;
  /** Bumped at each spawn: programs a client built belong to one spawn. */
  spawns = 0;
  private nextId = 1;
  private idle: NodeJS.Timeout | null = null;
  private readonly pending = new Map<number, Waiter>();
  /** Clients whose programs this spawn holds. */
  private readonly holders = new Set<number>();

  constructor(private readonly cacheDir: string | null) {}

  get running(): boolean {
    return this.worker !== null;
  }

  /** Sends a request; `ids` receives its id (so a client can drop what it asked for). */
  send(req: Omit<CheckRequest, 'id'> | Omit<WarmRequest, 'id'>, ids: Set<number>, onProgress?: (p: CheckProgress) => void): Promise<CheckResponse> {
    const worker = this.ensure();
    this.holders.add(req.client);
    if (this.idle) clearTimeout(this.idle);
    const id = this.nextId++;
    ids.add(id);
    return new Promise<CheckResponse>((resolve, reject) => {
      const done = (): void => void ids.delete(id);
      this.pending.set(id, { resolve: (r) => (done(), resolve(r)), reject: (e) => (done(), reject(e)), onProgress });
      worker.ref();
      worker.postMessage({ ...req, id });
    });
  }

  /**
   * Tells the worker to drop a client's programs (no answer awaited) and rejects what the client still
   * waits for. When the worker is busy for that client alone (its pass in flight, no other client held),
   * it is stopped instead: nobody would read what it computes.
   */
  async release(client: number, ids: ReadonlySet<number>): Promise<void> {
    this.holders.delete(client);
    const abandoned = [...ids].filter((id) => this.pending.has(id));
    for (const id of abandoned) {
      const p = this.pending.get(id)!;
      this.pending.delete(id);
      p.reject(new Error('checker client stopped'));
    }
    if (abandoned.length > 0 && this.holders.size === 0) {
      await this.stop();
      return;
    }
    const msg: ReleaseRequest = { type: 'release', id: 0, client };
    this.worker?.postMessage(msg);
    this.settle();
  }

  /** Stops the worker (pending requests reject). */
  async stop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  /** With nothing pending, the worker holds no reference and stops after a quiet minute. */
  private settle(): void {
    if (this.pending.size > 0 || !this.worker) return;
    this.worker.unref();
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.stop(), IDLE_MS);
    this.idle.unref();
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
      if (!p) return; // a released client's answer
      if (res.type === 'progress') {
        p.onProgress?.(res.progress);
        return;
      }
      this.pending.delete(res.id);
      if (res.type === 'error') p.reject(new Error(res.message));
      else p.resolve(res);
      this.settle();
    });
    worker.unref(); // referenced only while a request is pending; after the 'message' listener, which references it again
    const fail = (err: Error): void => {
      if (this.worker !== worker) return;
      this.worker = null;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const p of waiting) p.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`checker worker exited (${code})`)));
    this.worker = worker;
    this.spawns++;
    this.holders.clear();
    return worker;
  }
}

/** The process's shared workers, by code-cache folder. */
const shared = new Map<string | null, CheckerThread>();
let nextClient = 1;

/** A client dropped without `stop` (an embedder that never closed its host) still releases its programs. */
const unstopped = new FinalizationRegistry<{ thread: CheckerThread; client: number; spawn: number }>(({ thread, client, spawn }) => {
  if (thread.running && thread.spawns === spawn) void thread.release(client, new Set());
});

/** Talks to the checker worker for one engine. */
export class CheckerClient {
  private readonly id = nextClient++;
  private readonly thread: CheckerThread;
  private readonly own: boolean;
  /** Ids of this client's requests still waiting. */
  private readonly ids = new Set<number>();
  /** The worker spawn holding this client's programs (0: none). */
  private heldBy = 0;

  /**
   * `cacheDir`: where the worker keeps the compiler's code cache (see compiler-cache.ts); null for
   * none. `shared: false` gives the client a worker of its own (a fresh start, as the load-cost
   * measures need).
   */
  constructor(cacheDir: string | null = null, options: { shared?: boolean } = {}) {
    this.own = options.shared === false;
    if (this.own) this.thread = new CheckerThread(cacheDir);
    else {
      let thread = shared.get(cacheDir);
      if (!thread) shared.set(cacheDir, (thread = new CheckerThread(cacheDir)));
      this.thread = thread;
    }
  }

  /** Runs one pass: edges for `check`, with `files` as the workspace's TS/JS files; `onProgress` hears how far it is. */
  async run(root: string, files: CheckInputFile[], check: string[], onProgress?: (p: CheckProgress) => void): Promise<CheckResult> {
    const res = await this.send({ type: 'check', client: this.id, root, files, check }, onProgress);
    if (res.type !== 'result') throw new Error(`checker worker answered ${res.type} to check`);
    return res;
  }

  /**
   * Has the worker build this client's programs from disk, unless it holds them already. The worker
   * answers requests in order, so a pass asked for meanwhile waits for (and reuses) this.
   */
  warm(root: string): Promise<void> {
    if (this.thread.running && this.heldBy === this.thread.spawns) return Promise.resolve();
    return this.send({ type: 'warm', client: this.id, root }).then(() => undefined);
  }

  /** Stops: this client's programs are dropped and its waiting requests reject; a worker of its own stops. */
  async stop(): Promise<void> {
    if (this.own) {
      await this.thread.stop();
      return;
    }
    if (this.thread.running && this.heldBy === this.thread.spawns) await this.thread.release(this.id, this.ids);
    unstopped.unregister(this);
    this.heldBy = 0;
  }

  private send(req: Omit<CheckRequest, 'id'> | Omit<WarmRequest, 'id'>, onProgress?: (p: CheckProgress) => void): Promise<CheckResponse> {
    const res = this.thread.send(req, this.ids, onProgress);
    if (!this.own && this.heldBy !== this.thread.spawns) {
      unstopped.unregister(this);
      unstopped.register(this, { thread: this.thread, client: this.id, spawn: this.thread.spawns }, this);
    }
    this.heldBy = this.thread.spawns;
    return res;
  }
}
