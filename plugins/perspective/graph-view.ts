/**
 * How the perspective verbs read the code graph: through the `graph` service only (types from the
 * graph plugin, never its code), with engine errors turned into host errors.
 */
import type { CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { CodeGraphEngine } from '../graph/api.ts';
import type { CodeGraph, GraphNode, Relation } from '../graph/api.ts';
import { nodeRef } from '../graph/api.ts';
export { nodeRef };

/** The graph's relation names (kept in step with the graph plugin's `Relation` type by the check below). */
export const RELATION_NAMES = ['contains', 'imports', 'calls', 'references', 'inherits', 'implements', 'tests', 'documents', 'co_changes', 'dispatches'] as const satisfies readonly Relation[];
// Fails to compile if the graph gains a relation this list lacks.
const everyRelation: Record<Exclude<Relation, (typeof RELATION_NAMES)[number]>, never> = {};
void everyRelation;

/** The graph service of the calling generation. */
export function graphService(call: Pick<CallContext, 'service'>): GraphService {
  return call.service<GraphService>('graph');
}



/** Relation name of an edge (by its id, through the graph's own edge record). */
export function relationOf(g: CodeGraph, edge: number): Relation {
  return g.edge(edge)!.relation;
}

/** One edge between two nodes, read as a sentence from the first node's side. */
export interface Link {
  relation: Relation;
  /** `out`: from → to; `in`: to → from. */
  direction: 'out' | 'in';
  weight: number;
}

/** Every edge between `from` and `to`, both directions. */
export function linksBetween(g: CodeGraph, from: string, to: string): Link[] {
  const a = g.indexOf(from);
  const b = g.indexOf(to);
  if (a < 0 || b < 0) return [];
  const out: Link[] = [];
  g.forEachOut(a, (t, w, _r, e) => {
    if (t === b) out.push({ relation: relationOf(g, e), direction: 'out', weight: round(w) });
  });
  g.forEachIn(a, (s, w, _r, e) => {
    if (s === b) out.push({ relation: relationOf(g, e), direction: 'in', weight: round(w) });
  });
  return out;
}

/** "focus calls target" / "target tests focus": an edge in words. */
export function describeLink(l: Pick<Link, 'relation' | 'direction'>, from = 'focus', to = 'target'): string {
  const verb = l.relation === 'co_changes' ? 'co-changes with' : l.relation;
  return l.direction === 'out' ? `${from} ${verb} ${to}` : `${to} ${verb} ${from}`;
}

const centralityCache = new WeakMap<Float64Array, (index: number) => number>();

/** PageRank (already max-normalised by the engine) log-compressed into [0,1], per node index. */
export function centralityOf(engine: CodeGraphEngine): (index: number) => number {
  const scores = engine.pagerank().scores;
  let f = centralityCache.get(scores);
  if (!f) {
    f = (i) => Math.log1p(99 * (scores[i] ?? 0)) / Math.log(100);
    centralityCache.set(scores, f);
  }
  return f;
}

/** Lexical relevance of nodes to a query, normalised to the best hit (graph centrality left out). */
export function relevanceOf(engine: CodeGraphEngine, query: string, topK = 300): Map<string, number> {
  const hits = engine.seek(query, { topK, minScore: 0, graphRerank: false }).results;
  const best = hits.reduce((m, h) => Math.max(m, h.score), 0);
  return new Map(hits.map((h) => [h.id, best > 0 ? h.score / best : 0]));
}

/** Rounds to three decimals (scores as agents read them). */
export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** A node by id as shown to agents, or a marker that it left the graph (deleted or renamed since). */
export function refOrMissing(g: CodeGraph, id: string) {
  const n = g.get(id);
  return n ? nodeRef(n) : { id, missing: true as const };
}
