/**
 * The monitoring daemon: a persisted background watcher over folders of the workspace. File events
 * queue paths (bounded); once they settle, a background cycle re-ingests them and raises alerts
 * (cycle.ts). `tick` runs one cycle now and also polls: it walks the watched folders and compares
 * them with the graph's stored files, so it finds what no event reported (files added, changed or
 * deleted while the server was down, before the watcher caught up, or whose event the native
 * watcher dropped — the reconciliation after a burst, watched-runner.ts, is such a poll).
 * The state is persisted: a server that starts with an active daemon resumes it, polling first.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes, M1ndError, type Logger } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { MemoryService } from '../memory/api.ts';
import type { StateStore } from '../state/api.ts';
import type { AlertBook } from './alert-book.ts';
import { AlertOutbox } from './alert-outbox.ts';
import { runCycle, docLinksTo, filesUnder, type CycleReport, type DocLink } from './cycle.ts';
import { DAEMON_NAMESPACE, emptyState, type DaemonState } from './daemon-state.ts';
import { normaliseRel, TreeWatcher, watchCovers, type ChangeKind } from './tree-watcher.ts';
import { SLICE_MS } from './slices.ts';
import { WatchedRunner } from './watched-runner.ts';
import { neverWatched } from './never-watched.ts';

/** Paths queued at most (a burst beyond it is found again by the next poll). */
export const MAX_QUEUE = 10_000;
/** Files one background cycle hands the engine: each by-path ingest stalls the loop once, so fewer, larger calls stall it less. */
const BACKGROUND_BATCH = 256;
/** Changed files one reconciling cycle takes (the rest are found again by the next round). */
const RECONCILE_BATCH = 1000;
/** While alert writes wait for the store: the first retry's delay, doubling up to the last. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

/** A path a poll found changed. `seenBefore`: no row, and modified before the previous poll: the ingest left it out then (counted as missed only if the ingest takes it in now). */
interface PolledChange {
  path: string;
  kind: ChangeKind;
  seenBefore?: boolean;
}

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
  trigger: 'call' | 'watch' | 'resume' | 'reconcile' | 'retry';
  /** Re-check every claim with evidence, not only those citing a touched file (default: `poll`). */
  checkAllClaims?: boolean;
  signal?: AbortSignal;
}

export interface TickReport extends CycleReport {
  trigger: TickOptions['trigger'];
  polled: number;
  /** Changes the poll found that no queued event had reported. */
  found_by_poll: number;
  /** Paths still waiting (queued events, or polled changes past max_files). */
  remaining: number;
  elapsed_ms: number;
}

export class Daemon extends WatchedRunner<DaemonState> {
  private readonly linksAtUnlink = new Map<string, DocLink[]>();
  /** Alert writes the store refused while it was away, written by the next cycle. */
  readonly outbox: AlertOutbox;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs = RETRY_FIRST_MS;
  lastReport: TickReport | null = null;

  constructor(private readonly deps: DaemonDeps) {
    super(deps, DAEMON_NAMESPACE, emptyState, 'daemon');
    this.outbox = new AlertOutbox(deps.alerts);
  }

  /** The persisted state (counters a row saved by an older version lacks read as 0). */
  override async state(): Promise<DaemonState> {
    const s = await super.state();
    return { ...s, counters: { ...emptyState().counters, ...s.counters } };
  }

  /** What daemon_start and daemon_status both report first. */
  summary(state: DaemonState): { active: boolean; watching: boolean; watch_paths: string[]; poll_interval_ms: number; started_by: string | null } {
    return { active: state.active, watching: this.watching, watch_paths: state.watch_paths.map((p) => p || '.'), poll_interval_ms: state.poll_interval_ms, started_by: state.started_by };
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
      // The watcher never looks there: answering `watching: true` for it would be a lie.
      if (await neverWatched(this.deps.graph.engine.root, p, info.isDirectory())) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `watch path ${p} is never watched: it is hidden, on the skip list (node_modules, vendor, dist, build, …) or ignored by .gitignore`, { hint: 'watch the folders whose files the graph ingests' });
      }
    }
    const state = await this.state();
    // Running already over the same paths at the same interval: nothing changes (its watcher, queue, who started it and when).
    if (state.active && this.watcher && state.poll_interval_ms === pollMs && state.watch_paths.join('\0') === watchPaths.join('\0')) return state;
    const next: DaemonState = { ...state, active: true, watch_paths: watchPaths, poll_interval_ms: pollMs, started_by: agentId, started_at: Date.now(), stopped_at: null };
    await this.row.save(next);
    await this.startWatcher(next);
    return next;
  }

  /** Stops the watcher and persists the daemon as inactive (alerts stay). */
  stop(): Promise<DaemonState> {
    return this.deactivate({ stopped_at: Date.now() });
  }

  /** At server start: a daemon persisted as active starts watching again, after a catch-up poll. */
  async resume(): Promise<boolean> {
    const state = await this.rewatch();
    if (!state) return false;
    await this.tick({ maxFiles: 1000, poll: true, trigger: 'resume' });
    this.deps.log.info(`daemon resumed over ${state.watch_paths.map((p) => p || '.').join(', ')}`);
    return true;
  }

  /** Runs one cycle now (cycles never overlap: a second caller waits for the first). */
  tick(options: TickOptions): Promise<TickReport> {
    // A cycle queued after the server began closing would run while the stores close under it.
    return this.serial(() => (this.closed ? Promise.reject(new Error('the server is closing')) : this.cycle(options)));
  }

  protected backgroundCycle(): Promise<TickReport> {
    return this.tick({ maxFiles: BACKGROUND_BATCH, poll: false, trigger: 'watch' });
  }

  protected async reconcileCycle(): Promise<boolean> {
    // Nothing ingested: there is nothing to reconcile with (every file would read as added).
    const { engine } = this.deps.graph;
    if (!engine.storeExists() || engine.graph.nodeCount === 0) return false;
    const report = await this.tick({ maxFiles: RECONCILE_BATCH, poll: true, checkAllClaims: false, trigger: 'reconcile' });
    if (report.found_by_poll > 0) this.deps.log.info(`daemon: ${report.found_by_poll} changed file(s) no watcher event reported, taken in by the reconciliation`);
    return report.remaining > 0 && report.found_by_poll > 0;
  }

  private async cycle(options: TickOptions): Promise<TickReport> {
    const started = Date.now();
    const state = await this.state();
    const batch = new Map<string, ChangeKind>();
    for (const e of this.watcher?.take(options.maxFiles) ?? []) batch.set(e.path, e.kind);
    let polled = 0;
    let leftover = 0;
    let foundByPoll = 0;
    let pollStartedAt: number | null = null;
    /** Files without a row whose mtime predates the previous poll (see `seenBefore`). */
    const unrowed = new Set<string>();
    if (options.poll) {
      const found = await this.poll(state, options.signal);
      polled = found.checked;
      pollStartedAt = found.startedAt;
      for (const e of found.changed) {
        if (batch.has(e.path)) continue;
        if (batch.size >= options.maxFiles) {
          leftover++;
          continue;
        }
        // An event that arrived during the poll: handled now, not counted as found by it.
        if (!this.watcher?.takePath(e.path)) {
          if (!e.seenBefore) foundByPoll++;
          else unrowed.add(e.path);
        }
        batch.set(e.path, e.kind);
      }
    }
    const entries = [...batch].map(([path, kind]) => ({ path, kind }));
    const report = await runCycle(
      { graph: this.deps.graph, memory: this.deps.memory(), alerts: this.outbox, source: 'daemon', linksAtUnlink: this.linksAtUnlink, covers: watchCovers(state.watch_paths) },
      entries,
      { checkAllClaims: options.checkAllClaims ?? options.poll, signal: options.signal },
    );
    // Files the engine's incremental walk took in that no event named: found without one (an event
    // still queued for one is handled now, so a later cycle does not count it again).
    for (const p of report.unreported) if (!this.watcher?.takePath(p)) foundByPoll++;
    // One of them the ingest took in was not left out before: it is new with an old mtime (renamed,
    // copied with its times, unpacked), and no event reported it.
    for (const p of report.reingested) if (unrowed.has(p)) foundByPoll++;
    const overflowed = this.watcher?.overflowed ?? 0;
    if (this.watcher) this.watcher.overflowed = 0;
    if (overflowed > 0) {
      await this.outbox.raise({ kind: 'queue_overflow', severity: 'warning', source: 'daemon', message: `${overflowed} file events were dropped (queue full at ${MAX_QUEUE}); daemon_tick polls them`, dedup: 'queue_overflow:daemon' });
    }
    // A poll that left nothing waiting has taken in whatever a full queue dropped.
    if (options.poll && overflowed === 0 && leftover === 0 && this.pending === 0 && (await this.outbox.resolve('queue_overflow:daemon', 'a poll took in the dropped events'))) report.alerts_resolved++;
    const latest = await this.state();
    const c = latest.counters;
    await this.row.save({
      ...latest,
      last_tick_at: Date.now(),
      last_poll_at: pollStartedAt ?? latest.last_poll_at,
      ticks: latest.ticks + 1,
      counters: {
        reingested: c.reingested + report.reingested.length,
        deleted: c.deleted + report.deleted.length,
        moved: c.moved + report.moved.length,
        alerts_raised: c.alerts_raised + report.alerts_raised.length,
        // Alert writes waiting for the store are retried, not failed (the tick's errors tell them).
        failed: c.failed + report.errors.length - (report.waiting > 0 ? 1 : 0),
        overflowed: c.overflowed + overflowed,
        found_by_poll: c.found_by_poll + foundByPoll,
      },
    });
    const out: TickReport = { trigger: options.trigger, polled, found_by_poll: foundByPoll, ...report, remaining: this.pending + leftover, elapsed_ms: Date.now() - started };
    this.lastReport = out;
    // A cycle that went through clears the last error; one that left alert writes waiting says so, and retries.
    this.lastError = report.errors.length ? report.errors[report.errors.length - 1] : null;
    this.scheduleRetry();
    return out;
  }

  /** While alert writes wait for the store, a background cycle retries them (backing off), even on a quiet tree. */
  private scheduleRetry(): void {
    if (this.outbox.size === 0) {
      this.retryMs = RETRY_FIRST_MS;
      return;
    }
    if (this.retryTimer || this.closed || !this.writable) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.tick({ maxFiles: BACKGROUND_BATCH, poll: false, trigger: 'retry' }).catch((error: Error) => {
        this.lastError = error.message;
        this.scheduleRetry();
      });
    }, delay);
    this.retryTimer.unref();
  }

  override async close(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await super.close();
  }

  /**
   * What differs on disk under the watch paths from what was ingested, found without any event
   * (the engine's `storeDrift`: its walk — skip list, .gitignore rules, size limit, languages — against
   * the store's rows, size and mtime, in slices): files that differ from their row changed, files
   * without a row that are newer than the previous poll were added, the rows whose file the walk no
   * longer selects were deleted (or are now excluded). A file touched without a change costs one
   * hash in the re-ingest, which then records its new mtime.
   */
  private async poll(state: DaemonState, signal?: AbortSignal): Promise<{ checked: number; changed: PolledChange[]; startedAt: number }> {
    const startedAt = Date.now();
    // Only the watch paths' files are compared (and counted in `checked`).
    const drift = await this.deps.graph.engine.storeDrift(SLICE_MS, state.last_poll_at ?? state.started_at ?? -Infinity, watchCovers(state.watch_paths));
    if (signal?.aborted) return { checked: 0, changed: [], startedAt };
    const changed: PolledChange[] = [];
    for (const path of [...drift.changed, ...drift.added]) changed.push({ path, kind: 'change' });
    // There at the previous poll without a row: the ingest leaves it out; handed to it again, not counted as missed.
    for (const path of drift.leftOut) changed.push({ path, kind: 'change', seenBefore: true });
    for (const path of drift.gone) changed.push({ path, kind: 'unlink' });
    return { checked: drift.walked + drift.gone.length, changed, startedAt };
  }

  protected async startWatcher(state: DaemonState): Promise<void> {
    // Re-targeted: what the old watcher queued and no cycle handled yet is handed to the new one.
    const carried = this.watcher?.take(MAX_QUEUE) ?? [];
    await this.closeWatcher();
    const epoch = this.epoch;
    const { graph } = this.deps;
    const watcher = new TreeWatcher({
      root: graph.engine.root,
      paths: state.watch_paths,
      debounceMs: state.poll_interval_ms,
      maxQueue: MAX_QUEUE,
      onSettled: () => void this.drainInBackground(),
      // The graph may drop the file (another query's freshness check) before the next cycle:
      // remember now that it knew the file, and which documents linked to it.
      onUnlink: (rel) => {
        // A folder stands for the graph's files under it.
        for (const p of graph.engine.graph.get(`file:${rel}`) ? [rel] : filesUnder(graph, rel)) {
          if (this.linksAtUnlink.size >= MAX_QUEUE) return;
          this.linksAtUnlink.set(p, docLinksTo(graph, p));
        }
      },
    });
    await watcher.start();
    if (!(await this.adopt(watcher, epoch))) return;
    for (const e of carried) if (watcher.covers(e.path)) watcher.push(e.path, e.kind);
  }
}
