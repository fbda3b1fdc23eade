/**
 * The set of ingested file paths, indexed the ways resolution asks: by directory (packages, module
 * nodes) and by basename (Java classes, test counterparts), each list kept sorted for determinism.
 */
import { posix } from 'node:path';
import { dirOf } from './resolve.ts';
import { lowerBound } from './sorted-strings.ts';

function insertSorted(list: string[], value: string): void {
  const at = lowerBound(list, value);
  if (list[at] !== value) list.splice(at, 0, value);
}

function removeSorted(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(value);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

/** Paths by directory and by basename. */
export class FileIndex {
  private readonly byDir = new Map<string, string[]>();
  private readonly byBasename = new Map<string, string[]>();

  /** Adds a path. */
  add(path: string): void {
    const dir = dirOf(path);
    let list = this.byDir.get(dir);
    if (!list) this.byDir.set(dir, (list = []));
    insertSorted(list, path);
    const base = posix.basename(path);
    let named = this.byBasename.get(base);
    if (!named) this.byBasename.set(base, (named = []));
    insertSorted(named, path);
  }

  /** Removes a path. */
  remove(path: string): void {
    removeSorted(this.byDir, dirOf(path), path);
    removeSorted(this.byBasename, posix.basename(path), path);
  }

  /** Files directly in a directory ('' is the root), sorted. */
  inDir(dir: string): readonly string[] {
    return this.byDir.get(dir) ?? [];
  }

  /** Files with this basename, sorted. */
  named(basename: string): readonly string[] {
    return this.byBasename.get(basename) ?? [];
  }

  /** True when a directory holds files directly. */
  hasDir(dir: string): boolean {
    return this.byDir.has(dir);
  }

  /** Directories holding files. */
  directories(): IterableIterator<string> {
    return this.byDir.keys();
  }
}

/**
 * Lowercase names under which a file can satisfy an unresolved import or link: its stem, and for
 * index-like files (`index.ts`, `__init__.py`, `mod.rs`, `lib.rs`, `main.*`) its directory name.
 */
export function pathStems(path: string): string[] {
  const stem = posix.basename(path).replace(/\.[^.]+$/, '').replace(/\.d$/, '');
  const out = [stem.toLowerCase()];
  if (['index', '__init__', 'mod', 'lib', 'main'].includes(stem)) {
    const dir = posix.basename(dirOf(path));
    if (dir) out.push(dir.toLowerCase());
  }
  return out;
}

/** First and last name segments of an import specifier: a file named like either may make it resolve. */
export function specifierStems(spec: string): string[] {
  const clean = spec.replace(/[?#].*$/, '').replace(/::\{.*$/, '').replace(/(::|\.)\*$/, '');
  const parts = clean.split(/[/.:\\]+/).filter((p) => p && p !== 'crate' && p !== 'self' && p !== 'super');
  return [...new Set([parts[0], parts[parts.length - 1]].filter(Boolean).map((p) => p.toLowerCase()))];
}
