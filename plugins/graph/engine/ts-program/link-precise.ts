/**
 * Maps a file's checker edges onto graph nodes. The source of an edge is the innermost symbol of the
 * file spanning its line (the file node for top-level code); the target is the innermost symbol of
 * `toPath` named `toName` spanning `toLine` — or, when lines moved since the check, the only symbol of
 * that name in the file. Edges whose ends have no node make nothing.
 */
import type { GraphNode } from '../graph.ts';
import { UNRESOLVED, type PreciseEdge, type PreciseRelation } from './protocol.ts';

/** What mapping needs from the builder. */
export interface PreciseLinkContext {
  node(index: number): GraphNode;
  /** Symbol node indices of a file, or undefined when the file is not in the graph. */
  symbolsOf(path: string): Iterable<number> | undefined;
}

/** A mapped edge: node indices and the relation name. */
export interface MappedEdge {
  source: number;
  target: number;
  relation: PreciseRelation;
}

interface Span {
  idx: number;
  label: string;
  start: number;
  end: number;
}

/** Maps checker edges of `path` to node indices (`fileNode` stands for top-level code). */
export function mapPreciseEdges(ctx: PreciseLinkContext, path: string, fileNode: number, edges: readonly PreciseEdge[]): MappedEdge[] {
  const spans = new Map<string, Span[]>();
  const spansOf = (p: string): Span[] => {
    let s = spans.get(p);
    if (s) return s;
    s = [];
    for (const idx of ctx.symbolsOf(p) ?? []) {
      const n = ctx.node(idx);
      if (n.kind !== 'section') s.push({ idx, label: n.label, start: n.startLine, end: n.endLine });
    }
    spans.set(p, s);
    return s;
  };
  const innermost = (list: readonly Span[], line: number, label?: string): number => {
    let best: Span | null = null;
    for (const s of list) {
      if (s.start > line || line > s.end || (label !== undefined && s.label !== label)) continue;
      if (!best || s.end - s.start < best.end - best.start) best = s;
    }
    return best ? best.idx : -1;
  };
  const out: MappedEdge[] = [];
  const own = spansOf(path);
  for (const e of edges) {
    if (e.relation === UNRESOLVED) continue; // a marker for the name-resolved call, not an edge
    const list = spansOf(e.toPath);
    let target = innermost(list, e.toLine, e.toName);
    if (target < 0) {
      const named = list.filter((s) => s.label === e.toName);
      if (named.length === 1) target = named[0].idx;
    }
    if (target < 0) continue;
    const inner = innermost(own, e.line);
    out.push({ source: inner < 0 ? fileNode : inner, target, relation: e.relation as PreciseRelation });
  }
  return out;
}

/** The member calls the checker found no declaration for, as `line\0name` keys (see UNRESOLVED). */
export function unresolvedCallSites(edges: readonly PreciseEdge[]): Set<string> {
  const out = new Set<string>();
  for (const e of edges) if (e.relation === UNRESOLVED) out.add(`${e.line}\0${e.toName}`);
  return out;
}
