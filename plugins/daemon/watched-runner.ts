/**
 * What the daemon and the document auto-ingest share: a persisted state row, a tree watcher that
 * queues changed paths, cycles that never overlap (a second caller waits for the first), a
 * background drain once the watcher's events settle, and a reconciliation after it.
 *
 * The reconciliation: the native watcher can drop an event under load (@parcel/watcher delivered
 * 199 events for 200 appended files in some runs at 10,000 files; upstream parcel-bundler/watcher#183),
 * so once a drain has left the queue empty and the tree has stayed quiet a while, one background
 * cycle compares the watched files with what was ingested (size and mtime; no event needed) and
 * takes in what the events missed. It runs only after watch activity (an idle tree costs nothing),
 * at most once per RECONCILE_GAP_MS.
 */
import { setImmediate as yieldNow } from 'node:timers/promises';
import type { Logger } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateStore } from '../state/api.ts';
import { StateRowFile } from './daemon-state.ts';
import type { TreeWatcher } from './tree-watcher.ts';

export interface RunnerDeps {
  graph: GraphService;
  store: () => StateStore;
  /** Whether the store can be read without creating it. */
  readable: () => boolean;
  log: Logger;
}

/** Background cycles one drain runs at most before leaving the rest to the next settle. */
const MAX_DRAIN_ROUNDS = 1000;
/** Quiet time after a drain before the reconciliation: this many debounce periods, at least RECONCILE_MIN_QUIET_MS. */
const RECONCILE_QUIET_DEBOUNCES = 10;
const RECONCILE_MIN_QUIET_MS = 3000;
/** Reconciliations start at most this often (each walks the watched folders). */
const RECONCILE_GAP_MS = 30_000;
/** Reconciling cycles in a row at most (each handles a batch of what it found). */
const MAX_RECONCILE_ROUNDS = 20;

export abstract class WatchedRunner<S extends { active: boolean }> {
  protected watcher: TreeWatcher | null = null;
  protected readonly row: StateRowFile<S>;
  protected closed = false;
  private chain: Promise<unknown> = Promise.resolve();
  private draining = false;
  private reconcileTimer: NodeJS.Timeout | null = null;
  private lastReconcileAt = -Infinity;
  lastError: string | null = null;

  constructor(
    protected readonly base: RunnerDeps,
    namespace: string,
    empty: () => S,
    /** Names the runner in log lines. */
    private readonly label: string,
  ) {
    this.row = new StateRowFile(base.store, namespace, 'state', empty, base.readable);
  }

  /** The persisted state. */
  state(): Promise<S> {
    return this.row.load();
  }

  /** False on a read-only server: nothing here may persist or ingest. */
  get writable(): boolean {
    return this.base.graph.writable;
  }

  /** Whether the watcher runs in this server. */
  get watching(): boolean {
    return this.watcher !== null;
  }

  /** Queued paths. */
  get pending(): number {
    return this.watcher?.pending ?? 0;
  }

  /** Runs `work` once every cycle queued before it has finished. */
  protected serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Starts (or restarts) the watcher for a state. */
  protected abstract startWatcher(state: S): Promise<void>;

  /** Stops the watcher and persists the state as inactive, with `changes` (what was found stays). */
  protected async deactivate(changes: Partial<S> = {}): Promise<S> {
    await this.closeWatcher();
    const state = await this.state();
    const next: S = { ...state, active: false, ...changes };
    if (state.active) await this.row.save(next);
    return next;
  }

  /** At server start: the persisted state when it was active (its watcher started again), else null. */
  protected async rewatch(): Promise<S | null> {
    const state = await this.state();
    if (!state.active || this.closed || !this.base.graph.writable) return null;
    await this.startWatcher(state);
    return state;
  }

  /** One background cycle (called while the watcher has paths queued). */
  protected abstract backgroundCycle(): Promise<unknown>;

  /**
   * One background cycle that compares the watched files with what was ingested, without events;
   * resolves to whether it left changes for another round (more than one batch found).
   */
  protected abstract reconcileCycle(): Promise<boolean>;

  /**
   * Whether this server's watcher may keep working: the stored state is shared by every server of the
   * checkout, so a stop on another one shows here. When it says inactive, the watcher is closed (its
   * queue dropped) and nothing more is ingested. One row read.
   */
  async syncWatching(): Promise<boolean> {
    if (!this.watcher) return false;
    if ((await this.state()).active) return true;
    await this.closeWatcher();
    this.base.log.info(`${this.label}: stopped by another server of this checkout; watcher closed`);
    return false;
  }

  /** Background cycles until the queue is empty, one batch at a time; then a reconciliation is due. */
  protected async drainInBackground(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    this.cancelReconcile();
    try {
      for (let rounds = 0; this.watcher && this.watcher.pending > 0 && rounds < MAX_DRAIN_ROUNDS; rounds++) {
        // Every round: events that arrive during a drain are drained by it, after a stop elsewhere too.
        if (!(await this.syncWatching())) return;
        await this.backgroundCycle();
        await yieldNow();
      }
    } catch (error) {
      this.lastError = (error as Error).message;
      this.base.log.warn(`${this.label}: background cycle failed: ${this.lastError}`);
    } finally {
      this.draining = false;
    }
    this.scheduleReconcile();
  }

  /** Arms the reconciliation: after a quiet period, and not sooner than RECONCILE_GAP_MS after the last one. */
  private scheduleReconcile(): void {
    const watcher = this.watcher;
    if (!watcher || this.closed || !this.writable) return;
    this.cancelReconcile();
    const quiet = Math.max(RECONCILE_MIN_QUIET_MS, RECONCILE_QUIET_DEBOUNCES * watcher.debounceMs);
    const at = Math.max(Date.now() + quiet, this.lastReconcileAt + RECONCILE_GAP_MS);
    this.reconcileTimer = setTimeout(() => {
      this.reconcileTimer = null;
      void this.reconcileInBackground(watcher);
    }, at - Date.now());
    this.reconcileTimer.unref();
  }

  private cancelReconcile(): void {
    if (this.reconcileTimer) clearTimeout(this.reconcileTimer);
    this.reconcileTimer = null;
  }

  private async reconcileInBackground(watcher: TreeWatcher): Promise<void> {
    // Events arrived meanwhile: their drain re-arms the reconciliation once it is done.
    if (this.watcher !== watcher || this.closed || this.draining || watcher.pending > 0) return;
    this.lastReconcileAt = Date.now();
    try {
      if (!(await this.syncWatching())) return;
      for (let rounds = 0; rounds < MAX_RECONCILE_ROUNDS && this.watcher === watcher && !this.closed; rounds++) {
        if (!(await this.reconcileCycle())) break;
        await yieldNow();
      }
    } catch (error) {
      this.lastError = (error as Error).message;
      this.base.log.warn(`${this.label}: reconciliation failed: ${this.lastError}`);
    }
  }

  /** Grows with every close of the watcher: a watcher started before the last close is not installed. */
  private watchEpoch = 0;

  /** What `adopt` compares: take it after `closeWatcher` and before starting the new watcher. */
  protected get epoch(): number {
    return this.watchEpoch;
  }

  /**
   * Installs a started watcher, unless the watcher was closed meanwhile (a concurrent start or a
   * stop, or the server closing): then this one is closed, so no watcher is left running unreferenced
   * (three concurrent starts left two native watchers after the stop, and the process could not exit).
   */
  protected async adopt(watcher: TreeWatcher, epoch: number): Promise<boolean> {
    if (epoch !== this.watchEpoch || this.closed) {
      await watcher.close();
      return false;
    }
    this.watcher = watcher;
    return true;
  }

  protected async closeWatcher(): Promise<void> {
    this.watchEpoch++;
    this.cancelReconcile();
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }

  /** Server shutdown: the watcher stops and the running cycle finishes; the persisted state stays. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeWatcher();
    await this.chain.catch(() => undefined);
  }
}
