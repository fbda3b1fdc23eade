/**
 * How the files on disk differ from what the store recorded, found without any file event: the
 * engine's walk (the ingest's rules) against the store's rows (size and mtime), compared in slices.
 * The graph watcher's reconciliation (watch-reconcile.ts) and the daemon's poll both read it.
 */
import { slicePace } from './steps.ts';
import type { FileRow } from './store-files.ts';
import type { WalkEntry } from './walk.ts';

/** A file modified this close before `since` may have been mid-write then: it counts as new. */
const RACY_MS = 2000;

export interface StoreDrift {
  /** Files the walk selected, and rows the store holds. */
  walked: number;
  stored: number;
  /** Files whose size or mtime differ from their row. */
  changed: string[];
  /** Files without a row, modified since `since` (less a margin): new. */
  added: string[];
  /** Files without a row that were there before `since`: ones the ingest leaves out (generated, minified, binary, …). */
  leftOut: string[];
  /** Rows whose file the walk no longer selects (deleted, or excluded now). */
  gone: string[];
}

/**
 * Compares the walk with the rows, yielding every `sliceMs`; with `within`, only the files and rows
 * whose path it accepts (a folder's drift: `walked` and `stored` count those).
 */
export async function storeDrift(walked: readonly WalkEntry[], rows: ReadonlyMap<string, FileRow>, since: number, sliceMs: number, within?: (path: string) => boolean): Promise<StoreDrift> {
  const pace = slicePace(sliceMs);
  const drift: StoreDrift = { walked: 0, stored: 0, changed: [], added: [], leftOut: [], gone: [] };
  const onDisk = new Set<string>();
  for (let i = 0; i < walked.length; i++) {
    const f = walked[i];
    if ((i & 255) === 255) await pace();
    if (within && !within(f.path)) continue;
    drift.walked++;
    onDisk.add(f.path);
    const row = rows.get(f.path);
    if (!row) (f.mtimeMs >= since - RACY_MS ? drift.added : drift.leftOut).push(f.path);
    else if (row.size !== f.size || row.mtimeMs !== f.mtimeMs) drift.changed.push(f.path);
  }
  let k = 0;
  for (const path of rows.keys()) {
    if ((++k & 1023) === 0) await pace();
    if (within && !within(path)) continue;
    drift.stored++;
    if (!onDisk.has(path)) drift.gone.push(path);
  }
  return drift;
}
