/**
 * The edges a converted document's nodes should have (folder → file, parent → section, section →
 * each bound target), and whether the graph already holds exactly those: a document is rewritten
 * only when they differ.
 */
import { posix } from 'node:path';
import { DEFAULT_WEIGHTS, moduleNodeId, RELATION_CODE, STRUCTURAL_CONTAINS_WEIGHT, type CodeGraph, type GraphNode } from '../graph/api.ts';
import type { Binding } from './bindings.ts';
import type { DocumentEntry } from './document-entry.ts';

/** The innermost section holding an artefact line, or null before the first heading. */
function sectionAt(entry: DocumentEntry, line: number): string | null {
  let best: DocumentEntry['sections'][number] | null = null;
  for (const s of entry.sections) if (s.startLine <= line && line <= s.endLine && (!best || s.startLine >= best.startLine)) best = s;
  return best ? best.node.qualifiedName! : null;
}

/** One edge: source index, target index, relation code, weight. */
export type Edge = [number, number, number, number];

/** The edges a document's nodes should have: folder → file, parent → section, section → each bound target. */
export function edgesOf(g: CodeGraph, entry: DocumentEntry, bindings: readonly Binding[], fileIdx: number, index: ReadonlyMap<string, number>): Edge[] {
  const code = RELATION_CODE;
  const out: Edge[] = [];
  const folder = nearestModule(g, posix.dirname(entry.path));
  if (folder >= 0) out.push([folder, fileIdx, code.contains, STRUCTURAL_CONTAINS_WEIGHT]);
  for (const s of entry.sections) {
    const parent = s.parent === null ? fileIdx : (index.get(s.parent) ?? fileIdx);
    out.push([parent, index.get(s.node.qualifiedName!)!, code.contains, DEFAULT_WEIGHTS.contains]);
  }
  for (const b of bindings) {
    if (b.status !== 'bound') continue;
    const from = sectionAt(entry, b.first_line);
    const source = from === null ? fileIdx : index.get(from)!;
    for (const t of b.targets) {
      const target = g.indexOf(t.id);
      if (target >= 0 && target !== source) out.push([source, target, code.documents, DEFAULT_WEIGHTS.documents * Math.min(1, b.score)]);
    }
  }
  return out;
}

/** The edges a document should have in the graph as it is, or null when one of its nodes is not there (as this very object). */
export function wantedEdges(g: CodeGraph, entry: DocumentEntry, bindings: readonly Binding[]): Edge[] | null {
  const at = (n: GraphNode) => {
    const i = g.indexOf(n.id);
    return i >= 0 && g.node(i) === n ? i : -1;
  };
  const fileIdx = at(entry.file);
  if (fileIdx < 0) return null;
  const index = new Map<string, number>();
  for (const s of entry.sections) {
    const i = at(s.node);
    if (i < 0) return null;
    index.set(s.node.qualifiedName!, i);
  }
  return edgesOf(g, entry, bindings, fileIdx, index);
}

/** True when the graph holds exactly these edges out of the document's nodes (and its folder edge in). */
export function sameEdges(g: CodeGraph, entry: DocumentEntry, want: readonly Edge[]): boolean {
  const key = (s: number, t: number, r: number, w: number) => `${s}>${t}:${r}:${Math.fround(w)}`;
  const wanted = new Map<string, number>();
  for (const [s, t, r, w] of want) wanted.set(key(s, t, r, w), (wanted.get(key(s, t, r, w)) ?? 0) + 1);
  let missing = want.length;
  let extra = false;
  const take = (k: string) => {
    const c = wanted.get(k) ?? 0;
    if (c === 0) extra = true;
    else (wanted.set(k, c - 1), missing--);
  };
  const fileIdx = g.indexOf(entry.file.id);
  // Another document rewritten just before may have left removed edges in the CSR: only live ones count.
  for (const i of [fileIdx, ...entry.sections.map((s) => g.indexOf(s.node.id))]) g.forEachOut(i, (t, w, r, e) => g.isEdgeAlive(e) && take(key(i, t, r, w)));
  g.forEachIn(fileIdx, (src, w, r, e) => {
    if (g.isEdgeAlive(e) && r === RELATION_CODE.contains && g.node(src)?.kind === 'module') take(key(src, fileIdx, r, w));
  });
  return !extra && missing === 0;
}

/** The folder node for a directory, or its nearest ancestor the graph has (-1 when none). */
function nearestModule(g: CodeGraph, dir: string): number {
  for (let d = dir === '.' ? '' : dir; ; d = posix.dirname(d) === '.' ? '' : posix.dirname(d)) {
    const i = g.indexOf(moduleNodeId(d));
    if (i >= 0 || d === '') return i;
  }
}
