/**
 * A bound on how far V8 lets the heap grow past its live size while a full build runs.
 *
 * A full ingest of a big workspace allocates far more than it keeps: each file's stored extraction
 * is parsed back, linked and dropped, and the parse's transient objects outlive a scavenge or two,
 * so they are promoted and die in the old generation. V8 schedules the next full GC when the old
 * generation reaches its live size times a growing factor that it picks between 1.1 and 4 from the
 * mutator/GC speed ratio; on the python3 prefix (~400 MB live) it picked ~2.5, and the heap reached
 * 1,023 MB before the next mark. `--heap-growing-percent` fixes that factor (1 + percent/100); it
 * is read each time V8 recomputes its limits, so it can be set while the process runs. It is a soft
 * limit only: a heap whose live size grows still grows (no OOM risk), it is just marked more often.
 *
 * The flag is process-wide: holders are counted, and the default (0: V8's own choice) comes back
 * when the last one releases it.
 */
import { setFlagsFromString } from 'node:v8';

/** Growth over the live heap allowed during a bounded build (percent). */
export const BUILD_HEAP_GROWING_PERCENT = 25;

let holders = 0;

/**
 * Bounds the heap's growth until the returned function is called (idempotent). `M1ND_HEAP_GROWTH=0`
 * turns the bound off; another number sets the percent.
 */
export function boundHeapGrowth(env: NodeJS.ProcessEnv = process.env): () => void {
  const setting = env.M1ND_HEAP_GROWTH;
  const percent = setting === undefined || setting === '' ? BUILD_HEAP_GROWING_PERCENT : Number(setting);
  if (!Number.isInteger(percent) || percent <= 0) return () => {};
  if (holders++ === 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}

/** Number of current holders of the bound (for tests). */
export function heapGrowthHolders(): number {
  return holders;
}
