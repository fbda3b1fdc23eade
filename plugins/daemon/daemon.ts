/**
 * The monitoring daemon: a persisted background watcher over folders of the workspace. File events
 * queue paths (bounded); once they settle, a background cycle re-ingests them and raises alerts
 * (cycle.ts). `tick` runs one cycle now and also polls what the store recorded against the disk, so
 * it finds changes no event reported (while the server was down, or before the watcher caught up).
 * The state is persisted: a server that starts with an active daemon resumes it, polling first.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldNow } from 'node:timers/promises';
import { ErrorCodes, M1ndError, type Logger } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { MemoryService } from '../memory/api.ts';
import type { StateStore } from '../state/api.ts';
import type { AlertBook } from './alert-book.ts';
import { runCycle, docLinksTo, type CycleReport, type DocLink } from './cycle.ts';
import { DAEMON_NAMESPACE, emptyState, StateRowFile, type DaemonState } from './daemon-state.ts';
import { normaliseRel, TreeWatcher, type ChangeKind } from './tree-watcher.ts';

/** Paths queued at most (a burst beyond it is found again by the next poll). */
export const MAX_QUEUE = 10_000;
/** Files stat'ed at once by a poll. */
const STAT_BATCH = 64;

export interface DaemonDeps {
  graph: GraphService;
  memory: () => MemoryService | null;
  alerts: AlertBook;
  store: () => StateStore;
  /** Whether the store can be read without creating it. */
  readable: () => boolean;
  log: Logger;
}

export interface TickOptions {
  maxFiles: number;
  /** Compare the store's file records with the disk (finds changes no event reported). */
  poll: boolean;
  trigger: 'call' | 'watch' | 'resume';
  signal?: AbortSignal;
}

export interface TickReport extends CycleReport {
  trigger: TickOptions['trigger'];
  polled: number;
  /** Paths still waiting (queued events, or polled changes past max_files). */
  remaining: number;
  elapsed_ms: number;
}

export class Daemon {
  private watcher: TreeWatcher | null = null;
  private readonly row: StateRowFile<DaemonState>;
  private chain: Promise<unknown> = Promise.resolve();
  private draining = false;
  private closed = false;
  private readonly linksAtUnlink = new Map<string, DocLink[]>();
  lastReport: TickReport | null = null;
  lastError: string | null = null;

  constructor(private readonly deps: DaemonDeps) {
    this.row = new StateRowFile(deps.store, DAEMON_NAMESPACE, 'state', emptyState, deps.readable);
  }

  /** The persisted state. */
  state(): Promise<DaemonState> {
    return this.row.load();
  }

  /** False on a read-only server: nothing here may persist or ingest. */
  get writable(): boolean {
    return this.deps.graph.writable;
  }

  /** Whether the watcher runs in this server. */
  get watching(): boolean {
    return this.watcher !== null;
  }

  /** Queued paths. */
  get pending(): number {
    return this.watcher?.pending ?? 0;
  }

  get watchError(): string | null {
    return this.watcher?.lastError ?? null;
  }

  /** Checks watch paths through the workspace checker; '' is the whole workspace. */
  resolveWatchPaths(paths: readonly string[]): string[] {
    if (paths.length === 0) return [''];
    const out = new Set<string>();
    for (const p of paths) {
      const rel = normaliseRel(this.deps.graph.run(() => this.deps.graph.engine.resolvePath(p)).relative);
      out.add(rel);
    }
    return [...out].sort();
  }

  /** Starts (or re-targets) the daemon and persists it as active. */
  async start(agentId: string, watchPaths: string[], pollMs: number): Promise<DaemonState> {
    for (const p of watchPaths) {
      const info = await stat(join(this.deps.graph.engine.root, p)).catch(() => null);
      if (!info) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `watch path ${p} does not exist`, { hint: 'pass existing workspace folders in watch_paths, or [] for the whole workspace' });
    }
    const state = await this.state();
    const next: DaemonState = { ...state, active: true, watch_paths: watchPaths, poll_interval_ms: pollMs, started_by: agentId, started_at: Date.now(), stopped_at: null };
    await this.row.save(next);
    await this.startWatcher(next);
    return next;
  }

  /** Stops the watcher and persists the daemon as inactive (alerts stay). */
  async stop(): Promise<DaemonState> {
    await this.closeWatcher();
    const state = await this.state();
    const next: DaemonState = { ...state, active: false, stopped_at: Date.now() };
    if (state.active) await this.row.save(next);
    return next;
  }

  /** At server start: a daemon persisted as active starts watching again, after a catch-up poll. */
  async resume(): Promise<boolean> {
    const state = await this.state();
    if (!state.active || this.closed || !this.deps.graph.writable) return false;
    await this.startWatcher(state);
    await this.tick({ maxFiles: 1000, poll: true, trigger: 'resume' });
    this.deps.log.info(`daemon resumed over ${state.watch_paths.map((p) => p || '.').join(', ')}`);
    return true;
  }

  /** Runs one cycle now (cycles never overlap: a second caller waits for the first). */
  tick(options: TickOptions): Promise<TickReport> {
    const run = this.chain.then(() => this.cycle(options));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async cycle(options: TickOptions): Promise<TickReport> {
    const started = Date.now();
    const state = await this.state();
    const batch = new Map<string, ChangeKind>();
    for (const e of this.watcher?.take(options.maxFiles) ?? []) batch.set(e.path, e.kind);
    let polled = 0;
    let leftover = 0;
    if (options.poll) {
      const found = await this.poll(state.watch_paths, options.signal);
      polled = found.checked;
      for (const e of found.changed) {
        if (batch.has(e.path)) continue;
        if (batch.size < options.maxFiles) batch.set(e.path, e.kind);
        else leftover++;
      }
    }
    const entries = [...batch].map(([path, kind]) => ({ path, kind }));
    const report = await runCycle(
      { graph: this.deps.graph, memory: this.deps.memory(), alerts: this.deps.alerts, source: 'daemon', linksAtUnlink: this.linksAtUnlink },
      entries,
      { checkAllClaims: options.poll, signal: options.signal },
    );
    const overflowed = this.watcher?.overflowed ?? 0;
    if (this.watcher) this.watcher.overflowed = 0;
    if (overflowed > 0) {
      await this.deps.alerts.raise({ kind: 'queue_overflow', severity: 'warning', source: 'daemon', message: `${overflowed} file events were dropped (queue full at ${MAX_QUEUE}); daemon_tick polls them`, dedup: 'queue_overflow:daemon' });
    }
    const latest = await this.state();
    const c = latest.counters;
    await this.row.save({
      ...latest,
      last_tick_at: Date.now(),
      ticks: latest.ticks + 1,
      counters: {
        reingested: c.reingested + report.reingested.length,
        deleted: c.deleted + report.deleted.length,
        moved: c.moved + report.moved.length,
        alerts_raised: c.alerts_raised + report.alerts_raised.length,
        failed: c.failed + report.errors.length,
        overflowed: c.overflowed + overflowed,
      },
    });
    const out: TickReport = { trigger: options.trigger, polled, ...report, remaining: this.pending + leftover, elapsed_ms: Date.now() - started };
    this.lastReport = out;
    return out;
  }

  /** Stored file records under the watch paths whose file is gone or differs in size or mtime. */
  private async poll(watchPaths: readonly string[], signal?: AbortSignal): Promise<{ checked: number; changed: { path: string; kind: ChangeKind }[] }> {
    const { graph } = this.deps;
    if (!graph.engine.storeExists()) return { checked: 0, changed: [] };
    const covers = (p: string) => watchPaths.some((w) => w === '' || p === w || p.startsWith(`${w}/`));
    const rows = [...graph.engine.storedFiles().values()].filter((r) => covers(r.path));
    const changed: { path: string; kind: ChangeKind }[] = [];
    for (let i = 0; i < rows.length; i += STAT_BATCH) {
      if (signal?.aborted) break;
      const slice = rows.slice(i, i + STAT_BATCH);
      const stats = await Promise.all(slice.map((r) => stat(join(graph.engine.root, r.path)).catch(() => null)));
      slice.forEach((r, k) => {
        const st = stats[k];
        if (!st || !st.isFile()) changed.push({ path: r.path, kind: 'unlink' });
        else if (st.size !== r.size || Math.abs(st.mtimeMs - r.mtimeMs) > 1) changed.push({ path: r.path, kind: 'change' });
      });
    }
    return { checked: rows.length, changed };
  }

  private async startWatcher(state: DaemonState): Promise<void> {
    await this.closeWatcher();
    const { graph } = this.deps;
    const watcher = new TreeWatcher({
      root: graph.engine.root,
      paths: state.watch_paths,
      debounceMs: state.poll_interval_ms,
      maxQueue: MAX_QUEUE,
      onSettled: () => void this.drainInBackground(),
      // The graph may re-ingest before the next cycle: remember now which documents linked here.
      onUnlink: (rel) => {
        if (this.linksAtUnlink.size >= MAX_QUEUE) return;
        const links = docLinksTo(graph, rel);
        if (links.length) this.linksAtUnlink.set(rel, links);
      },
    });
    await watcher.start();
    this.watcher = watcher;
  }

  /** Background cycles until the queue is empty, one batch at a time. */
  private async drainInBackground(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      for (let rounds = 0; this.watcher && this.watcher.pending > 0 && rounds < 1000; rounds++) {
        await this.tick({ maxFiles: 64, poll: false, trigger: 'watch' });
        await yieldNow();
      }
    } catch (error) {
      this.lastError = (error as Error).message;
      this.deps.log.warn(`daemon: background cycle failed: ${this.lastError}`);
    } finally {
      this.draining = false;
    }
  }

  private async closeWatcher(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }

  /** Server shutdown: the watcher stops, the persisted state stays active so the next server resumes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeWatcher();
    await this.chain.catch(() => undefined);
  }
}
