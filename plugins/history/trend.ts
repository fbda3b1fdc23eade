/** The least-squares trend of per-bucket counts (tremor's measure), shared by tremor and heuristics_surface. */

export const BUCKETS = 6;

/** What a row of bucket counts says: trend (slope / mean), acceleration (last third / first third) and confidence. */
export interface Trend {
  observations: number;
  trend: number;
  acceleration: number | null;
  confidence: number;
  /** More observations in the last third than in the first: the rise shows in the counts, not only in the line. */
  rising: boolean;
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
  return { observations: n, trend: sxy / sxx / mean, acceleration: first ? last / first : null, confidence: r2 * Math.min(1, n / 10), rising: last > first };
}

/** Bucket index of `time` in a window [start, start + span) cut into BUCKETS. */
export function bucketOf(time: number, start: number, span: number): number {
  return Math.max(0, Math.min(BUCKETS - 1, Math.floor(((time - start) / span) * BUCKETS)));
}

/** A file's own window: from its first commit when that falls inside [start, end], else the whole window. */
export interface LifeWindow {
  start: number;
  span: number;
  /** True when the file was created inside the window. */
  young: boolean;
}

/**
 * The window a file's trend is read over: [start, end], or for a file created inside it (`birth`, its
 * first commit, renames followed) [birth, end], cut into BUCKETS of its own. Empty buckets before a
 * file existed are no change rate: counted, every young file would rise. Null when the file lived
 * less than half the window, too little to show a trend.
 */
export function lifeWindow(birth: number | undefined, start: number, end: number): LifeWindow | null {
  if (birth === undefined || birth <= start) return { start, span: Math.max(1, end - start), young: false };
  if (end - birth < (end - start) / 2) return null;
  return { start: birth, span: Math.max(1, end - birth), young: true };
}

/** Per-bucket counts of `times` over a window (times before it are not counted). */
export function bucketRow(times: readonly number[], w: LifeWindow): number[] {
  const row = new Array(BUCKETS).fill(0);
  for (const t of times) if (t >= w.start) row[bucketOf(t, w.start, w.span)]++;
  return row;
}
