/**
 * A stable sort as steps (a generator that yields every ~16,000 elements moved): runs of 4,096
 * sorted with the built-in sort, then merged pairwise. For the lists an index build sorts in one
 * piece otherwise (a stdlib graph's vocabulary, a posting list of every node): 30-100 ms each.
 */

/** Elements sorted by one built-in `sort` call. */
const RUN = 4096;
/** Elements moved by a merge between two yields. */
const MOVES_PER_STEP = 16_384;

/** Sorts `a` in place (same order as `a.sort(cmp)`, stable), yielding between steps; returns `a`. */
export function* sortSteps<T>(a: T[], cmp: (x: T, y: T) => number): Generator<void, T[]> {
  const n = a.length;
  if (n <= RUN) return a.sort(cmp);
  for (let lo = 0; lo < n; lo += RUN) {
    const part = a.slice(lo, lo + RUN).sort(cmp);
    for (let k = 0; k < part.length; k++) a[lo + k] = part[k];
    yield;
  }
  let src = a;
  let dst = new Array<T>(n);
  let moves = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      // Ties take the left run's element first: stable.
      while (i < mid && j < hi) {
        dst[k++] = cmp(src[j], src[i]) < 0 ? src[j++] : src[i++];
        if (++moves === MOVES_PER_STEP) {
          moves = 0;
          yield;
        }
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    [src, dst] = [dst, src];
    yield;
  }
  if (src !== a) for (let k = 0; k < n; k++) a[k] = src[k];
  return a;
}
