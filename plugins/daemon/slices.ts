/**
 * Time slices for background work: `await slice()` between small steps yields the event loop (a
 * macrotask, so timers and I/O run) once the current slice has run `sliceMs`; an `await` of a
 * promise that is already settled (a synchronous store read) only queues a microtask, which lets
 * nothing else run. The budget is the turn's, shared with every other background slicer (SliceClock).
 */
import { SliceClock } from '../graph/api.ts';

/** Main-thread work of a background cycle between two yields (ms). */
export const SLICE_MS = 5;

/** A function to await between steps: it yields once `sliceMs` have passed since the last yield. */
export function slicer(sliceMs = SLICE_MS): () => Promise<void> {
  const clock = new SliceClock(sliceMs);
  return async () => {
    if (clock.spent()) await clock.yield();
  };
}
