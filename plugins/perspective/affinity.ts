/**
 * Affinity: connections of a node that the graph does not state but its structure suggests —
 * nodes that share its neighbours (Adamic–Adar over non-containment edges), that sit beside it
 * (same file, same directory), or whose names say the same thing (lexical similarity). Nodes
 * already linked to it by any edge are confirmed, so never offered.
 */
import type { CodeGraphEngine } from '../graph/api.ts';
import type { GraphNode } from '../graph/api.ts';
import { nodeRef, relationOf, round } from './graph-view.ts';

/** Signal weights of an affinity score. */
export const AFFINITY_WEIGHTS = Object.freeze({ shared: 0.5, lexical: 0.3, colocated: 0.2 });
/** Neighbour lists longer than this are hubs: they say little about who is alike, and cost much. */
const HUB = 200;

/** Words of a name: camelCase, snake_case and dotted parts, lower-cased, 3+ letters. */
export function nameTerms(text: string): string[] {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3);
  return [...new Set(words)];
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

/** Probable but unconfirmed connections of `nodeId`, best first. */
export function affinityOf(engine: CodeGraphEngine, nodeId: string, limit = 8) {
  const g = engine.graph;
  const t = g.indexOf(nodeId);
  const target = g.node(t);
  if (t < 0 || !target) return [];
  // Non-containment neighbours (dependencies); any edge at all makes a pair confirmed.
  const neighbours = (i: number): Set<number> => {
    const out = new Set<number>();
    const add = (o: number, e: number) => {
      if (o !== i && relationOf(g, e) !== 'contains') out.add(o);
    };
    g.forEachOut(i, (o, _w, _r, e) => add(o, e));
    g.forEachIn(i, (o, _w, _r, e) => add(o, e));
    return out;
  };
  const linked = new Set<number>([t]);
  g.forEachOut(t, (o) => linked.add(o));
  g.forEachIn(t, (o) => linked.add(o));

  interface Candidate {
    index: number;
    aa: number;
    via: number[];
    lexical: number;
    colocated: 0 | 0.5 | 1;
  }
  const cands = new Map<number, Candidate>();
  const cand = (i: number): Candidate | null => {
    if (linked.has(i)) return null;
    const n = g.node(i);
    if (!n || n.kind === 'module') return null;
    let c = cands.get(i);
    if (!c) cands.set(i, (c = { index: i, aa: 0, via: [], lexical: 0, colocated: 0 }));
    return c;
  };

  for (const n of neighbours(t)) {
    const around = neighbours(n);
    if (around.size > HUB) continue;
    const weight = 1 / Math.log(1 + Math.max(2, around.size));
    for (const m of around) {
      const c = cand(m);
      if (!c) continue;
      c.aa += weight;
      if (c.via.length < 3) c.via.push(n);
    }
  }

  const terms = nameTerms(target.qualifiedName ?? target.label);
  if (terms.length > 0) {
    const hits = engine.seek(terms.join(' '), { topK: 30, minScore: 0, graphRerank: false }).results;
    const best = hits.find((h) => h.id !== nodeId)?.score ?? 0;
    for (const h of hits) {
      if (h.id === nodeId || best <= 0) continue;
      const c = cand(g.indexOf(h.id));
      if (c) c.lexical = Math.min(1, h.score / best);
    }
  }

  let maxAa = 0;
  for (const c of cands.values()) maxAa = Math.max(maxAa, c.aa);
  const ranked = [...cands.values()]
    .map((c) => {
      const n = g.node(c.index)!;
      c.colocated = colocation(target, n);
      const shared = maxAa > 0 ? c.aa / maxAa : 0;
      const score = AFFINITY_WEIGHTS.shared * shared + AFFINITY_WEIGHTS.lexical * c.lexical + AFFINITY_WEIGHTS.colocated * c.colocated;
      return { c, n, shared, score };
    })
    // Sitting side by side alone is not evidence of a connection.
    .filter((x) => x.shared > 0 || x.c.lexical >= 0.3)
    .sort((a, b) => b.score - a.score || a.n.id.localeCompare(b.n.id))
    .slice(0, limit);

  return ranked.map(({ c, n, shared, score }) => {
    const common = nameTerms(n.qualifiedName ?? n.label).filter((w) => terms.includes(w));
    const why: string[] = [];
    if (c.via.length) why.push(`${c.via.length === 1 ? 'shares neighbour' : 'shares neighbours'} ${c.via.map((v) => g.node(v)!.label).join(', ')}`);
    if (common.length) why.push(`names share ${common.map((w) => `"${w}"`).join(', ')}`);
    else if (c.lexical > 0) why.push(`lexically similar (${round(c.lexical)})`);
    if (c.colocated === 1) why.push('same file');
    else if (c.colocated === 0.5) why.push('same directory');
    return {
      node: nodeRef(n),
      score: round(score),
      confidence: score >= 0.5 ? 'probable' : 'possible',
      signals: {
        shared_neighbours: round(shared),
        ...(c.via.length ? { via: c.via.map((v) => g.node(v)!.id) } : {}),
        lexical: round(c.lexical),
        colocated: c.colocated === 1 ? 'same file' : c.colocated === 0.5 ? 'same directory' : 'no',
      },
      why: why.join('; '),
    };
  });
}

function colocation(a: GraphNode, b: GraphNode): 0 | 0.5 | 1 {
  if (a.kind !== 'file' && b.kind !== 'file' && a.path === b.path) return 1;
  const da = a.kind === 'module' ? a.path : dirOf(a.path);
  const db = b.kind === 'module' ? b.path : dirOf(b.path);
  return da === db ? 0.5 : 0;
}
