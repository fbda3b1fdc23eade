/**
 * Time slices for background work: `await slice()` between small steps yields the event loop (a
 * macrotask, so timers and I/O run) once the current slice has run `sliceMs`; an `await` of a
 * promise that is already settled (a synchronous store read) only queues a microtask, which lets
 * nothing else run. The budget is the turn's, shared with every other background slicer (SliceClock).
 */
import { SliceClock } from '../graph/api.ts';

/**
 * Main-thread work of a background cycle between two yields (ms). 3, not the engine's 5: at 10,000
 * files a burst's longest main-thread stretch went from 12–14 to 8–9 ms, the drain's wall unchanged
 * (docs/benchmarks.md, stop 56).
 */
export const SLICE_MS = 3;

/** A function to await between steps: it yields once `sliceMs` have passed since the last yield. */
export function slicer(sliceMs = SLICE_MS): () => Promise<void> {
  const clock = new SliceClock(sliceMs);
  return async () => {
    if (clock.spent()) await clock.yield();
  };
}
