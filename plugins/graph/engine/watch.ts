/**
 * A chokidar watcher that only marks paths dirty. The engine drains the dirty set in
 * `ensureFresh()` before answering a query, so a query never runs on a graph it knows to be stale;
 * the debounced callback lets a host re-ingest in the background once edits settle.
 */
import { watch, type FSWatcher } from 'chokidar';
import { relative, sep } from 'node:path';
import { PRUNED_SEGMENTS } from './walk.ts';

/** Watcher settings. */
export interface WatchOptions {
  /** Quiet time after the last event before `onSettled` fires (default 150 ms). */
  debounceMs?: number;
  /** Called once edits settle, with the number of dirty paths. */
  onSettled?: (pending: number) => void;
  /** Poll instead of native events (network file systems, some containers). */
  usePolling?: boolean;
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
  private watcher: FSWatcher | null = null;
  private readonly files = new Set<string>();
  private readonly dirs = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** The last error the file watcher reported, if any. */
  lastError: string | null = null;

  constructor(
    private readonly root: string,
    private readonly options: WatchOptions = {},
  ) {}

  /** Starts watching; resolves once the initial scan is done (events before that are not reported). */
  async start(): Promise<void> {
    if (this.watcher) return;
    const root = this.root;
    this.watcher = watch(root, {
      ignoreInitial: true,
      persistent: true,
      usePolling: this.options.usePolling ?? false,
      ignored: (path: string) => {
        const rel = relative(root, path);
        if (rel === '') return false;
        // Hidden entries and always-pruned directories are never ingested, so never watched.
        return rel.split(sep).some((seg) => seg.startsWith('.') || PRUNED_SEGMENTS.has(seg));
      },
    });
    const mark = (kind: 'file' | 'dir') => (path: string) => {
      const rel = relative(root, path).split(sep).join('/');
      if (!rel || rel.startsWith('..')) return;
      (kind === 'file' ? this.files : this.dirs).add(rel);
      this.schedule();
    };
    // A directory renamed or moved arrives as unlinkDir/addDir; its files are found by a walk.
    this.watcher
      .on('add', mark('file'))
      .on('change', mark('file'))
      .on('unlink', mark('file'))
      .on('unlinkDir', mark('dir'))
      .on('addDir', mark('dir'));
    // After start-up, a watcher error (e.g. the inotify limit on a huge tree) must not crash the
    // server: it is kept for status, and queries keep working off the store generation.
    this.watcher.on('error', (error) => {
      this.lastError = error instanceof Error ? error.message : String(error);
    });
    await new Promise<void>((resolve, reject) => {
      this.watcher!.once('ready', () => resolve());
      this.watcher!.once('error', reject);
    });
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

  /** Number of dirty paths waiting. */
  get pending(): number {
    return this.files.size + this.dirs.size;
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }
}
