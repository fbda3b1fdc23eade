/**
 * Finding nodes from what an agent typed: an id, a path, `path:line`, a name or qualified name,
 * and, failing those, a lexical match. Pure functions over the graph (the engine delegates here).
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import type { LexicalIndex } from './lexical-index.ts';

/** A node found by `findNodes`, with how it was matched. */
export interface NodeMatch {
  node: GraphNode;
  score: number;
  via: 'id' | 'path' | 'path_line' | 'label' | 'qualified_name' | 'seek';
}

/** What a lookup may consult beyond the graph: PageRank (tie-breaks) and the seek index (fallback). */
export interface LookupAids {
  pagerank(): Float64Array;
  lexical: LexicalIndex;
}

/**
 * Nodes for an id or free text: exact id, a path (or `path:line` → innermost symbol there),
 * an exact label (case-sensitive, then not), a qualified-name suffix (`Class.method`), then seek.
 */
export function findNodes(g: CodeGraph, text: string, options: { limit?: number; kinds?: readonly NodeKind[] }, aids: LookupAids): NodeMatch[] {
  const limit = options.limit ?? 10;
  const kinds = options.kinds?.length ? new Set(options.kinds) : null;
  const ok = (n: GraphNode | null): n is GraphNode => n !== null && (!kinds || kinds.has(n.kind));
  const q = text.trim();
  if (!q) return [];
  const byId = g.get(q);
  if (ok(byId)) return [{ node: byId, score: 1, via: 'id' }];
  const pathLike = q.replace(/^\.\//, '').replace(/\/+$/, '');
  const lineMatch = /^(.+?):(\d+)(?::\d+)?$/.exec(pathLike);
  if (lineMatch) {
    const n = symbolAt(g, lineMatch[1], Number(lineMatch[2]));
    if (ok(n)) return [{ node: n, score: 1, via: 'path_line' }];
  }
  for (const id of [`file:${pathLike}`, `module:${pathLike}`]) {
    const n = g.get(id);
    if (ok(n)) return [{ node: n, score: 1, via: 'path' }];
  }
  const pr = aids.pagerank();
  const rank = (ms: NodeMatch[]): NodeMatch[] => ms.sort((a, b) => b.score - a.score || a.node.id.localeCompare(b.node.id)).slice(0, limit);
  const exact: NodeMatch[] = [];
  const lower = q.toLowerCase();
  const folded: NodeMatch[] = [];
  const qualified: NodeMatch[] = [];
  const qualifiedSuffix = q.includes('.') || q.includes('::') ? q.replace(/::/g, '.') : null;
  for (const [i, n] of g.nodes()) {
    if (!ok(n)) continue;
    if (n.label === q || (n.kind === 'file' && n.path.endsWith(`/${pathLike}`))) exact.push({ node: n, score: 0.9 + 0.1 * (pr[i] ?? 0), via: 'label' });
    else if (n.label.toLowerCase() === lower) folded.push({ node: n, score: 0.8 + 0.1 * (pr[i] ?? 0), via: 'label' });
    else if (qualifiedSuffix && n.qualifiedName && (n.qualifiedName === qualifiedSuffix || n.qualifiedName.endsWith(`.${qualifiedSuffix}`))) {
      qualified.push({ node: n, score: 0.85 + 0.1 * (pr[i] ?? 0), via: 'qualified_name' });
    }
  }
  const direct = [...exact, ...qualified, ...folded];
  if (direct.length) return rank(direct);
  return aids.lexical
    .query(g, q, pr, { topK: limit, kinds: options.kinds })
    .map((h) => ({ node: g.get(h.id)!, score: h.score * 0.7, via: 'seek' as const }));
}

/** The innermost symbol spanning a line of a file (the file node when none does), or null. */
export function symbolAt(g: CodeGraph, path: string, line: number): GraphNode | null {
  const file = g.get(`file:${path}`);
  if (!file) return null;
  let best: GraphNode = file;
  // Symbols of a file are its contains-descendants; walk down while a child spans the line.
  let current = g.indexOf(file.id);
  for (let depth = 0; depth < 32; depth++) {
    let next = -1;
    g.forEachOut(current, (target, _w, rel) => {
      const n = g.node(target)!;
      if (rel === 0 && n.path === path && n.kind !== 'file' && n.startLine <= line && line <= n.endLine) {
        if (next < 0 || n.endLine - n.startLine < g.node(next)!.endLine - g.node(next)!.startLine) next = target;
      }
    });
    if (next < 0) break;
    best = g.node(next)!;
    current = next;
  }
  return best;
}
