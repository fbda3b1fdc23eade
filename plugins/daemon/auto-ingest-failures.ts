/**
 * Auto-ingest's failed documents: a document that failed to convert (or to enter the graph) is tried
 * again when it changes on disk (size or mtime), or, unchanged, after a backoff that doubles with each
 * failed attempt (a converter package installed since, a store that was busy) — never on every tick.
 * The `failed` counter counts documents: one that starts failing counts once, its retries do not.
 */

/** A failed document's first retry without a change, then doubling up to the last. */
export const RETRY_FIRST_MS = 10 * 60_000;
export const RETRY_MAX_MS = 24 * 3600_000;
/** Failed documents `auto_ingest_status` lists (with their errors); `manifest.by_result.failed` has them all. */
export const FAILED_SHOWN = 50;

/** What the retry decision reads of a manifest entry. */
interface Attempted {
  result: string;
  size: number;
  mtimeMs: number;
  at: number;
  /** Failed attempts in a row at this size and mtime (absent: 1). */
  attempts?: number;
}

/** When a failed document unchanged on disk is tried again. */
export function retryAt(entry: Attempted): number {
  const attempts = Math.max(1, entry.attempts ?? 1);
  return entry.at + Math.min(RETRY_FIRST_MS * 2 ** Math.min(attempts - 1, 20), RETRY_MAX_MS);
}

/** Whether the file on disk is still what the manifest entry recorded. */
export function sameOnDisk(entry: Attempted, info: { size: number; mtimeMs: number }): boolean {
  return entry.size === info.size && Math.abs(entry.mtimeMs - info.mtimeMs) <= 1;
}

/**
 * Sets `attempts` on this tick's failed results (one more than the previous failure of the same file
 * version, else 1) and answers how many documents started failing (their previous result was not a
 * failure): what the `failed` counter adds.
 */
export function countFailures<T extends Attempted>(results: readonly T[], previous: ReadonlyMap<string, Attempted | undefined>, pathOf: (r: T) => string): number {
  let started = 0;
  for (const r of results) {
    if (r.result !== 'failed') continue;
    const p = previous.get(pathOf(r));
    const again = p?.result === 'failed';
    r.attempts = again && sameOnDisk(p, r) ? Math.max(1, p.attempts ?? 1) + 1 : 1;
    if (!again) started++;
  }
  return started;
}
