/**
 * The watcher's reconciliation: the native watcher can drop an event under load (@parcel/watcher
 * 2.6.0 delivered 199 events for 200 appended files in some runs of the daemon bench at 10,000
 * files; upstream parcel-bundler/watcher#183), and a file whose event is lost would stay stale
 * until its next edit. So once the watcher has seen activity and the tree has been quiet a while,
 * the workspace is walked (the ingest's own rules, in background slices) and compared with the
 * store's rows (size and mtime); what differs is marked dirty as if its event had come, and the
 * next query's freshness check re-ingests it by path. It runs only after watch activity (an idle
 * tree costs nothing) and at most once per `gapMs`.
 */
import type { WalkEntry } from './walk.ts';
import type { FileRow } from './store-files.ts';
import { slicePace } from './steps.ts';

/** A file modified this close before the previous run started may have been mid-write then. */
const RACY_MS = 2000;

export interface ReconcileDeps {
  /** The files an ingest would select now (asynchronous, in slices). */
  walk: () => Promise<WalkEntry[]>;
  /** The store's file rows (read in slices). */
  rows: () => Promise<ReadonlyMap<string, FileRow>>;
  /** Marks a workspace-relative file dirty (changed, added or deleted). */
  mark: (rel: string) => void;
  /** Whether events are still being handled or paths wait (the reconciliation then waits for the next quiet). */
  busy: () => boolean;
  sliceMs: number;
}

export interface ReconcileTiming {
  /** Quiet time after the watcher's last activity before a reconciliation (default 5 s). */
  quietMs?: number;
  /** Least time between two reconciliations (default 30 s). */
  gapMs?: number;
}

export class WatchReconciler {
  private timer: NodeJS.Timeout | null = null;
  private lastRunAt = -Infinity;
  /**
   * When the previous run started (at first: when watching started, the reconciler being made
   * then): a file without a row older than that was there then, and the ingest skipped it
   * (generated, minified, binary, …).
   */
  private previousRunAt = Date.now();
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Reconciliations run and files they found changed that no event had reported. */
  readonly stats = { runs: 0, found: 0 };
  /** Why the last reconciliation failed (a walk or a store read), if it did. */
  lastError: string | null = null;
  private readonly quietMs: number;
  private readonly gapMs: number;

  constructor(
    private readonly deps: ReconcileDeps,
    timing: ReconcileTiming = {},
  ) {
    this.quietMs = timing.quietMs ?? 5000;
    this.gapMs = timing.gapMs ?? 30_000;
  }

  /** The watcher saw activity (its events settled): a reconciliation is due once the tree stays quiet. */
  arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const at = Math.max(Date.now() + this.quietMs, this.lastRunAt + this.gapMs);
    this.timer = setTimeout(() => {
      this.timer = null;
      // Paths still wait for a query to take them in: try again after another quiet period.
      if (this.deps.busy() || this.running) return this.arm();
      this.running = this.run()
        .then(() => undefined)
        .catch((error: Error) => void (this.lastError = error.message))
        .finally(() => (this.running = null));
    }, at - Date.now());
    this.timer.unref();
  }

  /** Cancels a pending reconciliation and waits for one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Walks, compares with the store and marks what differs; the number of files marked. */
  async run(): Promise<number> {
    if (this.lastRunAt > this.previousRunAt) this.previousRunAt = this.lastRunAt;
    this.lastRunAt = Date.now();
    this.stats.runs++;
    const walked = await this.deps.walk();
    if (this.stopped) return 0;
    const rows = await this.deps.rows();
    // Nothing ingested yet: nothing to reconcile (every file would differ).
    if (rows.size === 0) return 0;
    const pace = slicePace(this.deps.sliceMs);
    const onDisk = new Set<string>();
    const changed: string[] = [];
    for (let i = 0; i < walked.length; i++) {
      const f = walked[i];
      onDisk.add(f.path);
      const row = rows.get(f.path);
      // No row: new since the previous run (else an ingest skipped it: generated, minified, binary; not an event lost).
      if (row ? row.size !== f.size || row.mtimeMs !== f.mtimeMs : f.mtimeMs >= this.previousRunAt - RACY_MS) changed.push(f.path);
      if ((i & 255) === 255) await pace();
    }
    let k = 0;
    for (const path of rows.keys()) {
      if (!onDisk.has(path)) changed.push(path);
      if ((++k & 1023) === 0) await pace();
    }
    if (this.stopped) return 0;
    for (const p of changed) this.deps.mark(p);
    this.stats.found += changed.length;
    return changed.length;
  }
}
