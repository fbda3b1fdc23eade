/**
 * What a write did to the graph: the written files' symbols before and after (added, removed,
 * changed by their own text), the direct dependents of the changed and removed symbols, the test
 * files that cover them, and the edges the files gained or lost.
 */
import { createHash } from 'node:crypto';
import type { GraphService } from '../graph/api.ts';
import { DEPENDENCY_RELATIONS, incomingWithInstantiations, isTestNode } from './neighbourhood.ts';

/** One symbol as captured before or after a write. */
interface SymbolFact {
  id: string;
  kind: string;
  lines: [number, number];
  /** Hash of the symbol's own lines, whitespace at line ends ignored. */
  text: string;
}

/** The written files as the graph held them at one moment. */
export interface FilesSnapshot {
  symbols: Map<string, SymbolFact>;
  /** `source relation target` of every edge leaving the files' nodes. */
  edges: Set<string>;
  /** Symbol id → dependents outside the written files (`id relation`). */
  dependents: Map<string, { id: string; path: string; relation: string }[]>;
  /** Test files linked to the files or their symbols. */
  tests: Map<string, Set<string>>;
}

/** A node id and its file path as the delta reports it. */
export interface DeltaRef {
  id: string;
  lines: [number, number];
}

export interface GraphDelta {
  symbols: { added: DeltaRef[]; removed: DeltaRef[]; changed: DeltaRef[] };
  /** `pending_relink`: edges of unchanged symbols the type checker has yet to link again (see graphDelta). */
  edges: { added: number; removed: number; sample_added: string[]; sample_removed: string[]; pending_relink?: number };
  dependents: { id: string; path: string; relation: string; of: string }[];
  tests_to_run: string[];
}

const SAMPLE = 10;
const MAX_DEPENDENTS = 100;

function textHash(lines: readonly string[], from: number, to: number): string {
  const h = createHash('sha1');
  for (let i = from - 1; i < to && i < lines.length; i++) h.update(lines[i].trimEnd()).update('\n');
  return h.digest('hex').slice(0, 16);
}

/**
 * Captures the graph's view of `paths`, hashing symbol text from `texts` (path → current content;
 * a missing path has no symbols).
 */
export function snapshotFiles(graph: GraphService, paths: readonly string[], texts: Map<string, string | null>): FilesSnapshot {
  const snap = emptySnapshot();
  const written = new Set(paths);
  for (const path of paths) snapshotFile(graph, path, written, texts, snap);
  return snap;
}

/** `snapshotFiles` with `pace()` before each file (a batch's many files, a slice at a time). */
export async function snapshotFilesPaced(graph: GraphService, paths: readonly string[], texts: Map<string, string | null>, pace: () => Promise<void>): Promise<FilesSnapshot> {
  const snap = emptySnapshot();
  const written = new Set(paths);
  for (const path of paths) {
    await pace();
    snapshotFile(graph, path, written, texts, snap);
  }
  return snap;
}

function emptySnapshot(): FilesSnapshot {
  return { symbols: new Map(), edges: new Set(), dependents: new Map(), tests: new Map() };
}

/** Adds one file's symbols, edges, dependents and tests to `snap` (the graph of this turn: a paced caller may see a newer one per file). */
function snapshotFile(graph: GraphService, path: string, written: ReadonlySet<string>, texts: Map<string, string | null>, snap: FilesSnapshot): void {
  const g = graph.engine.graph;
  const addTest = (testPath: string, why: string) => {
    let s = snap.tests.get(testPath);
    if (!s) snap.tests.set(testPath, (s = new Set()));
    s.add(why);
  };
  const lines = texts.get(path)?.split('\n') ?? [];
  const fileId = `file:${path}`;
  const nodes = [fileId, ...graph.fileSymbols(path).map((n) => n.id)];
  for (const id of nodes) {
    const n = g.get(id);
    if (!n) continue;
    if (n.kind !== 'file') snap.symbols.set(id, { id, kind: n.kind, lines: [n.startLine, n.endLine], text: textHash(lines, n.startLine, n.endLine) });
    for (const e of g.outgoing(id)) snap.edges.add(`${e.source} ${e.relation} ${e.target}`);
    const deps: { id: string; path: string; relation: string }[] = [];
    for (const e of incomingWithInstantiations(g, id)) {
      const src = g.get(e.source);
      if (!src || written.has(src.path) || src.kind === 'module') continue;
      const code = DEPENDENCY_RELATIONS.includes(e.relation) || e.relation === 'imports';
      // A test runs the code it tests, calls or imports; one that only changed with it in git does not.
      if (e.relation === 'tests' || (code && isTestNode(graph, src))) addTest(src.path, id);
      else if (code) deps.push({ id: src.id, path: src.path, relation: e.relation });
    }
    snap.dependents.set(id, deps);
  }
}

/**
 * The delta between two snapshots of the same files. `linking`: the type checker has not re-linked
 * the written files yet, so an edge missing from an unchanged symbol to one not removed is one its
 * pass brings back (the edit did not touch either end): counted as `pending_relink`, not removed.
 */
export function graphDelta(before: FilesSnapshot, after: FilesSnapshot, linking = false): GraphDelta {
  const ref = (f: SymbolFact): DeltaRef => ({ id: f.id, lines: f.lines });
  const added = [...after.symbols.values()].filter((s) => !before.symbols.has(s.id)).map(ref);
  const removed = [...before.symbols.values()].filter((s) => !after.symbols.has(s.id)).map(ref);
  const changed = [...after.symbols.values()].filter((s) => before.symbols.has(s.id) && before.symbols.get(s.id)!.text !== s.text).map(ref);
  const edgesAdded = [...after.edges].filter((e) => !before.edges.has(e));
  const gone = [...before.edges].filter((e) => !after.edges.has(e));
  const removedIds = new Set(removed.map((r) => r.id));
  const untouched = (e: string): boolean => {
    const [source, , target] = e.split(' ');
    const was = before.symbols.get(source);
    return was !== undefined && after.symbols.get(source)?.text === was.text && !removedIds.has(target);
  };
  const pending = linking ? gone.filter(untouched) : [];
  const edgesRemoved = linking ? gone.filter((e) => !untouched(e)) : gone;
  // Dependents: of removed symbols as they were, of changed ones now; a changed file's importers too.
  const dependents = new Map<string, { id: string; path: string; relation: string; of: string }>();
  const collect = (snap: FilesSnapshot, of: string) => {
    for (const d of snap.dependents.get(of) ?? []) if (!dependents.has(`${d.id} ${of}`)) dependents.set(`${d.id} ${of}`, { ...d, of });
  };
  for (const r of removed) collect(before, r.id);
  for (const c of changed) collect(after, c.id);
  const touchedFiles = new Set([...added, ...removed, ...changed].map((r) => r.id.slice(r.id.indexOf(':') + 1).split('#')[0]));
  for (const f of touchedFiles) {
    collect(before, `file:${f}`);
    collect(after, `file:${f}`);
  }
  const touched = new Set([...removed, ...changed, ...added].map((r) => r.id));
  for (const f of touchedFiles) touched.add(`file:${f}`);
  const tests = new Set<string>();
  for (const snap of [before, after]) for (const [path, whys] of snap.tests) if ([...whys].some((w) => touched.has(w))) tests.add(path);
  return {
    symbols: { added, removed, changed },
    edges: { added: edgesAdded.length, removed: edgesRemoved.length, sample_added: edgesAdded.slice(0, SAMPLE), sample_removed: edgesRemoved.slice(0, SAMPLE), ...(pending.length ? { pending_relink: pending.length } : {}) },
    dependents: [...dependents.values()].sort((a, b) => a.path.localeCompare(b.path) || a.id.localeCompare(b.id)).slice(0, MAX_DEPENDENTS),
    tests_to_run: [...tests].sort(),
  };
}

/**
 * The snapshot a file would have with `text`, from symbols parsed without writing: symbol text
 * hashes are real; edges, dependents and tests are the current graph's (a preview cannot link).
 */
export function previewSnapshot(before: FilesSnapshot, symbols: readonly { id: string; kind: string; startLine: number; endLine: number }[], text: string): FilesSnapshot {
  const lines = text.split('\n');
  const next = new Map<string, SymbolFact>();
  for (const s of symbols) next.set(s.id, { id: s.id, kind: s.kind, lines: [s.startLine, s.endLine], text: textHash(lines, s.startLine, s.endLine) });
  return { symbols: next, edges: before.edges, dependents: before.dependents, tests: before.tests };
}
