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
 * The percent follows the live heap: what a bound costs is marks, and what it saves is memory, so a
 * small heap keeps 25 % (a few MB of garbage) while a big one gets HEADROOM_MB of garbage at most,
 * down to 10 % (on the python3 prefix, ~300 MB live: 25 % let the build's heap reach ~420 MB and the
 * process ~645 MB; 10 %: ~375 and ~600 MB, for no measured CPU). After each full GC of the main
 * isolate (the live size is what it left) the percent is recomputed.
 *
 * The flag is process-wide: holders are counted, and the default (0: V8's own choice) comes back
 * when the last one releases it.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** Growth over the live heap allowed during a bounded build (percent): the most, for a small heap. */
export const BUILD_HEAP_GROWING_PERCENT = 25;
/** The least growth a big heap is held to (percent): below this the marks cost more than the memory saved. */
export const MIN_HEAP_GROWING_PERCENT = 10;
/** Garbage allowed past the live heap (MB) where that is between the two percents. */
export const HEAP_HEADROOM_MB = 32;

/** The growing percent for a live heap of `liveBytes`: HEAP_HEADROOM_MB of it, within the two bounds. */
export function growingPercentFor(liveBytes: number): number {
  const percent = Math.round((100 * HEAP_HEADROOM_MB * 1048576) / Math.max(1, liveBytes));
  return Math.min(BUILD_HEAP_GROWING_PERCENT, Math.max(MIN_HEAP_GROWING_PERCENT, percent));
}

let holders = 0;
/** The percent set now (0: none); a fixed one from M1ND_HEAP_GROWTH, or one that follows the live heap. */
let current = 0;
let gcWatch: PerformanceObserver | null = null;

function setPercent(percent: number): void {
  if (percent === current) return;
  current = percent;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** After a full GC the used heap is (nearly) the live heap: the percent follows it. */
function followLiveHeap(): void {
  setPercent(growingPercentFor(getHeapStatistics().used_heap_size));
  gcWatch = new PerformanceObserver((list) => {
    if (holders === 0) return;
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      setPercent(growingPercentFor(getHeapStatistics().used_heap_size));
      return;
    }
  });
  gcWatch.observe({ entryTypes: ['gc'] });
}

/**
 * Bounds the heap's growth until the returned function is called (idempotent). `M1ND_HEAP_GROWTH=0`
 * turns the bound off; another number fixes the percent; unset, it follows the live heap.
 */
export function boundHeapGrowth(env: NodeJS.ProcessEnv = process.env): () => void {
  const setting = env.M1ND_HEAP_GROWTH;
  const fixed = setting === undefined || setting === '' ? null : Number(setting);
  if (fixed !== null && (!Number.isInteger(fixed) || fixed <= 0)) return () => {};
  if (holders++ === 0) {
    if (fixed !== null) setPercent(fixed);
    else followLiveHeap();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders > 0) return;
    gcWatch?.disconnect();
    gcWatch = null;
    setPercent(0);
  };
}

/** Number of current holders of the bound (for tests). */
export function heapGrowthHolders(): number {
  return holders;
}

/** The growing percent the bound set last (0: none held), for tests. */
export function heapGrowingPercent(): number {
  return current;
}
