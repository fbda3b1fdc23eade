/**
 * Step generators: long engine work written as a generator that yields at points where it may
 * pause (after each file of a pass), run either to the end at once or in time slices that give the
 * event loop back between them, so no single stretch holds the main thread for long.
 */

/**
 * Main-thread work between two yields for background work nobody is waiting on (a snapshot write,
 * a watcher's or the daemon's re-ingest): a request that arrives meanwhile waits at most about this.
 */
export const BACKGROUND_SLICE_MS = 5;

/** Runs a step generator to the end in one go (one that yields a promise to wait for must run sliced). */
export function runSteps<T>(steps: Generator<void | Promise<unknown>, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value) throw new Error('a step waits for a promise: run it with runStepsSliced');
  }
}

/** Lets timers, I/O and other requests run (one macrotask). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs a step generator in slices of about `sliceMs` of main-thread time (a slice overruns by at
 * most one step), yielding a macrotask between slices. Work that finishes within the first slice
 * never yields. A step that yields a promise waits for it (its rejection ends the run).
 */
export async function runStepsSliced<T>(steps: Generator<void | Promise<unknown>, T>, sliceMs: number): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value) {
      try {
        await r.value;
      } catch (err) {
        steps.return(undefined as T);
        throw err;
      }
      sliceStart = performance.now();
    } else if (performance.now() - sliceStart >= sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}
