/**
 * What the daemon and the document auto-ingest share: a persisted state row, a tree watcher that
 * queues changed paths, cycles that never overlap (a second caller waits for the first), and a
 * background drain once the watcher's events settle.
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

export abstract class WatchedRunner<S extends { active: boolean }> {
  protected watcher: TreeWatcher | null = null;
  protected readonly row: StateRowFile<S>;
  protected closed = false;
  private chain: Promise<unknown> = Promise.resolve();
  private draining = false;
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

  /** Background cycles until the queue is empty, one batch at a time. */
  protected async drainInBackground(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      for (let rounds = 0; this.watcher && this.watcher.pending > 0 && rounds < MAX_DRAIN_ROUNDS; rounds++) {
        await this.backgroundCycle();
        await yieldNow();
      }
    } catch (error) {
      this.lastError = (error as Error).message;
      this.base.log.warn(`${this.label}: background cycle failed: ${this.lastError}`);
    } finally {
      this.draining = false;
    }
  }

  protected async closeWatcher(): Promise<void> {
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
