/**
 * The structural dimension's two refinements of a propagation (see query-activation.ts):
 * convergence (a bonus where several activated neighbours meet) and XLR hub cancellation.
 */
import type { CodeGraph } from '../../graph/api.ts';
import { degreeOrder, kindCodes } from '../../graph/api.ts';
import { positionOf, propagate, type Propagation, type PropagationOptions, type Seed } from '../../graph/api.ts';

const CONVERGENCE_NODES = 1000;
const CONVERGENCE_MAX_DEGREE = 256;

/**
 * Adds up to +0.25 where activated neighbours other than the best path's parent also point at a
 * node. Bounded: the strongest CONVERGENCE_NODES settled nodes, hubs (degree > CONVERGENCE_MAX_DEGREE) skipped.
 */
export function addConvergence(g: CodeGraph, p: Propagation, S: Float32Array, relations: Float32Array): void {
  const { outOffsets, outEdges, inOffsets, inEdges, edgeTarget, edgeSource, edgeWeight, edgeRelation } = g;
  const limit = outOffsets.length - 1;
  const count = Math.min(p.count, CONVERGENCE_NODES);
  const bonus = new Float32Array(count);
  for (let k = 0; k < count; k++) {
    const v = p.order[k];
    if (v >= limit) continue;
    if (outOffsets[v + 1] - outOffsets[v] + inOffsets[v + 1] - inOffsets[v] > CONVERGENCE_MAX_DEGREE) continue;
    const parent = p.parent[k];
    let sum = 0;
    for (let j = outOffsets[v]; j < outOffsets[v + 1]; j++) {
      const e = outEdges[j];
      const u = edgeTarget[e];
      if (u !== parent && S[u] > 0) sum += S[u] * edgeWeight[e] * relations[edgeRelation[e]];
    }
    for (let j = inOffsets[v]; j < inOffsets[v + 1]; j++) {
      const e = inEdges[j];
      const u = edgeSource[e];
      if (u !== parent && S[u] > 0) sum += S[u] * edgeWeight[e] * relations[edgeRelation[e]];
    }
    bonus[k] = 0.25 * Math.min(1, sum * 0.6);
  }
  for (let k = 0; k < count; k++) {
    const v = p.order[k];
    S[v] = Math.min(1, S[v] + bonus[k]);
  }
}

/**
 * XLR: anti-seeds are nodes of the seeds' kind and degree that lie outside their two-hop
 * neighbourhood; what a propagation from them also reaches is generic (hubs) and is subtracted
 * at half strength from nodes more than two hops from every seed.
 */
export function cancelHubs(
  g: CodeGraph,
  hot: Propagation,
  seeds: Seed[],
  seedSet: Map<number, number>,
  opts: PropagationOptions,
  S: Float32Array,
): { antiSeeds: number[]; suppressed: number } {
  const kinds = kindCodes(g);
  const { order, rank } = degreeOrder(g);
  const near = (i: number): boolean => {
    const k = positionOf(hot, i);
    return k >= 0 && hot.depth[k] <= 2;
  };
  const anti: Seed[] = [];
  const chosen = new Set<number>();
  for (const seed of [...seeds].sort((a, b) => b.signal - a.signal).slice(0, 3)) {
    const r = rank[seed.index];
    if (r < 0) continue;
    for (let step = 1; step <= 128; step++) {
      const pos = r + (step % 2 ? (step + 1) / 2 : -step / 2);
      if (pos < 0 || pos >= order.length) continue;
      const c = order[pos];
      if (kinds[c] !== kinds[seed.index] || seedSet.has(c) || chosen.has(c) || near(c)) continue;
      chosen.add(c);
      anti.push({ index: c, signal: seed.signal });
      break;
    }
  }
  if (anti.length === 0) return { antiSeeds: [], suppressed: 0 };
  const cold = propagate(g, anti, { ...opts, maxVisits: 1000 });
  let suppressed = 0;
  for (let k = 0; k < cold.count; k++) {
    const v = cold.order[k];
    const hk = positionOf(hot, v);
    if (hk < 0 || hot.depth[hk] <= 2) continue;
    const before = S[v];
    const after = Math.max(0, before - 0.5 * cold.signal[k]);
    if (after < before) {
      suppressed++;
      S[v] = after;
    }
  }
  return { antiSeeds: anti.map((a) => a.index), suppressed };
}
