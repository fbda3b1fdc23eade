/**
 * Explaining paths between two nodes (the `why` kernel). Edges are walked in both directions
 * (directory containment never: "same folder" explains nothing); a hop costs 1 plus -ln(weight)
 * (a strong call is cheaper than a weak reference) plus a small toll for entering a hub, so the
 * best path is short *and* specific.
 * Bidirectional Dijkstra meets in the middle, bounded by `maxHops` and a visit cap; when the
 * cheapest route is longer than `maxHops`, a hop-minimal bidirectional BFS answers instead.
 * Alternatives come from re-running with the edges already used made more expensive, and are kept
 * while their cost stays within twice the best path's (plus one hop).
 */
import type { CodeGraph } from '../engine/graph.ts';
import { confidenceOf } from './confidence.ts';
import { components, ensureFinal, isStructuralContains, kindCodes } from './graph-facts.ts';
import { NodeScratch } from './heap.ts';
import type { Hop } from './propagation.ts';

export interface PathOptions {
  maxHops: number;
  /** Paths to return at most (the best one first). */
  k?: number;
  /**
   * Nodes the weighted search settles at most (default 6000; alternatives get half). Past it, the
   * best meeting found so far is returned (flagged `bounded`), or the hop-minimal path.
   */
  maxVisits?: number;
  /** Toll per ln(1 + degree) for entering an intermediate node (default 0.12). */
  hubToll?: number;
  /** Edges resolved below this confidence are not walked (default 0: all are). */
  minConfidence?: number;
}

export interface FoundPath {
  hops: Hop[];
  /** Product of the edge weights along the path. */
  strength: number;
  cost: number;
}

export interface PathSearch {
  paths: FoundPath[];
  /** False when the two nodes are in different connected components (no path at any length). */
  connected: boolean;
  /** True when a visit cap stopped a search: the paths are the best found within the bound. */
  truncated: boolean;
  /** Nodes settled over all searches. */
  visited: number;
}

const fwd = new NodeScratch();
const bwd = new NodeScratch();

/** Up to `k` explaining paths from `source` to `target` of at most `maxHops` hops, best first. */
export function explainPaths(g: CodeGraph, source: number, target: number, o: PathOptions): PathSearch {
  ensureFinal(g);
  const comp = components(g);
  const out: PathSearch = { paths: [], connected: true, truncated: false, visited: 0 };
  if (source === target) {
    out.paths.push({ hops: [], strength: 1, cost: 0 });
    return out;
  }
  if (comp[source] !== comp[target]) {
    out.connected = false;
    return out;
  }
  const k = Math.max(1, o.k ?? 1);
  const penalty = new Map<number, number>();
  const seen = new Set<string>();
  const cap = o.maxVisits ?? 6000;
  const minConfidence = o.minConfidence ?? 0;
  // An edge below the confidence floor is not walked by either search.
  const weak = (e: number): boolean => minConfidence > 0 && confidenceOf(g.edgeRelation[e], g.edgeWeight[e]) < minConfidence;
  for (let attempt = 0; attempt < k + 2 && out.paths.length < k; attempt++) {
    const r = dijkstra(g, source, target, { ...o, maxVisits: attempt === 0 ? cap : cap >> 1 }, penalty, weak);
    out.visited += r.visited;
    out.truncated ||= r.truncated;
    // A meeting checked against max_hops can be rebuilt longer: a label the search lowered afterwards
    // (a cheaper route with more hops) replaces the one the check saw. Such a path is not returned.
    const fits = r.hops !== null && r.hops.length <= o.maxHops && r.hops[0].from === source && r.hops[r.hops.length - 1].to === target;
    if (r.hops && !fits && attempt > 0) {
      for (const h of r.hops) penalty.set(h.edge, (penalty.get(h.edge) ?? 0) + 3);
      continue;
    }
    let hops = fits ? r.hops : null;
    if (!hops && attempt === 0) {
      const b = hopMinimal(g, source, target, o.maxHops, 200_000, weak);
      out.visited += b.visited;
      out.truncated ||= b.truncated;
      hops = b.hops;
    }
    if (!hops) break;
    const key = hops.map((h) => h.edge).join(',');
    const found = describe(g, hops);
    // An alternative is worth showing only while it is not much weaker than the best path.
    if (out.paths.length > 0 && found.cost > 2 * out.paths[0].cost + 1) break;
    if (!seen.has(key)) {
      seen.add(key);
      out.paths.push(found);
    }
    for (const h of hops) penalty.set(h.edge, (penalty.get(h.edge) ?? 0) + 3);
  }
  return out;
}

function describe(g: CodeGraph, hops: Hop[]): FoundPath {
  let strength = 1;
  let cost = 0;
  for (const h of hops) {
    const w = g.edgeWeight[h.edge];
    strength *= w;
    cost += edgeCost(w);
  }
  return { hops, strength, cost };
}

function edgeCost(w: number): number {
  return 1 + -Math.log(Math.max(1e-3, Math.min(1, w)));
}

/** Bidirectional Dijkstra over the undirected view; returns the hops or null. */
function dijkstra(g: CodeGraph, s: number, t: number, o: PathOptions, penalty: Map<number, number>, weak: (edge: number) => boolean): { hops: Hop[] | null; visited: number; truncated: boolean } {
  const n = g.nodeCapacity;
  const kinds = kindCodes(g);
  const hubToll = o.hubToll ?? 0.12;
  const maxVisits = o.maxVisits ?? 6000;
  const ef = fwd.begin(n);
  const eb = bwd.begin(n);
  const sides = [
    { sc: fwd, epoch: ef, other: bwd, otherEpoch: eb, origin: s, end: t },
    { sc: bwd, epoch: eb, other: fwd, otherEpoch: ef, origin: t, end: s },
  ];
  for (const start of sides) {
    const { sc, epoch, origin } = start;
    sc.stamp[origin] = epoch;
    sc.value[origin] = 0;
    sc.depth[origin] = 0;
    sc.parent[origin] = -1;
    sc.parentEdge[origin] = -1;
    sc.heap.push(-0, origin);
  }
  let best = Infinity;
  let meetU = -1;
  let meetV = -1;
  let meetEdge = -1;
  let meetBackward = false;
  let visited = 0;
  let truncated = false;
  const { outOffsets, outEdges, inOffsets, inEdges, edgeTarget, edgeSource, edgeWeight } = g;
  const limit = outOffsets.length - 1;
  const toll = (v: number): number => (v === s || v === t ? 0 : hubToll * Math.log1p(outOffsets[v + 1] - outOffsets[v] + inOffsets[v + 1] - inOffsets[v]));

  let side = sides[0];
  let u = 0;
  let du = 0;
  let hu = 0;
  const usePenalty = penalty.size > 0;
  const relax = (v: number, e: number, walkedBackward: boolean): void => {
    const { sc, epoch, other, otherEpoch } = side;
    // Directory containment says "same folder", not how two pieces of code are connected.
    if (isStructuralContains(g, kinds, e) || weak(e)) return;
    let c = edgeCost(edgeWeight[e]);
    if (usePenalty) c += penalty.get(e) ?? 0;
    if (other.stamp[v] === otherEpoch && hu + 1 + other.depth[v] <= o.maxHops) {
      const total = du + c + other.value[v];
      if (total < best) {
        best = total;
        meetEdge = e;
        if (sc === fwd) {
          meetU = u;
          meetV = v;
          meetBackward = walkedBackward;
        } else {
          meetU = v;
          meetV = u;
          meetBackward = !walkedBackward;
        }
      }
    }
    if (sc.done[v] === epoch) return;
    const dv = du + c + toll(v);
    if (sc.stamp[v] === epoch && dv >= sc.value[v]) return;
    sc.stamp[v] = epoch;
    sc.value[v] = dv;
    sc.depth[v] = hu + 1;
    sc.parent[v] = u;
    sc.parentEdge[v] = e;
    sc.backward[v] = walkedBackward ? 1 : 0;
    sc.heap.push(-dv, v);
  };

  while (fwd.heap.size > 0 || bwd.heap.size > 0) {
    const topF = fwd.heap.size > 0 ? -fwd.heap.peekKey() : Infinity;
    const topB = bwd.heap.size > 0 ? -bwd.heap.peekKey() : Infinity;
    if (topF + topB >= best) break;
    if (visited >= maxVisits) {
      truncated = true;
      break;
    }
    side = topF <= topB ? sides[0] : sides[1];
    const { sc, epoch } = side;
    u = sc.heap.pop();
    du = -sc.heap.lastKey;
    if (sc.done[u] === epoch || du > sc.value[u]) continue;
    sc.done[u] = epoch;
    visited++;
    if (u >= limit) continue;
    hu = sc.depth[u];
    if (hu >= o.maxHops) continue;
    for (let k = outOffsets[u]; k < outOffsets[u + 1]; k++) {
      const e = outEdges[k];
      relax(edgeTarget[e], e, false);
    }
    for (let k = inOffsets[u]; k < inOffsets[u + 1]; k++) {
      const e = inEdges[k];
      relax(edgeSource[e], e, true);
    }
  }
  if (meetEdge < 0) return { hops: null, visited, truncated };
  // Forward half: s … meetU, then the meeting edge, then meetV … t from the backward labels.
  const front: Hop[] = [];
  for (let v = meetU; fwd.parent[v] >= 0 && fwd.stamp[v] === ef; v = fwd.parent[v]) {
    front.push({ from: fwd.parent[v], to: v, edge: fwd.parentEdge[v], backward: fwd.backward[v] === 1 });
    if (front.length > o.maxHops) break;
  }
  front.reverse();
  const hops = [...front, { from: meetU, to: meetV, edge: meetEdge, backward: meetBackward }];
  for (let v = meetV; bwd.parent[v] >= 0 && bwd.stamp[v] === eb; v = bwd.parent[v]) {
    // The backward search walked parent → v; walking it toward t flips the direction.
    hops.push({ from: v, to: bwd.parent[v], edge: bwd.parentEdge[v], backward: bwd.backward[v] !== 1 });
    if (hops.length > o.maxHops + 1) break;
  }
  return { hops, visited, truncated };
}

/** Hop-minimal path by bidirectional BFS (level by level, smaller frontier first), or null. */
function hopMinimal(g: CodeGraph, s: number, t: number, maxHops: number, maxVisits: number, weak: (edge: number) => boolean): { hops: Hop[] | null; visited: number; truncated: boolean } {
  const n = g.nodeCapacity;
  const kinds = kindCodes(g);
  const ef = fwd.begin(n);
  const eb = bwd.begin(n);
  const { outOffsets, outEdges, inOffsets, inEdges, edgeTarget, edgeSource } = g;
  const limit = outOffsets.length - 1;
  fwd.stamp[s] = ef;
  fwd.parent[s] = -1;
  fwd.depth[s] = 0;
  bwd.stamp[t] = eb;
  bwd.parent[t] = -1;
  bwd.depth[t] = 0;
  let frontF = [s];
  let frontB = [t];
  let hopsF = 0;
  let hopsB = 0;
  let visited = 0;
  while (frontF.length && frontB.length && hopsF + hopsB < maxHops) {
    if (visited > maxVisits) return { hops: null, visited, truncated: true };
    const forward = frontF.length <= frontB.length;
    const sc = forward ? fwd : bwd;
    const epoch = forward ? ef : eb;
    const other = forward ? bwd : fwd;
    const otherEpoch = forward ? eb : ef;
    const next: number[] = [];
    for (const u of forward ? frontF : frontB) {
      visited++;
      if (u >= limit) continue;
      const visit = (v: number, e: number, walkedBackward: boolean): boolean => {
        if (sc.stamp[v] === epoch || isStructuralContains(g, kinds, e) || weak(e)) return false;
        sc.stamp[v] = epoch;
        sc.parent[v] = u;
        sc.parentEdge[v] = e;
        sc.backward[v] = walkedBackward ? 1 : 0;
        next.push(v);
        return other.stamp[v] === otherEpoch;
      };
      let meet = -1;
      for (let k = outOffsets[u]; k < outOffsets[u + 1] && meet < 0; k++) if (visit(edgeTarget[outEdges[k]], outEdges[k], false)) meet = edgeTarget[outEdges[k]];
      for (let k = inOffsets[u]; k < inOffsets[u + 1] && meet < 0; k++) if (visit(edgeSource[inEdges[k]], inEdges[k], true)) meet = edgeSource[inEdges[k]];
      if (meet >= 0) {
        const front: Hop[] = [];
        for (let v = meet; fwd.parent[v] >= 0; v = fwd.parent[v]) front.push({ from: fwd.parent[v], to: v, edge: fwd.parentEdge[v], backward: fwd.backward[v] === 1 });
        front.reverse();
        for (let v = meet; bwd.parent[v] >= 0; v = bwd.parent[v]) front.push({ from: v, to: bwd.parent[v], edge: bwd.parentEdge[v], backward: bwd.backward[v] !== 1 });
        return { hops: front, visited, truncated: false };
      }
    }
    if (forward) {
      frontF = next;
      hopsF++;
    } else {
      frontB = next;
      hopsB++;
    }
  }
  return { hops: null, visited, truncated: false };
}
