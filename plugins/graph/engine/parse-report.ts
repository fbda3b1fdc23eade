/**
 * Files whose parse had errors, summarised for an agent's context: totals plus the worst few files
 * (most errors first) with the line of their first error, so a caller can look there or distrust them.
 */

/** One file with parse errors. */
export interface ParseErrorFile {
  path: string;
  /** ERROR and MISSING nodes the parser met. */
  errors: number;
  /** 1-based line of the first one (0 when an older extraction did not record it). */
  firstLine: number;
}

/** Totals over every file with parse errors, and the worst `limit` of them. */
export interface ParseErrorReport {
  files: number;
  total: number;
  worst: ParseErrorFile[];
  /** True when `worst` lists fewer files than `files` counts. */
  truncated: boolean;
}

/** Default length of `worst`: enough to act on, small enough for any answer. */
export const PARSE_ERROR_LIST_LIMIT = 10;

/** Sums `files` and keeps the `limit` with the most errors (ties by path). */
export function summarizeParseErrors(files: Iterable<ParseErrorFile>, limit = PARSE_ERROR_LIST_LIMIT): ParseErrorReport {
  const all = [...files].filter((f) => f.errors > 0);
  all.sort((a, b) => b.errors - a.errors || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const worst = all.slice(0, Math.max(0, limit));
  return { files: all.length, total: all.reduce((n, f) => n + f.errors, 0), worst, truncated: worst.length < all.length };
}
