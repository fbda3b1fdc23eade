/** Searches over sorted lists of strings (vocabularies, path lists), by code unit order. */

/** The first index of `sorted` whose entry is not below `value` (its length when none). */
export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
