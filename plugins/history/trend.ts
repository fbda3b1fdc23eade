/** The least-squares trend of per-bucket counts (tremor's measure), shared by tremor and heuristics_surface. */

export const BUCKETS = 6;
/** Whole buckets a file must have lived through in the window for its trend to be read (half the window). */
export const MIN_LIFE_BUCKETS = 3;

/** What a row of bucket counts says: trend (slope / mean), acceleration (last third / first third) and confidence. */
export interface Trend {
  observations: number;
  trend: number;
  acceleration: number | null;
  confidence: number;
}

/** The trend of one row of BUCKETS counts (null when it is empty). */
export function trendOf(row: readonly number[]): Trend | null {
  const n = row.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const xMean = (row.length - 1) / 2;
  let sxx = 0;
  for (let x = 0; x < row.length; x++) sxx += (x - xMean) ** 2;
  const mean = n / row.length;
  let sxy = 0;
  let syy = 0;
  row.forEach((y, x) => {
    sxy += (x - xMean) * (y - mean);
    syy += (y - mean) ** 2;
  });
  const third = row.length / 3;
  const first = row.slice(0, third).reduce((a, b) => a + b, 0);
  const last = row.slice(row.length - third).reduce((a, b) => a + b, 0);
  const r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
  return { observations: n, trend: sxy / sxx / mean, acceleration: first ? last / first : null, confidence: r2 * Math.min(1, n / 10) };
}

/** Bucket index of `time` in a window [start, start + span) cut into BUCKETS. */
export function bucketOf(time: number, start: number, span: number): number {
  return Math.max(0, Math.min(BUCKETS - 1, Math.floor(((time - start) / span) * BUCKETS)));
}

/**
 * The buckets of `row` the file lived through whole: from the first bucket starting at or after its
 * first commit (`birth`, renames followed) when that falls inside the window, else all of them. The
 * empty buckets before a file existed are no change rate: counted, every young file would rise.
 */
export function livedBuckets(row: readonly number[], birth: number | undefined, start: number, span: number): readonly number[] {
  if (birth === undefined || birth <= start) return row;
  return row.slice(Math.min(BUCKETS, Math.ceil(((birth - start) / span) * BUCKETS)));
}
