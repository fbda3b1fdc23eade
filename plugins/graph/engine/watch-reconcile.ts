/**
 * The watcher's reconciliation: the native watcher can drop an event under load (@parcel/watcher
 * 2.6.0 delivered 199 events for 200 appended files in some runs of the daemon bench at 10,000
 * files; upstream parcel-bundler/watcher#183), and a file whose event is lost would stay stale
 * until its next edit. So once the watcher has seen activity and the tree has been quiet a while,
 * the workspace is walked (the ingest's own rules, in background slices) and compared with the
 * store's rows (size and mtime); what differs is marked dirty as if its event had come, and the
 * next query's freshness check re-ingests it by path. It runs only after watch activity (an idle
 * tree costs nothing) and at most once per `gapMs`, and once when watching starts over a stored
 * graph (`catchUp`): edits made while no server ran.
 */
import type { StoreDrift } from './store-drift.ts';

export interface ReconcileDeps {
  /** How the disk differs from the store now; files without a row older than `since` are left out (store-drift.ts). */
  drift: (since: number) => Promise<StoreDrift>;
  /** Marks a workspace-relative file dirty (changed, added or deleted). */
  mark: (rel: string) => void;
  /** Whether events are still being handled or paths wait (the reconciliation then waits for the next quiet). */
  busy: () => boolean;
}

export interface ReconcileTiming {
  /** Quiet time after the watcher's last activity before a reconciliation (default 5 s). */
  quietMs?: number;
  /** Least time between two reconciliations (default 30 s). */
  gapMs?: number;
}

export class WatchReconciler {
  private timer: NodeJS.Timeout | null = null;
  /** When the last run that spaces the next by `gapMs` started (a catch-up does not). */
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
      this.start();
    }, at - Date.now());
    this.timer.unref();
  }

  /**
   * Reconciles once, `delayMs` from now, against the store as of `since` (its last ingest): files
   * edited, added or deleted while no watcher ran (the server was down) are found and marked. A file
   * without a row modified after `since` counts as added.
   */
  catchUp(since: number, delayMs = 0): void {
    if (this.stopped) return;
    this.previousRunAt = Math.min(this.previousRunAt, since);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.running) return this.arm();
      this.start(false);
    }, delayMs);
    this.timer.unref();
  }

  /** `gapped`: whether this run delays the next activity-driven one by `gapMs` (a catch-up does not). */
  private start(gapped = true): void {
    this.running = this.run(gapped)
      .then(() => undefined)
      .catch((error: Error) => void (this.lastError = error.message))
      .finally(() => (this.running = null));
  }

  /** Cancels a pending reconciliation and waits for one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /**
   * Walks, compares with the store and marks what differs; the number of files marked. A run that
   * is not `gapped` (the catch-up at start) leaves the next activity-driven one due after `quietMs`
   * alone: events dropped in the first seconds of watching are found as soon as the tree is quiet.
   */
  async run(gapped = true): Promise<number> {
    const since = this.previousRunAt;
    this.previousRunAt = Date.now();
    if (gapped) this.lastRunAt = this.previousRunAt;
    this.stats.runs++;
    const drift = await this.deps.drift(since);
    // Nothing ingested yet: nothing to reconcile (every file would read as new).
    if (drift.stored === 0) return 0;
    const changed = [...drift.changed, ...drift.added, ...drift.gone];
    if (this.stopped) return 0;
    for (const p of changed) this.deps.mark(p);
    this.stats.found += changed.length;
    return changed.length;
  }
}
