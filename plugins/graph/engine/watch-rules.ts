/**
 * What a native file watcher over the workspace leaves out, shared by the graph's own watcher
 * (watch.ts) and the daemon's (plugins/daemon/tree-watcher.ts): hidden entries and the skip list
 * (node_modules, vendor, dist, …) as patterns the native watcher never descends into, and git's
 * ignore rules (.gitignore files, .git/info/exclude) read folder by folder on first use.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import type * as ParcelWatcher from '@parcel/watcher';
import ignore, { type Ignore } from 'ignore';
import { BACKGROUND_SLICE_MS, backgroundTurnSpent, backgroundYield } from './steps.ts';
import { PRUNED_SEGMENTS } from './walk.ts';

const requireModule = createRequire(import.meta.url);
let parcel: typeof ParcelWatcher | undefined;
/** The native watcher (@parcel/watcher), required when a tree is first watched, not at start (~25 ms of module loading). */
export function nativeWatcher(): typeof ParcelWatcher {
  return (parcel ??= requireModule('@parcel/watcher') as typeof ParcelWatcher);
}

/** Events of one batch whose folders' ignore files are read ahead asynchronously (GitignoreRules.prefetch). */
const PREFETCH_MAX = 4096;
/** Folders whose ignore files one step of `prefetch` reads at once. */
const PREFETCH_DIRS = 8;

/** The ignore files of a workspace-relative folder ('' is the root: .git/info/exclude too). */
function ignoreFilesOf(dir: string): string[] {
  return dir === '' ? [join('.git', 'info', 'exclude'), '.gitignore'] : [join(dir, '.gitignore')];
}

/** .gitignore rules of the workspace, folder by folder, read on first use (or ahead, `prefetch`). */
export class GitignoreRules {
  private readonly byDir = new Map<string, Ignore | null>();
  constructor(private readonly root: string) {}

  private rulesOf(dir: string): Ignore | null {
    if (this.byDir.has(dir)) return this.byDir.get(dir)!;
    let text = '';
    for (const file of ignoreFilesOf(dir)) {
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
    this.epoch++;
  }

  private epoch = 0;

  /**
   * Reads, asynchronously and PREFETCH_DIRS folders at a time, the rules of every folder on the way
   * to these absolute paths not read yet, so `ignores` then reads no file on the main thread (a burst
   * over 100 folders read 100 missing .gitignore files synchronously, each a thrown ENOENT). Paced as
   * background work: a read that fails makes an error object when its completion runs, and 32
   * folders' reads at once made most of two 7–9 ms stretches in a daemon burst's CPU profile (over 100
   * folders alone, the longest main-thread stretch: median 3.2 ms, at most 5.6; 8 at a time 2.1, 4.3).
   * A batch larger than PREFETCH_MAX events is left to the on-demand reads (its folders are mostly
   * known by then).
   */
  async prefetch(absolutePaths: readonly string[]): Promise<void> {
    if (absolutePaths.length > PREFETCH_MAX) return;
    const epoch = this.epoch;
    const dirs = new Set<string>();
    for (const p of absolutePaths) {
      if (backgroundTurnSpent()) await backgroundYield();
      const rel = relative(this.root, p).split(sep).join('/');
      if (!rel || rel.startsWith('..')) continue;
      const parts = rel.split('/');
      for (let i = 0; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (!this.byDir.has(d)) dirs.add(d);
      }
    }
    const list = [...dirs];
    for (let i = 0; i < list.length; i += PREFETCH_DIRS) {
      if (i > 0 && backgroundTurnSpent()) await backgroundYield();
      const batch = list.slice(i, i + PREFETCH_DIRS);
      // A file that cannot be read holds no rules (as on demand): this never rejects.
      const texts = await Promise.all(batch.map((d) => Promise.all(ignoreFilesOf(d).map((f) => readFile(join(this.root, f), 'utf8').then((t) => t + '\n', () => ''))).then((t) => t.join(''))));
      if (epoch !== this.epoch) return; // a .gitignore changed meanwhile: read on demand again
      batch.forEach((d, k) => {
        if (!this.byDir.has(d)) this.byDir.set(d, texts[k].trim() ? ignore().add(texts[k]) : null);
      });
    }
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

/**
 * Regexes over watched-root-relative paths a native watcher never descends into: the skip list, and
 * hidden entries except .gitignore files (a changed .gitignore changes what is ignored).
 */
export function watcherIgnorePatterns(): RegExp[] {
  const names = [...PRUNED_SEGMENTS].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return [new RegExp(`(^|/)(${names})(/|$)`), /(^|\/)\.(?!gitignore$)[^/]*(\/|$)/];
}

/**
 * Calls `fn` on each item, giving the event loop back once background work has had `sliceMs` of this
 * turn: a native watcher's batch can hold thousands of events (a checkout, an unpacked archive), each
 * matched against the ignore rules (whose files are read on first use, a synchronous read per
 * folder). The budget is shared with every background slicer (steps.ts), so the graph's and the
 * daemon's watchers handling the same batch in one turn hold it for one budget together.
 */
export async function eachSliced<T>(items: readonly T[], fn: (item: T) => void, sliceMs = BACKGROUND_SLICE_MS): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (backgroundTurnSpent(sliceMs)) await backgroundYield(sliceMs);
    fn(items[i]);
  }
}
