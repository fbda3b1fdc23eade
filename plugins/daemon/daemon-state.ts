/**
 * The daemon's persisted state: whether it runs, what it watches, and its counters. One row in the
 * machine-local state store (the daemon watches this checkout's files, so its state is not the
 * team's), read at server start to resume a daemon that was running when the server stopped.
 */
import type { StateStore } from '../state/api.ts';

export const DAEMON_NAMESPACE = 'daemon';

/** What one running (or stopped) daemon remembers. */
export interface DaemonState {
  active: boolean;
  /** Workspace-relative folders or files watched ('' is the whole workspace). */
  watch_paths: string[];
  /** Quiet time after the last file event before a background tick (ms). */
  poll_interval_ms: number;
  started_by: string | null;
  started_at: number | null;
  stopped_at: number | null;
  last_tick_at: number | null;
  /** When the last poll (a tick's, a resume's or a reconciliation's) started. */
  last_poll_at: number | null;
  ticks: number;
  counters: DaemonCounters;
}

export interface DaemonCounters {
  reingested: number;
  deleted: number;
  moved: number;
  alerts_raised: number;
  failed: number;
  overflowed: number;
  /** Changed files found by a poll (a tick, a resume, a reconciliation) that no watcher event had reported. */
  found_by_poll: number;
}

export function emptyState(): DaemonState {
  return {
    active: false,
    watch_paths: [''],
    poll_interval_ms: 500,
    started_by: null,
    started_at: null,
    stopped_at: null,
    last_tick_at: null,
    last_poll_at: null,
    ticks: 0,
    counters: { reingested: 0, deleted: 0, moved: 0, alerts_raised: 0, failed: 0, overflowed: 0, found_by_poll: 0 },
  };
}

/** A persisted row under one key of the local store (the daemon's state, the auto-ingest state). */
export class StateRowFile<T> {
  constructor(
    private readonly store: () => StateStore,
    private readonly namespace: string,
    private readonly key: string,
    private readonly empty: () => T,
    /** False while there is no store to read (a read-only server on a never-ingested workspace must not create one). */
    private readonly readable: () => boolean = () => true,
  ) {}

  async load(): Promise<T> {
    if (!this.readable()) return this.empty();
    const row = await this.store().get<T>(this.namespace, this.key);
    return row ? { ...this.empty(), ...row.value } : this.empty();
  }

  async save(value: T): Promise<void> {
    await this.store().put(this.namespace, this.key, value);
  }
}
