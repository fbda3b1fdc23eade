/**
 * A native watcher that only marks paths dirty. The engine drains the dirty set in `ensureFresh()`
 * before answering a query, so a query never runs on a graph it knows to be stale; the debounced
 * callback lets a host re-ingest in the background once edits settle.
 *
 * @parcel/watcher (inotify, FSEvents, ReadDirectoryChangesW), like the daemon's watcher: events are
 * collected on a native thread and handed over in batches, with no stat or folder listing per event
 * on the main thread (chokidar's per-event lstat held the loop ~70-300 ms for a burst of 200 edits;
 * docs/benchmarks.md, "Daemon and view build, round 3"). Hidden entries and the skip list are never
 * watched; paths git ignores are never marked. A deleted path the graph knows as a file is a file;
 * any other deleted path may have been a folder, and a created folder's files come with no event of
 * their own: both are marked as folders, which the engine turns into a walk.
 */
import { stat } from 'node:fs/promises';
import { posix, relative, sep } from 'node:path';
import type * as ParcelWatcher from '@parcel/watcher';
import { eachSliced, GitignoreRules, nativeWatcher, skipped, watcherIgnorePatterns } from './watch-rules.ts';
import type { ReconcileTiming } from './watch-reconcile.ts';

/** Watcher settings. */
export interface WatchOptions {
  /** Quiet time after the last event before `onSettled` fires (default 150 ms). */
  debounceMs?: number;
  /** Called once edits settle, with the number of dirty paths. */
  onSettled?: (pending: number) => void;
  /** Quiet time after the last event before the reconciliation, and least time between two (watch-reconcile.ts). */
  reconcile?: ReconcileTiming;
  /** Whether the graph holds this workspace-relative path as a file (a deleted one is then a file, not a folder). */
  isFile?: (rel: string) => boolean;
}

/** Dirty paths collected since the last drain. */
export interface DirtySet {
  /** Workspace-relative files added, changed or removed. */
  files: string[];
  /** Workspace-relative directories added or removed (their files need a walk to know). */
  dirs: string[];
}

/** Watches a workspace and accumulates dirty paths. */
export class WorkspaceWatcher {
  private subscription: ParcelWatcher.AsyncSubscription | null = null;
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();
  /** Event batches being handled and created paths being stat'ed (file or folder?). */
  private readonly checking = new Set<Promise<void>>();
  private handling: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private readonly gitignore: GitignoreRules;
  private closed = false;
  /** The last error the file watcher reported, if any. */
  lastError: string | null = null;

  constructor(
    private readonly root: string,
    private readonly options: WatchOptions = {},
  ) {
    this.gitignore = new GitignoreRules(root);
  }

  /** Starts watching; resolves once the native watch is in place (events before that are not reported). */
  async start(): Promise<void> {
    if (this.subscription) return;
    this.closed = false;
    // After start-up, a watcher error (e.g. the inotify limit on a huge tree) must not crash the
    // server: it is kept for status, and queries keep working off the store generation.
    this.subscription = await nativeWatcher().subscribe(this.root, (error, events) => this.onEvents(error, events), { ignore: watcherIgnorePatterns() });
  }

  private onEvents(error: Error | null, events: ParcelWatcher.Event[]): void {
    if (this.closed) return;
    if (error) this.lastError = error.message;
    // Batches are handled in order, each in slices (counted as pending until done).
    const done: Promise<void> = this.handling
      .then(() => this.gitignore.prefetch(events.map((e) => e.path)))
      .then(() => eachSliced(events, (e) => this.onEvent(e)))
      .catch((err: unknown) => {
        this.lastError = err instanceof Error ? err.message : String(err);
      })
      .finally(() => this.checking.delete(done));
    this.checking.add(done);
    this.handling = done;
  }

  private onEvent(e: ParcelWatcher.Event): void {
    if (this.closed) return;
    const rel = relative(this.root, e.path).split(sep).join('/');
    if (!rel || rel.startsWith('..')) return;
    if (posix.basename(rel) === '.gitignore') {
      // What is ignored changed: a walk finds files that came in or went out.
      this.gitignore.refresh();
      this.mark(this.dirs, posix.dirname(rel) === '.' ? '' : posix.dirname(rel));
      return;
    }
    if (skipped(rel) || this.gitignore.ignores(rel, false)) return;
    if (e.type === 'update') this.mark(this.files, rel);
    else if (e.type === 'delete') this.mark(this.options.isFile?.(rel) !== false ? this.files : this.dirs, rel);
    else this.created(rel, e.path);
  }

  /** A created path: a file is dirty, a folder (created or moved in) needs a walk. */
  private created(rel: string, absolute: string): void {
    const check: Promise<void> = stat(absolute)
      .then(
        (st) => {
          if (this.closed) return;
          if (!st.isDirectory()) this.mark(this.files, rel);
          else if (!this.gitignore.ignores(rel, true)) this.mark(this.dirs, rel);
        },
        () => (this.closed ? undefined : this.mark(this.files, rel)), // gone again: a removed path is handled as one
      )
      .finally(() => this.checking.delete(check));
    this.checking.add(check);
  }

  private mark(set: Set<string>, rel: string): void {
    set.add(rel);
    this.schedule();
  }

  private schedule(): void {
    if (!this.options.onSettled) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.options.onSettled?.(this.pending);
    }, this.options.debounceMs ?? 150);
    this.timer.unref();
  }

  /** Number of dirty paths waiting (event batches being handled and created paths being checked count). */
  get pending(): number {
    return this.files.size + this.dirs.size + this.checking.size;
  }

  /** Resolves once every event seen so far is handled and every created path classified (file or folder). */
  async settled(): Promise<void> {
    while (this.checking.size > 0) await Promise.all([...this.checking]);
  }

  /** Marks a file dirty without an event (a reconciliation found it differing from the store). */
  markFile(rel: string): void {
    if (!this.closed) this.mark(this.files, rel);
  }

  /** Returns and clears the dirty paths. */
  drain(): DirtySet {
    const out = { files: [...this.files], dirs: [...this.dirs] };
    this.files.clear();
    this.dirs.clear();
    return out;
  }

  /** Puts paths back (a re-ingest that failed must not lose them). */
  restore(dirty: DirtySet): void {
    for (const f of dirty.files) this.files.add(f);
    for (const d of dirty.dirs) this.dirs.add(d);
  }

  /** Stops watching. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const s = this.subscription;
    this.subscription = null;
    await s?.unsubscribe().catch(() => undefined);
  }
}
