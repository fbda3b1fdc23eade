/** A bounded walk along calls (and interface dispatches), the path kernel of taint_trace and flow_simulate. */
import { edgeConfidence, RELATION_CODE, type CodeGraph } from '../graph/api.ts';

const FOLLOW = new Uint8Array(32);
FOLLOW[RELATION_CODE.calls] = 1;
FOLLOW[RELATION_CODE.dispatches] = 1;

/** What a walk reached: predecessor per node (-2 = not reached, -1 = the entry), path probability, visit order. */
export interface Reached {
  prev: Int32Array;
  prob: Float64Array;
  order: number[];
}

/**
 * Breadth-first along calls and dispatches from `entry`; nodes for which `stopAt` holds are reached
 * but not expanded; `firstHop`, when given, keeps only the entry's edges to the targets it accepts.
 */
export function walkCalls(g: CodeGraph, entry: number, maxDepth: number, minProbability: number, stopAt: (node: number) => boolean, firstHop?: (target: number) => boolean): Reached {
  const prev = new Int32Array(g.nodeCapacity).fill(-2);
  const prob = new Float64Array(g.nodeCapacity);
  const depth = new Map<number, number>([[entry, 0]]);
  prev[entry] = -1;
  prob[entry] = 1;
  const order = [entry];
  for (let q = 0; q < order.length; q++) {
    const v = order[q];
    if (depth.get(v)! >= maxDepth) continue;
    if (stopAt(v)) continue;
    for (let k = g.outOffsets[v]; k < g.outOffsets[v + 1]; k++) {
      const e = g.outEdges[k];
      if (!g.edgeAlive[e] || !FOLLOW[g.edgeRelation[e]]) continue;
      const w = g.edgeTarget[e];
      if (prev[w] !== -2 || (firstHop && v === entry && !firstHop(w))) continue;
      const p = prob[v] * edgeConfidence(g, e);
      if (p < minProbability) continue;
      prev[w] = v;
      prob[w] = p;
      depth.set(w, depth.get(v)! + 1);
      order.push(w);
    }
  }
  return { prev, prob, order };
}

/** Node ids from the entry to `v` along the walk. */
export function callPath(g: CodeGraph, r: Reached, v: number): string[] {
  const out: string[] = [];
  for (let x = v; x >= 0; x = r.prev[x]) out.push(g.node(x)!.id);
  return out.reverse();
}

