/**
 * Worker threads that compute file facts (file-facts.ts) for many files at once: parsing is most
 * of a cold scan's cost and a large file's parse holds a thread for 100+ ms, so a cold `scan_all`
 * or `twins` hands its files to these workers and the event loop stays free. Workers start on
 * first use (plain JavaScript: the built .js, or from sources a bundle esbuild makes once), stop after a quiet half minute, and never
 * keep the process alive.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Language } from '../graph/api.ts';
import type { FileFacts } from './file-facts.ts';

/** One file to read and parse (workspace-relative path under the request's root). */
export interface FactsTask {
  path: string;
  language: Language;
  /** Jobs `sketch` and `shapes`: the symbols' 1-based line ranges, flat (start, end, start, end, …). */
  ranges?: number[];
}
/**
 * What a worker computes per file: `facts` (file-facts.ts), `sketch` (lexical MinHash sketches of the
 * ranges, cold-shapes.ts) or `shapes` (the AST shapes of the definitions in the ranges, parsing only those).
 */
export type FactsJob = 'facts' | 'sketch' | 'shapes';
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
  /** Default `facts`. */
  job?: FactsJob;
  /** `sketch`: also make the parser hot (parser-warm-up.ts); sent to one worker. */
  warmParser?: boolean;
}
/** `facts` for the job `facts`; `packed` (one transferred array for the whole batch) for the others. */
export type FactsResponse = { type: 'result'; id: number; facts: WireFacts[]; packed?: Int32Array } | { type: 'error'; id: number; message: string; stale?: boolean };
/** A batch's result as it lands. */
export interface BatchResult {
  facts: WireFacts[];
  packed?: Int32Array;
}

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
  private pending = new Map<number, { slot: Slot; resolve: (res: BatchResult) => void; reject: (err: Error) => void }>();
  private idle: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly size: number) {}

  /**
   * Computes the facts of `batches` across the workers; `onBatch` receives each batch's facts as it
   * lands (in any order). `more()` is asked before each new batch is sent: false stops feeding
   * (a spent time budget), and the promise resolves once the batches in flight are back.
   */
  run(root: string, grammars: Record<string, string>, batches: FactsTask[][], classNames: readonly string[], classKey: string, onBatch: (batch: number, facts: WireFacts[], packed?: Int32Array) => void, more: () => boolean, job: FactsJob = 'facts'): Promise<void> {
    // One run at a time: two runs would compete for the same in-flight slots.
    const run = this.queue.then(() => this.runNow(root, grammars, batches, classNames, classKey, onBatch, more, job));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runNow(root: string, grammars: Record<string, string>, batches: FactsTask[][], classNames: readonly string[], classKey: string, onBatch: (batch: number, facts: WireFacts[], packed?: Int32Array) => void, more: () => boolean, job: FactsJob): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (this.slots.length < this.size) {
      const entry = await workerEntry();
      while (this.slots.length < this.size) this.slots.push({ worker: this.spawn(entry), inFlight: 0, classKey: '' });
    }
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
          this.send(slot, { id: 0, root, grammars, tasks: batches[b], classKey, ...(sendNames ? { classNames: [...classNames] } : {}), ...(job !== 'facts' ? { job } : {}), ...(job === 'sketch' && slot === this.slots[0] ? { warmParser: true } : {}) }).then(
            (res) => {
              slot.inFlight--;
              inFlight--;
              if (failed) return;
              onBatch(b, res.facts, res.packed);
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

  private send(slot: Slot, req: FactsRequest): Promise<BatchResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { slot, resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage({ ...req, id });
    });
  }

  private spawn(entry: string): Worker {
    let worker: Worker;
    try {
      worker = new Worker(new URL(entry), { execArgv: withoutLoaders(process.execArgv) });
    } catch (error) {
      // A flag a worker cannot take (a V8 or process-wide one, e.g. --max-old-space-size): none then.
      if ((error as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
      worker = new Worker(new URL(entry), { execArgv: [] });
    }
    worker.on('message', (res: FactsResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.type === 'error') p.reject(new Error(res.message));
      else p.resolve({ facts: res.facts, packed: res.packed });
      if (![...this.pending.values()].some((q) => q.slot.worker === worker)) worker.unref();
    });
    // Referenced only while it has a batch (`send`): an idle worker never keeps the process alive.
    // After the 'message' listener: adding one references the worker again.
    worker.unref();
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

/**
 * The process's flags without its module loaders (`--import`, `--require`, `--loader`) and without
 * what names the process's own entry (`--eval`/`--print` and their code, `--input-type`, which a
 * worker refuses at load): the worker's entry is plain JavaScript, and a worker inheriting `--import
 * tsx` (tests, benchmarks, a host run from sources) loaded tsx first, 0.1–0.3 s before its first batch.
 */
export function withoutLoaders(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i];
    if (/^(--import|--require|-r|--loader|--experimental-loader|--eval|-e|--print|-p|--input-type)$/.test(flag)) i++; // and its value
    else if (!/^(--import|--require|--loader|--experimental-loader|--eval|--print|--input-type)=/.test(flag)) out.push(flag);
  }
  return out;
}

let entry: Promise<string> | null = null;

/**
 * Where the bundle is kept between processes: a directory of this user's in the temp folder, used
 * only when it is a real directory (not a symlink) owned by this user that nobody else can write
 * to; otherwise a fresh private one for this process. The bundle is code this process imports, so
 * it must not come from a name another local user could have created first.
 */
export function bundleDir(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const dir = join(tmpdir(), `m1nd-bundles-${uid}`);
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch {
      // Already there: checked below.
    }
    try {
      const st = lstatSync(dir);
      if (st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0) return dir;
    } catch {
      // Not usable: a private one below.
    }
  }
  return mkdtempSync(join(tmpdir(), 'm1nd-bundles-'));
}

/**
 * The worker's entry as plain JavaScript: the built facts-worker.js beside this module, or — run
 * from sources — facts-worker.ts and what it imports bundled once by esbuild into a temp file
 * (web-tree-sitter stays an import by absolute URL). A worker started through tsx paid ~0.8 s CPU
 * each to transform its sources at start; the bundle starts like the built code.
 */
function workerEntry(): Promise<string> {
  return (entry ??= (async () => {
    const here = new URL(import.meta.url);
    if (!here.pathname.endsWith('.ts')) return new URL('./facts-worker.js', here).href;
    // Keyed by the sources it bundles (this folder's modules: name, size, mtime), so a process
    // whose sources did not change reuses the bundle without loading esbuild.
    const dir = fileURLToPath(new URL('.', here));
    const stamp = createHash('sha1');
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) {
      const st = statSync(join(dir, name));
      stamp.update(`${name} ${st.size} ${st.mtimeMs}\n`);
    }
    const file = join(bundleDir(), `facts-worker-${stamp.digest('hex').slice(0, 16)}.mjs`);
    if (existsSync(file)) return pathToFileURL(file).href;
    const { build } = await import('esbuild');
    const treeSitter = import.meta.resolve('web-tree-sitter');
    const out = await build({
      entryPoints: [fileURLToPath(new URL('./facts-worker.ts', here))],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      plugins: [{ name: 'absolute-externals', setup: (b) => b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: treeSitter, external: true })) }],
    });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, out.outputFiles[0].text);
    renameSync(temp, file);
    return pathToFileURL(file).href;
  })().catch((error: unknown) => {
    entry = null;
    throw error;
  }));
}

let shared: FactsPool | null = null;

/** The process's facts pool. */
export function factsPool(): FactsPool {
  return (shared ??= new FactsPool(factsWorkers()));
}
