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
 * write) hold the loop for one budget together, not one each. A check phase after the next poll
 * phase (where I/O and requests are taken in) ends the turn.
 *
 * Not a 0 ms timer: with two or more slicers yielding through 0 ms timers, Node went on running their
 * timers (and the turn's end, a timer too) in one timers phase without reaching the poll phase, each
 * slicer resumed with a fresh budget (Node 20: two loops of `await setTimeout(0)` and 1–5 ms of work
 * starved every I/O callback for a whole second; two background slicers held ~12 ms between two
 * check phases instead of one 5 ms budget). An immediate queued during a check phase runs in the next
 * iteration's, after its poll phase.
 */
let turnStart = -1;

function turnElapsed(): number {
  const now = performance.now();
  if (turnStart < 0) {
    turnStart = now;
    // Ends after the next poll phase: the check phase after the one that comes first (a turn begun
    // in a poll phase, by an I/O callback, would else end in the check phase right after it and the
    // slicers resumed there hold a second budget before any request is read).
    setImmediate(() => {
      setImmediate(() => {
        turnStart = -1;
      }).unref();
    }).unref();
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
 * Foreground work about to start after awaited background work (a query once its index is ready):
 * when background slices ran in this turn, one macrotask first, so the two are not one stretch of the
 * loop. Not `backgroundYield`: a request does not queue behind background slicers for a budget.
 */
export async function afterBackgroundWork(): Promise<void> {
  if (backgroundRanThisTurn()) await yieldToLoop();
}

/** Background slicers waiting for a turn, first come first resumed, and whether a check phase will look. */
const waiting: { sliceMs: number; resolve: () => void }[] = [];
let pumpQueued = false;

/**
 * In a check phase: resumes the first waiting slicer when this iteration's background budget is not
 * spent yet (by a slice begun in the poll phase, an I/O callback's), one per check phase, first come
 * first resumed; the others wait for the next iteration's. Its own budget counts from the turn's start.
 */
function pump(): void {
  pumpQueued = false;
  const next = waiting[0];
  if (next && !(turnStart >= 0 && performance.now() - turnStart >= next.sliceMs)) {
    waiting.shift();
    // Work done after the resume and before the next budget check (a finalize between two sliced
    // runs) counts in the turn.
    turnElapsed();
    next.resolve();
  }
  if (waiting.length > 0) queuePump();
}

function queuePump(): void {
  if (pumpQueued) return;
  pumpQueued = true;
  setImmediate(pump);
}

/**
 * Gives the event loop back until a turn with budget left (`sliceMs`, the caller's): the check phase
 * of the next loop iteration (after its poll phase has taken in requests and I/O), or a later one
 * when other background slicers wait before it or work begun earlier in the iteration spent the
 * budget; resumed then, a slicer would run a step on top of that work before its next check.
 */
export function backgroundYield(sliceMs = BACKGROUND_SLICE_MS): Promise<void> {
  return new Promise((resolve) => {
    waiting.push({ sliceMs, resolve });
    queuePump();
  });
}

/**
 * The clock of one sliced run: a background budget (`sliceMs` ≤ BACKGROUND_SLICE_MS) is the turn's,
 * shared with every other background slicer, and yields to the next check phase; a longer one is the
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
    await (this.background ? backgroundYield(this.sliceMs) : yieldToLoop());
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
    if (backgroundTurnSpent(sliceMs)) await backgroundYield(sliceMs);
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
