/**
 * A chokidar watcher over some folders of the workspace that only queues what changed: a bounded
 * map path → last event, debounced into one `onSettled` call once edits stop. Hidden entries, the
 * graph's skip list (node_modules, vendor, dist, …) and .gitignore'd paths are never watched, so an
 * idle tree costs no CPU beyond the OS's own change notification (no polling).
 */
import { readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import ignore, { type Ignore } from 'ignore';
import { PRUNED_SEGMENTS } from '../graph/api.ts';

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

/** .gitignore rules of the workspace, folder by folder, read on first use. */
export class GitignoreRules {
  private readonly byDir = new Map<string, Ignore | null>();
  constructor(private readonly root: string) {}

  private rulesOf(dir: string): Ignore | null {
    if (this.byDir.has(dir)) return this.byDir.get(dir)!;
    let text = '';
    for (const file of dir === '' ? [join('.git', 'info', 'exclude'), '.gitignore'] : [join(dir, '.gitignore')]) {
      try {
        text += readFileSync(join(this.root, file), 'utf8') + '\n';
      } catch {
        // no rules at this level
      }
    }
    const rules = text.trim() ? ignore().add(text) : null;
    this.byDir.set(dir, rules);
    return rules;
  }

  /** Forgets the rules read so far (a .gitignore changed). */
  refresh(): void {
    this.byDir.clear();
  }

  /** Whether a workspace-relative path (a folder when `dir`) is ignored by git's rules. */
  ignores(rel: string, dir: boolean): boolean {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const base = parts.slice(0, i).join('/');
      const rules = this.rulesOf(base);
      if (!rules) continue;
      const sub = parts.slice(i).join('/') + (dir ? '/' : '');
      if (rules.ignores(sub)) return true;
    }
    return false;
  }
}

/** Whether a workspace-relative path is on the skip list (hidden, dependencies, build output). */
export function skipped(rel: string): boolean {
  return rel.split('/').some((seg) => seg.startsWith('.') || PRUNED_SEGMENTS.has(seg));
}

/** Watches folders of the workspace and queues changed paths. */
export class TreeWatcher {
  private watcher: FSWatcher | null = null;
  private readonly queue = new Map<string, ChangeKind>();
  private timer: NodeJS.Timeout | null = null;
  private readonly gitignore: GitignoreRules;
  /** Events dropped because the queue was full since the last drain (a rescan finds them). */
  overflowed = 0;
  /** The last error the watcher reported. */
  lastError: string | null = null;

  constructor(private readonly options: TreeWatcherOptions) {
    this.gitignore = new GitignoreRules(options.root);
  }

  /** Starts watching; resolves once the initial scan is done. */
  async start(): Promise<void> {
    if (this.watcher) return;
    const { root } = this.options;
    const targets = this.options.paths.length === 0 ? [root] : this.options.paths.map((p) => (p === '' || p === '.' ? root : join(root, p)));
    this.watcher = watch(targets, {
      ignoreInitial: true,
      persistent: true,
      usePolling: false,
      ignored: (path: string, stats?: { isDirectory(): boolean }) => {
        const rel = relative(root, path).split(sep).join('/');
        if (rel === '' || rel.startsWith('..')) return false;
        // .gitignore files are watched (hidden as they are): a change re-reads the rules.
        if (posix.basename(rel) === '.gitignore' && !skipped(posix.dirname(rel) === '.' ? '' : posix.dirname(rel))) return false;
        if (skipped(rel)) return true;
        // chokidar asks once without stats (a name check) and again with them.
        return stats ? this.gitignore.ignores(rel, stats.isDirectory()) : false;
      },
    });
    const on = (kind: ChangeKind) => (path: string) => {
      const rel = relative(root, path).split(sep).join('/');
      if (!rel || rel.startsWith('..')) return;
      if (posix.basename(rel) === '.gitignore') return this.gitignore.refresh();
      if (this.options.accept && !this.options.accept(rel)) return;
      if (kind === 'unlink') this.options.onUnlink?.(rel);
      this.push(rel, kind);
    };
    this.watcher.on('add', on('change')).on('change', on('change')).on('unlink', on('unlink'));
    // A folder removed or moved away: chokidar reports its files' unlink events itself.
    this.watcher.on('error', (error) => {
      this.lastError = error instanceof Error ? error.message : String(error);
    });
    await new Promise<void>((resolve, reject) => {
      this.watcher!.once('ready', () => resolve());
      this.watcher!.once('error', reject);
    });
  }

  /** Queues a path (also used by scans); false when the queue is full. */
  push(rel: string, kind: ChangeKind): boolean {
    if (!this.queue.has(rel) && this.queue.size >= this.options.maxQueue) {
      this.overflowed++;
      return false;
    }
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
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }
}

/** Normalises a watch path argument to workspace-relative posix form ('' for the root). */
export function normaliseRel(rel: string): string {
  const p = posix.normalize(rel.split(sep).join('/'));
  return p === '.' || p === './' ? '' : p.replace(/\/+$/, '');
}
