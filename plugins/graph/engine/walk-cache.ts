/**
 * The walk's directory cache: an incremental ingest re-walks the tree only when it may have a new
 * shape. Adding, removing or renaming an entry changes its directory's mtime, and the walk's rules
 * depend otherwise only on paths and on the ignore files; so when every walked directory and every
 * ignore file still has the stat the cache recorded, the listing and its classification are as
 * before, and only the files whose outcome depends on their own stat (size, mtime) are stat'ed
 * again. Directories changed shortly before the listing (within the file system's timestamp
 * granularity) are not trusted ("racy", as git calls it): such a walk is not cached.
 */
import { statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Language } from './extraction.ts';
import type { SkipReason, SkippedPath, WalkEntry, WalkOptions, WalkResult } from './walk.ts';

/** A directory changed this close to the listing (ms) may have changed during it. */
const RACY_MS = 2000;
/** Stats between two chances to yield of a revalidation or a recording (a stat is 5-100 µs on a busy machine). */
const STEP = 16;
const SEP = '\u0000';

type Item = { kind: 'skip'; entry: SkippedPath; probe: boolean } | { kind: 'candidate'; path: string; language: Language };

/** Collects what one full walk saw, in the order the walk classified it. */
export class WalkRecorder {
  readonly items: Item[] = [];
  readonly directories: string[] = [''];
  readonly ignoreFiles: string[] = ['.gitignore', '.git/info/exclude'];
  /** `unsupported` files, only counted by the walk. */
  unsupported = 0;

  directory(path: string): void {
    // Pruned directories are never entered; their appearance shows in their parent's mtime.
    if (path.split('/').some((s) => s.startsWith('.') || s === 'node_modules')) return;
    this.directories.push(path);
  }

  ignoreFile(path: string): void {
    if (path !== '.gitignore') this.ignoreFiles.push(path);
  }

  candidate(path: string, language: Language): void {
    this.items.push({ kind: 'candidate', path, language });
  }

  skip(path: string, reason: SkipReason, probe: boolean): void {
    const last = this.items[this.items.length - 1];
    if (last?.kind === 'candidate' && last.path === path) return; // decided by the candidate's stat
    if (reason === 'unsupported') this.unsupported++;
    else this.items.push({ kind: 'skip', entry: { path, reason }, probe });
  }
}

interface Recorded {
  key: string;
  detectLanguage: WalkOptions['detectLanguage'];
  /** Whether the recorded walk probed for pruned directories (its probe skips are in `items`). */
  probed: boolean;
  items: Item[];
  unsupported: number;
  configFiles: WalkResult['configFiles'];
  /** Path → mtimeMs of every walked directory. */
  directories: Map<string, number>;
  /** Path → `size:mtimeMs` of every ignore file ('' when absent). */
  ignoreFiles: Map<string, string>;
}

const keyOf = (o: WalkOptions): string => [o.root, o.maxFileBytes, ...(o.exclude ?? [])].join(SEP);
const stat = (path: string): Stats | undefined => statSync(path, { throwIfNoEntry: false });
const fileStamp = (st: Stats | undefined): string => (st ? `${st.size}:${st.mtimeMs}` : '');

/** One workspace's walk cache (held by the engine across ingests). */
export class WalkCache {
  private recorded: Recorded | null = null;
  /** How the last walk was answered (for tests and benchmarks). */
  lastWalk: 'cached' | 'listed' | null = null;

  /** Forgets the recorded walk. */
  clear(): void {
    this.recorded = null;
  }

  /** Stores a full walk, unless a walked directory changed too close to its listing. */
  *record(options: WalkOptions, recorder: WalkRecorder, result: WalkResult, listedAt: number): Generator<void, void> {
    this.lastWalk = 'listed';
    this.recorded = null;
    const directories = new Map<string, number>();
    let n = 0;
    for (const d of recorder.directories) {
      if (++n % STEP === 0) yield;
      const st = stat(join(options.root, d));
      if (!st?.isDirectory() || st.mtimeMs >= listedAt - RACY_MS) return;
      directories.set(d, st.mtimeMs);
    }
    const ignoreFiles = new Map<string, string>();
    for (const f of recorder.ignoreFiles) {
      const st = stat(join(options.root, f));
      if (st && st.mtimeMs >= listedAt - RACY_MS) return;
      ignoreFiles.set(f, fileStamp(st));
    }
    this.recorded = {
      key: keyOf(options),
      detectLanguage: options.detectLanguage,
      probed: options.reportPruned !== false,
      items: recorder.items,
      unsupported: recorder.unsupported,
      configFiles: result.configFiles,
      directories,
      ignoreFiles,
    };
  }

  /** The walk's result from the cache, or null when the tree may have changed shape (then walk). */
  *revalidate(options: WalkOptions): Generator<void, WalkResult | null> {
    const r = this.recorded;
    const probed = options.reportPruned !== false;
    if (!r || r.key !== keyOf(options) || r.detectLanguage !== options.detectLanguage || (probed && !r.probed)) return null;
    let n = 0;
    for (const [d, mtimeMs] of r.directories) {
      if (++n % STEP === 0) yield;
      if (stat(join(options.root, d))?.mtimeMs !== mtimeMs) return this.miss();
    }
    for (const [f, stamp] of r.ignoreFiles) if (fileStamp(stat(join(options.root, f))) !== stamp) return this.miss();

    const files: WalkEntry[] = [];
    const skipped: SkippedPath[] = [];
    const skippedByReason: Partial<Record<SkipReason, number>> = {};
    const skip = (entry: SkippedPath): void => {
      skippedByReason[entry.reason] = (skippedByReason[entry.reason] ?? 0) + 1;
      skipped.push(entry);
    };
    if (r.unsupported > 0) skippedByReason.unsupported = r.unsupported;
    for (const item of r.items) {
      if (item.kind === 'skip') {
        if (probed || !item.probe) skip(item.entry);
        continue;
      }
      if (++n % STEP === 0) yield;
      const st = stat(join(options.root, item.path));
      if (!st) skip({ path: item.path, reason: 'unreadable' });
      else if (st.size > options.maxFileBytes) skip({ path: item.path, reason: 'too_large' });
      else files.push({ path: item.path, language: item.language, size: st.size, mtimeMs: st.mtimeMs });
    }
    this.lastWalk = 'cached';
    return { files, skipped, skippedByReason, configFiles: { tsconfig: r.configFiles.tsconfig, goMods: [...r.configFiles.goMods] } };
  }

  private miss(): null {
    this.recorded = null;
    return null;
  }
}
