/**
 * Starts an engine worker thread from a module next to the caller: from source through the same
 * TypeScript loader the host runs under (tsx), or the built .js. Shared by the parse pool and the
 * store's commit worker.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * A worker running `relative` (a `.ts` path, e.g. './worker.ts') resolved against `base` (the
 * caller's import.meta.url); unref'd, so an idle worker never keeps the process alive.
 */
export function spawnEngineWorker(base: string, relative: string, resourceLimits?: ResourceLimits): Worker {
  const fromSource = new URL(base).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
  const entry = new URL(fromSource ? relative : relative.replace(/\.ts$/, '.js'), base).href;
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
    : `import(${JSON.stringify(entry)});`;
  const worker = new Worker(code, { eval: true, ...(resourceLimits ? { resourceLimits } : {}) });
  worker.unref();
  return worker;
}
