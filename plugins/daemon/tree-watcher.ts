/**
 * A native watcher over some folders of the workspace that only queues what changed: a bounded
 * map path → last event, debounced into one `onSettled` call once edits stop. Hidden entries, the
 * graph's skip list (node_modules, vendor, dist, …) and .gitignore'd paths are never queued, so an
 * idle tree costs no CPU beyond the OS's own change notification (no polling).
 *
 * @parcel/watcher (inotify, FSEvents, ReadDirectoryChangesW) rather than chokidar: it collects
 * events on a native thread and hands them over in batches without a stat or a directory listing
 * per event. A burst of 200 edits held the event loop ~150-250 ms under chokidar (its per-event
 * lstat and directory re-reads), under 15 ms here (docs/benchmarks.md, "Daemon, round 3").
 * A folder created or moved in arrives as one event for the folder: its files are listed
 * asynchronously and queued; a folder deleted or moved away is queued as the folder (the daemon's
 * cycle expands it to the graph's files under it).
 * A watched folder itself deleted (or moved away) leaves a native watch that hears nothing more:
 * it is dropped, and a plain non-recursive `fs.watch` on its nearest existing ancestor waits for it
 * to come back (no polling), when it is watched again and its files are queued.
 */
import { watch as watchFolder, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, posix, relative, sep } from 'node:path';
import type * as ParcelWatcher from '@parcel/watcher';
import fg from 'fast-glob';
import { eachSliced, GitignoreRules, nativeWatcher, PRUNED_SEGMENTS, skipped, watcherIgnorePatterns } from '../graph/api.ts';

/** What happened to a path since the last drain. */
export type ChangeKind = 'change' | 'unlink';

export interface TreeWatcherOptions {
  /** The workspace (absolute). */
  root: string;
  /** Workspace-relative folders or files to watch ('' or '.' is the whole workspace). */
  paths: readonly string[];
  /** Files of interest (e.g. by extension); default every file. */
  accept?: (rel: string) => boolean;
  /** Quiet time after the last event before `onSettled` (ms). */
  debounceMs: number;
  /** Paths queued at most; past it the queue overflows and a rescan is needed. */
  maxQueue: number;
  onSettled?: () => void;
  /** A path was removed: lets the owner snapshot what the graph knows of it before anyone re-ingests. */
  onUnlink?: (rel: string) => void;
}

/** Watches folders of the workspace and queues changed paths. */
export class TreeWatcher {
  /** The native watches, by absolute folder. */
  private readonly subscriptions = new Map<string, ParcelWatcher.AsyncSubscription>();
  /** Watched folders that were deleted, by absolute path: the watch on an ancestor awaiting each. */
  private readonly lost = new Map<string, { waiter: FSWatcher | null }>();
  private readonly queue = new Map<string, ChangeKind>();
  private timer: NodeJS.Timeout | null = null;
  private handling: Promise<void> = Promise.resolve();
  private readonly gitignore: GitignoreRules;
  private closed = false;
  /** Paths newly queued (not already waiting) since the last `takeAdded`: by events and scans alike. */
  private added = 0;
  /** Events dropped because the queue was full since the last drain (a rescan finds them). */
  overflowed = 0;
  /** The last error the watcher reported. */
  lastError: string | null = null;

  constructor(private readonly options: TreeWatcherOptions) {
    this.gitignore = new GitignoreRules(options.root);
  }

  /** Starts watching; resolves once the native watches are in place. */
  async start(): Promise<void> {
    if (this.subscriptions.size > 0 || this.lost.size > 0) return;
    this.closed = false;
    const { root } = this.options;
    // The native watcher takes folders: a watched file is watched through its folder (events filtered by `covers`).
    const dirs = new Set<string>();
    for (const p of this.options.paths.length === 0 ? [''] : this.options.paths) {
      const abs = p === '' || p === '.' ? root : join(root, p);
      const st = await stat(abs).catch(() => null);
      dirs.add(st && !st.isDirectory() ? dirname(abs) : abs);
    }
    // A folder nested in another watched one is covered by it.
    const roots = [...dirs].filter((d) => ![...dirs].some((o) => o !== d && d.startsWith(o + sep)));
    try {
      for (const dir of roots) {
        // A watched folder missing now (deleted while the server was down) is watched once it is back.
        if (!(await stat(dir).catch(() => null))) this.rootLost(relative(root, dir).split(sep).join('/'));
        else this.subscriptions.set(dir, await this.subscribe(dir));
      }
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private subscribe(dir: string): Promise<ParcelWatcher.AsyncSubscription> {
    const prefix = relative(this.options.root, dir).split(sep).join('/');
    return nativeWatcher().subscribe(dir, (error, events) => this.onEvents(prefix, error, events), { ignore: watcherIgnorePatterns() });
  }

  /** A watched folder was deleted: its dead native watch goes, and a watch on its nearest ancestor awaits it. */
  private rootLost(prefix: string): void {
    const dir = join(this.options.root, prefix);
    if (this.closed || this.lost.has(dir)) return;
    const sub = this.subscriptions.get(dir);
    this.subscriptions.delete(dir);
    this.lost.set(dir, { waiter: null });
    this.lastError = `watched folder ${prefix} was deleted; it is watched again once it exists`;
    void sub?.unsubscribe().catch(() => undefined);
    void this.awaitRoot(dir);
  }

  /** Waits (a non-recursive watch on the nearest existing ancestor) until a lost folder exists again, then watches it. */
  private async awaitRoot(dir: string): Promise<void> {
    const entry = this.lost.get(dir);
    if (!entry || this.closed) return;
    entry.waiter?.close();
    entry.waiter = null;
    if ((await stat(dir).catch(() => null))?.isDirectory()) return this.rootBack(dir);
    let ancestor = dirname(dir);
    while (ancestor.length > this.options.root.length && !(await stat(ancestor).catch(() => null))?.isDirectory()) ancestor = dirname(ancestor);
    if (this.closed || this.lost.get(dir) !== entry) return;
    try {
      // Any change in the ancestor (a child created) looks again: the folder, or a nearer ancestor, may be back.
      entry.waiter = watchFolder(ancestor, { persistent: false }, () => void this.awaitRoot(dir));
      entry.waiter.on('error', () => void this.awaitRoot(dir));
    } catch {
      return; // the ancestor went too (the workspace itself): nothing left to watch from
    }
    // Created between the check and the watch: no event would come for it.
    if ((await stat(dir).catch(() => null))?.isDirectory()) void this.awaitRoot(dir);
  }

  private async rootBack(dir: string): Promise<void> {
    const entry = this.lost.get(dir);
    if (!entry || this.closed) return;
    this.lost.delete(dir);
    try {
      const sub = await this.subscribe(dir);
      if (this.closed) return void sub.unsubscribe().catch(() => undefined);
      this.subscriptions.set(dir, sub);
    } catch (error) {
      this.lastError = (error as Error).message;
      return;
    }
    if (this.lost.size === 0) this.lastError = null;
    // Its files arrived before the watch: no event came for them.
    await this.queueFolder(relative(this.options.root, dir).split(sep).join('/'));
  }

  private onEvents(prefix: string, error: Error | null, events: ParcelWatcher.Event[]): void {
    if (this.closed) return;
    if (error) this.lastError = error.message;
    // Batches in order, each in slices: a checkout's thousands of events never hold the loop at once.
    this.handling = this.handling
      .then(() => this.gitignore.prefetch(events.map((e) => e.path)))
      .then(() => eachSliced(events, (e) => this.onEvent(prefix, e)))
      .catch((err: unknown) => {
        this.lastError = err instanceof Error ? err.message : String(err);
      });
  }

  private onEvent(prefix: string, e: ParcelWatcher.Event): void {
    if (this.closed) return;
    const { root } = this.options;
    const rel = relative(root, e.path).split(sep).join('/');
    if (!rel || rel.startsWith('..') || (prefix && rel !== prefix && !rel.startsWith(`${prefix}/`))) return;
    if (posix.basename(rel) === '.gitignore') {
      this.gitignore.refresh();
      return;
    }
    // The watched folder itself went (also the folder of a watched file, which `covers` leaves out).
    if (e.type === 'delete' && rel === prefix) this.rootLost(prefix);
    if (!this.covers(rel) || this.excluded(rel)) return;
    if (e.type === 'delete') {
      this.options.onUnlink?.(rel);
      this.accepted(rel, 'unlink');
    } else if (e.type === 'create') {
      // A folder created or moved in: its files are queued once listed (no event comes for them).
      void stat(e.path)
        .then((st) => (st.isDirectory() ? this.queueFolder(rel) : this.accepted(rel, 'change')))
        .catch(() => undefined);
    } else {
      this.accepted(rel, 'change');
    }
  }

  private accepted(rel: string, kind: ChangeKind): void {
    if (kind === 'change' && this.options.accept && !this.options.accept(rel)) return;
    if (kind === 'unlink' && this.options.accept && !this.options.accept(rel) && posix.extname(rel) !== '') return;
    this.push(rel, kind);
  }

  /** Lists a folder's files (asynchronously, the same exclusions) and queues them. */
  private async queueFolder(rel: string): Promise<void> {
    const files = await fg('**', { cwd: join(this.options.root, rel), onlyFiles: true, dot: false, followSymbolicLinks: false, ignore: [...PRUNED_SEGMENTS].map((s) => `**/${s}/**`) }).catch(() => [] as string[]);
    for (const f of files) {
      const path = `${rel}/${f}`;
      if (!this.closed && this.covers(path) && !this.excluded(path)) this.accepted(path, 'change');
    }
  }

  /** Queues a path (also used by scans); false when the queue is full. `counted: false` puts back a path taken and not handled. */
  push(rel: string, kind: ChangeKind, counted = true): boolean {
    const waiting = this.queue.has(rel);
    if (!waiting && this.queue.size >= this.options.maxQueue) {
      this.overflowed++;
      return false;
    }
    if (!waiting && counted) this.added++;
    this.queue.delete(rel); // re-insert: the queue stays in event order
    this.queue.set(rel, kind);
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (!this.options.onSettled) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.options.onSettled?.();
    }, this.options.debounceMs);
    this.timer.unref();
  }

  /** Quiet time after the last event before `onSettled` (ms). */
  get debounceMs(): number {
    return this.options.debounceMs;
  }

  /** The paths newly queued since the last `takeAdded` (not reset). */
  get addedSinceTaken(): number {
    return this.added;
  }

  /** The paths newly queued since the last call, and resets the count. */
  takeAdded(): number {
    const n = this.added;
    this.added = 0;
    return n;
  }

  /** Takes one path out of the queue (a poll handles it now); whether it was queued. */
  takePath(rel: string): boolean {
    return this.queue.delete(rel);
  }

  /** Paths waiting. */
  get pending(): number {
    return this.queue.size;
  }

  /** Takes up to `max` queued paths, oldest first. */
  take(max: number): { path: string; kind: ChangeKind }[] {
    const out: { path: string; kind: ChangeKind }[] = [];
    for (const [path, kind] of this.queue) {
      if (out.length >= max) break;
      out.push({ path, kind });
    }
    for (const e of out) this.queue.delete(e.path);
    return out;
  }

  /** Whether a path is inside the watched folders. */
  covers(rel: string): boolean {
    const paths = this.options.paths;
    return paths.length === 0 || paths.some((p) => p === '' || p === '.' || rel === p || rel.startsWith(p.endsWith('/') ? p : `${p}/`));
  }

  /** Whether git's rules or the skip list leave a path out. */
  excluded(rel: string): boolean {
    return skipped(rel) || this.gitignore.ignores(rel, false);
  }

  /** Re-reads the .gitignore files at the next check (before a scan). */
  refreshRules(): void {
    this.gitignore.refresh();
  }

  /** Stops watching (the queue is dropped: a later start rescans). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const { waiter } of this.lost.values()) waiter?.close();
    this.lost.clear();
    const subs = [...this.subscriptions.values()];
    this.subscriptions.clear();
    await Promise.all(subs.map((s) => s.unsubscribe().catch(() => undefined)));
  }
}

/** Whether a workspace path is under one of the (normalised) watch paths ('' is the whole workspace). */
export function watchCovers(watchPaths: readonly string[]): (path: string) => boolean {
  return (p) => watchPaths.some((w) => w === '' || p === w || p.startsWith(`${w}/`));
}

/** Normalises a watch path argument to workspace-relative posix form ('' for the root). */
export function normaliseRel(rel: string): string {
  const p = posix.normalize(rel.split(sep).join('/'));
  return p === '.' || p === './' ? '' : p.replace(/\/+$/, '');
}
