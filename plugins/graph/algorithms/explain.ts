/**
 * Paths as text for agents. A hop walked along its edge reads `a -calls-> b`; one walked against
 * its edge reads `b <-calls- a` (a calls b). Sentences say the same in words.
 */
import { RELATIONS, type CodeGraph, type GraphNode } from '../engine/graph.ts';
import type { Hop } from './propagation.ts';
import { RELATION_PHRASE } from './relations.ts';

type Name = (n: GraphNode) => string;
const byId: Name = (n) => n.id;
const byLabel: Name = (n) => n.label;

/** The arrow of a hop: `-calls->` along the edge, `<-calls-` against it. */
export function arrow(g: CodeGraph, hop: Hop): string {
  const rel = RELATIONS[g.edgeRelation[hop.edge]];
  return hop.backward ? `<-${rel}-` : `-${rel}->`;
}

/** A path as one line: `a -calls-> b <-imports- c` (labels by default, ids with `ids: true`). */
export function pathLine(g: CodeGraph, hops: readonly Hop[], ids = false): string {
  if (hops.length === 0) return '';
  const name = ids ? byId : byLabel;
  const parts = [name(g.node(hops[0].from)!)];
  for (const h of hops) parts.push(arrow(g, h), name(g.node(h.to)!));
  return parts.join(' ');
}

/** A path as alternating node ids and arrows: [id, arrow, id, …]. */
export function pathTokens(g: CodeGraph, hops: readonly Hop[]): string[] {
  if (hops.length === 0) return [];
  const out = [g.node(hops[0].from)!.id];
  for (const h of hops) out.push(arrow(g, h), g.node(h.to)!.id);
  return out;
}

/** One hop in words: "`b` calls `c`" or, walked backward, "`c` is called by `b`". */
export function hopSentence(g: CodeGraph, hop: Hop): string {
  const rel = RELATIONS[g.edgeRelation[hop.edge]];
  const [fwd, bwd] = RELATION_PHRASE[rel];
  const from = g.node(hop.from)!;
  const to = g.node(hop.to)!;
  return `\`${from.label}\` ${hop.backward ? bwd : fwd} \`${to.label}\``;
}
