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

/**
 * The current turn of the event loop's background work: when the first background slice of a turn
 * began (-1: none yet). Every background slicer of the process shares it, so two of them running in
 * the same turn (the graph's and the daemon's watcher handling one batch, a re-ingest and a snapshot
 * write) hold the loop for one budget together, not one each. A 0 ms timer, due at the next timers
 * phase, ends the turn.
 */
let turnStart = -1;

function turnElapsed(): number {
  const now = performance.now();
  if (turnStart < 0) {
    turnStart = now;
    setTimeout(() => {
      turnStart = -1;
    }, 0).unref();
  }
  return now - turnStart;
}

/**
 * Whether background work has held this turn of the event loop for `sliceMs` already (its own work
 * and every other background slicer's): it should then `await backgroundYield()`.
 */
export function backgroundTurnSpent(sliceMs = BACKGROUND_SLICE_MS): boolean {
  return turnElapsed() >= sliceMs;
}

/**
 * Whether background slices have run in this turn of the event loop. A caller that awaited background
 * work and now starts foreground work (a query once its index is ready) yields first when they have, so
 * the two are not one stretch of the loop.
 */
export function backgroundRanThisTurn(): boolean {
  return turnStart >= 0;
}

/**
 * Gives the event loop back until the next turn (the timers phase: after requests, I/O and the
 * other phases had their go), where the background budget starts afresh from the moment it resumes.
 */
export function backgroundYield(): Promise<void> {
  // The new turn's budget starts when the work resumes: work done after the yield and before the
  // next budget check (a finalize between two sliced runs) counts.
  return new Promise((resolve) =>
    setTimeout(() => {
      turnElapsed();
      resolve();
    }, 0),
  );
}

/**
 * The clock of one sliced run: a background budget (`sliceMs` ≤ BACKGROUND_SLICE_MS) is the turn's,
 * shared with every other background slicer, and yields to the next timers phase; a longer one is the
 * run's own and yields one macrotask. `spent()` says when to `yield()`.
 */
export class SliceClock {
  private start = performance.now();
  private readonly background: boolean;

  constructor(private readonly sliceMs: number) {
    this.background = sliceMs <= BACKGROUND_SLICE_MS;
    if (this.background) turnElapsed();
  }

  spent(): boolean {
    return this.background ? backgroundTurnSpent(this.sliceMs) : performance.now() - this.start >= this.sliceMs;
  }

  async yield(): Promise<void> {
    await (this.background ? backgroundYield() : yieldToLoop());
    this.start = performance.now();
  }
}

/** A pace for sliced work: resolves at once until the slice is spent, then yields (see SliceClock). */
export function slicePace(sliceMs: number): () => Promise<void> {
  const clock = new SliceClock(sliceMs);
  return () => (clock.spent() ? clock.yield() : Promise.resolve());
}

/**
 * Runs a step generator to its end with `pace()` between steps; undefined when `stop()` says so after
 * a pace (the graph changed meanwhile, typically).
 */
export async function runStepsPaced<T>(steps: Generator<void, T>, pace: () => Promise<void>, stop?: () => boolean): Promise<T | undefined> {
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await pace();
    if (stop?.()) return undefined;
  }
}

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
 * never yields. A step that yields a promise waits for it (its rejection ends the run). Background
 * work (`sliceMs` ≤ BACKGROUND_SLICE_MS) shares one budget per turn of the event loop with every
 * other background slicer (backgroundTurnSpent).
 */
export async function runStepsSliced<T>(steps: Generator<void | Promise<unknown>, T>, sliceMs: number): Promise<T> {
  if (sliceMs <= BACKGROUND_SLICE_MS) return runStepsBackground(steps, sliceMs);
  let sliceStart = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value) {
      await awaitStep(steps, r.value);
      sliceStart = performance.now();
    } else if (performance.now() - sliceStart >= sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

/** `runStepsSliced` for background work: the slice budget is the turn's, shared (see turnStart). */
async function runStepsBackground<T>(steps: Generator<void | Promise<unknown>, T>, sliceMs: number): Promise<T> {
  for (;;) {
    if (backgroundTurnSpent(sliceMs)) await backgroundYield();
    const r = steps.next();
    if (r.done) return r.value;
    if (r.value) await awaitStep(steps, r.value);
  }
}

/** Waits for the promise a step yielded; its rejection closes the generator (its `finally` blocks run) and ends the run. */
async function awaitStep<T>(steps: Generator<void | Promise<unknown>, T>, wait: Promise<unknown>): Promise<void> {
  try {
    await wait;
  } catch (err) {
    steps.return(undefined as T);
    throw err;
  }
}
