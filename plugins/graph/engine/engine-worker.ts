/**
 * Starts an engine worker thread from a module next to the caller: from source through the same
 * TypeScript loader the host runs under (tsx), or the built .js. Shared by the parse pool and the
 * store's commit worker.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** How an engine worker runs. */
export interface EngineWorkerOptions {
  /**
   * Lowers the worker thread's scheduling priority by this much (Linux nice is per thread: the
   * worker sets its own, before it loads anything; capped at 19; 0 or less: the starting thread's
   * priority). On a machine with few cores the main thread, which answers other sessions and runs
   * an ingest's serial steps, then gets a core first. Where the system refuses, nothing changes.
   */
  nice?: number;
}

/**
 * A worker running `relative` (a `.ts` path, e.g. './worker.ts') resolved against `base` (the
 * caller's import.meta.url). The caller references it while it has work and unreferences it when
 * idle, so that an idle worker never keeps the process alive — after adding its 'message' listener:
 * adding one references a worker again (Node 20), which kept processes up until the idle timeout.
 */
export function spawnEngineWorker(base: string, relative: string, resourceLimits?: ResourceLimits, options: EngineWorkerOptions = {}): Worker {
  const fromSource = new URL(base).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
  const entry = new URL(fromSource ? relative : relative.replace(/\.ts$/, '.js'), base).href;
  const nice = Math.min(19, Math.max(0, Math.floor(options.nice ?? 0)));
  // setpriority(PRIO_PROCESS, 0) changes the calling thread only on Linux; elsewhere it would
  // change the whole process, so other systems keep the priority as it is.
  const lower = nice > 0 && process.platform === 'linux' ? `try { const os = require('node:os'); os.setPriority(0, Math.min(19, os.getPriority(0) + ${nice})); } catch {}\n` : '';
  const code = fromSource
    ? `${lower}import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
    : `${lower}import(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, ...(resourceLimits ? { resourceLimits } : {}) });
}
