/** Reading an activation's results: why each is there, and the nodes that bridge several of them. */
import type { CodeGraph } from '../../graph/api.ts';
import { KIND_CODE, kindCodes, pathLine, pathTo } from '../../graph/api.ts';
import type { ActivatedNode, ActivationOutcome } from './query-activation.ts';

/** Why a result is there: the words it matched, or its best path from a seed. */
export function explainActivation(g: CodeGraph, outcome: ActivationOutcome, r: ActivatedNode): string {
  const parts: string[] = [];
  if (r.matched.length) parts.push(`matches ${r.matched.join(', ')}`);
  if (outcome.structural && !r.seed) {
    const hops = pathTo(outcome.structural, r.index);
    if (hops.length) parts.push(pathLine(g, hops));
  }
  if (r.learned !== 1) parts.push(`learned ×${r.learned.toFixed(2)}`);
  if (r.boost) parts.push(`boost +${r.boost.toFixed(2)}`);
  return parts.join('; ') || 'activated';
}

/**
 * Nodes outside the results that connect several of them (the reference's "structural holes"):
 * at least two neighbours among the results, ranked by the summed score of those neighbours.
 */
export function bridgingNodes(g: CodeGraph, results: readonly ActivatedNode[], limit: number): { index: number; neighbours: number[]; support: number }[] {
  const inResults = new Map(results.map((r) => [r.index, r.score]));
  const tally = new Map<number, { neighbours: Set<number>; support: number }>();
  const kinds = kindCodes(g);
  const visit = (from: number, to: number): void => {
    if (inResults.has(to) || kinds[to] === KIND_CODE.module) return;
    let t = tally.get(to);
    if (!t) tally.set(to, (t = { neighbours: new Set(), support: 0 }));
    if (!t.neighbours.has(from)) {
      t.neighbours.add(from);
      t.support += inResults.get(from)!;
    }
  };
  for (const r of results) {
    const v = r.index;
    if (v + 1 >= g.outOffsets.length) continue;
    for (let j = g.outOffsets[v]; j < g.outOffsets[v + 1]; j++) visit(v, g.edgeTarget[g.outEdges[j]]);
    for (let j = g.inOffsets[v]; j < g.inOffsets[v + 1]; j++) visit(v, g.edgeSource[g.inEdges[j]]);
  }
  return [...tally]
    .filter(([, t]) => t.neighbours.size >= 2)
    .map(([index, t]) => ({ index, neighbours: [...t.neighbours], support: t.support }))
    .sort((a, b) => b.support - a.support || a.index - b.index)
    .slice(0, limit);
}
