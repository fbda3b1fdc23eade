/**
 * The reverse indexes behind incremental builds: which files import a file, which looked up a
 * name in the workspace-wide table, and which missed an import or link whose basename stem a new
 * file could satisfy. A change asks them which other files must re-link.
 */
import type { FileState } from './file-state.ts';
import type { Dependencies } from './resolve-names.ts';
import { specifierStems } from './file-index.ts';

/**
 * The files under one key: the path itself while there is one (most names are looked up by one
 * file), a set from the second on. A set of one path costs ~150 bytes, the string nothing more: on
 * the python3 prefix the name index held ~112K sets (~25 MB).
 */
type Members = string | Set<string>;

/** Adds `v` under `k`; false when it was there. */
function addTo(m: Map<string, Members>, k: string, v: string): boolean {
  const cur = m.get(k);
  if (cur === undefined) m.set(k, v);
  else if (typeof cur === 'string') {
    if (cur === v) return false;
    m.set(k, new Set([cur, v]));
  } else {
    if (cur.has(v)) return false;
    cur.add(v);
  }
  return true;
}

function removeFrom(m: Map<string, Members>, k: string, v: string): void {
  const cur = m.get(k);
  if (cur === undefined) return;
  if (typeof cur === 'string') {
    if (cur === v) m.delete(k);
  } else if (cur.delete(v) && cur.size === 0) m.delete(k);
}

function membersOf(m: Map<string, Members>, k: string): Iterable<string> {
  const cur = m.get(k);
  return cur === undefined ? [] : typeof cur === 'string' ? [cur] : cur;
}

/** Files that depend on a file, a name or a missed stem, kept in step with each file's own keys. */
export class FileDependents {
  private readonly importers = new Map<string, Members>();
  private readonly byName = new Map<string, Members>();
  private readonly byMissStem = new Map<string, Members>();

  /** Files whose imports resolve to `path`. */
  importersOf(path: string): Iterable<string> {
    return membersOf(this.importers, path);
  }
  /** Files whose resolution looked up `name`. */
  dependentsOfName(name: string): Iterable<string> {
    return membersOf(this.byName, name);
  }
  /** Files with an unresolved import or link of this basename stem. */
  missing(stem: string): Iterable<string> {
    return membersOf(this.byMissStem, stem);
  }

  /** Unregisters a file's keys (before it re-links or goes away) and clears them on its state. */
  forget(st: FileState): void {
    for (const name of st.globalNames) removeFrom(this.byName, name, st.path);
    st.globalNames = [];
    for (const stem of st.missStems) removeFrom(this.byMissStem, stem, st.path);
    st.missStems = [];
    for (const t of st.importTargets) removeFrom(this.importers, t, st.path);
    st.importTargets = [];
  }

  /** Registers what a file's freshly resolved imports reached and which of them missed. */
  recordImports(st: FileState): void {
    const targets = new Set<string>();
    const stems = new Set<string>();
    for (const imp of st.imports) {
      for (const t of imp.targets) if (t !== st.path) targets.add(t);
      if (imp.unresolved || imp.partial) for (const stem of specifierStems(imp.specifier)) stems.add(stem);
    }
    st.importTargets = [...targets];
    for (const t of targets) addTo(this.importers, t, st.path);
    st.missStems = [...stems].filter(Boolean);
    for (const s of st.missStems) addTo(this.byMissStem, s, st.path);
  }

  /** Registers the names a file's resolution depended on. */
  recordNames(st: FileState, names: Dependencies): void {
    // The shared index doubles as the per-file dedupe (an array per file is lighter than a Set).
    for (const name of names) if (addTo(this.byName, name, st.path)) st.globalNames.push(name);
  }

  /** Registers a stem whose appearance may resolve something in the file. */
  recordMiss(st: FileState, stem: string): void {
    if (!stem || st.missStems.includes(stem)) return;
    st.missStems.push(stem);
    addTo(this.byMissStem, stem, st.path);
  }
}
