/**
 * Bounded weighted propagation, the kernel behind activate, impact, warmup, missing and the diagram
 * neighbourhood. A signal leaves the seeds and crosses each edge multiplied by the edge's weight, the
 * relation's multiplier and a per-hop decay; a node keeps the strongest arrival (max-product path).
 * It runs best-first (a max-heap on signal), so nodes are settled strongest first, every settled
 * node knows the exact best path back to a seed, and the work stops at a threshold, a depth or a
 * visit cap — never at "the whole graph". The graph is only read: weights are never changed here.
 */
import type { CodeGraph } from '../engine/graph.ts';
import { CONTAINS, ensureFinal, KIND_CODE, kindCodes } from './graph-facts.ts';
import { NodeScratch } from './heap.ts';
import type { RelationProfile } from './relations.ts';

/** Which edges a signal crosses: along their direction, against it, or both. */
export type Direction = 'out' | 'in' | 'both';

/** One starting node and its initial signal (0..1]. */
export interface Seed {
  index: number;
  signal: number;
}

export interface PropagationOptions {
  direction: Direction;
  /** Multiplier per relation code (0 = not walked). */
  relations: RelationProfile;
  /** Multiplier per hop (0..1). */
  decay: number;
  /** Signals below this are dropped (0..1). */
  threshold: number;
  /** Hops from the nearest seed, at most. */
  maxDepth: number;
  /** Nodes settled at most (the visit cap); the result says when it was hit. */
  maxVisits: number;
  /** Multiplier for directory containment (module → file/module); 0 skips it. Default 0. */
  moduleContains?: number;
  /** With `both`: multiplier for edges walked against their direction. Default 1. */
  backwardFactor?: number;
  /**
   * Hub damping: a node with more than `fanout` edges in the walked direction passes on only
   * sqrt(fanout / degree) of its signal, so a hub does not light up all its neighbours. 0 = off.
   */
  fanout?: number;
  /** Per-edge multipliers by edge id (learned weights); the product with the weight is capped at 1. */
  edgeFactor?: Float32Array | null;
  /** Nodes treated as absent (1 = removed): never entered, never left. */
  mask?: Uint8Array | null;
}

/** The settled nodes of one propagation, strongest first, with the best path back to a seed. */
export interface Propagation {
  /** Settled node indices in settling order (descending signal). */
  order: Int32Array;
  signal: Float32Array;
  depth: Uint16Array;
  /** Previous node on the best path (-1 for seeds). */
  parent: Int32Array;
  /** Edge id used to arrive (-1 for seeds). */
  parentEdge: Int32Array;
  /** 1 when that edge was walked against its direction. */
  backward: Uint8Array;
  /** The seed each node's best path starts from. */
  origin: Int32Array;
  /**
   * For seeds: the strongest signal that reached them from a *different* seed (how connected a
   * seed is to the others, its own signal and echoes of it excluded); 0 for other nodes. A seed
   * reached more strongly from another seed than by its own signal takes that path (and origin).
   */
  cross: Float32Array;
  count: number;
  /** True when the visit cap stopped the walk before the threshold or depth did. */
  truncated: boolean;
  /** Edges examined. */
  relaxations: number;
}

/** One hop of a path: the real edge and whether it was walked against its direction. */
export interface Hop {
  from: number;
  to: number;
  edge: number;
  backward: boolean;
}

const scratch = new NodeScratch();

/** Sizes propagation's scratch arrays for a graph ahead of a first run (~6 MB zeroed on a stdlib-sized graph). */
export function reservePropagation(g: CodeGraph): void {
  scratch.begin(g.nodeCapacity);
}

/** Runs a bounded best-first propagation from the seeds (see the module comment). */
export function propagate(g: CodeGraph, seeds: readonly Seed[], o: PropagationOptions): Propagation {
  ensureFinal(g);
  const n = g.nodeCapacity;
  const s = scratch;
  const epoch = s.begin(n);
  const { stamp, done, value, depth, parent, parentEdge, backward, origin, cross, seed: seedMark, heap } = s;
  const mask = o.mask ?? null;
  const ef = o.edgeFactor ?? null;
  const rel = o.relations;
  const kinds = kindCodes(g);
  const moduleCode = KIND_CODE.module;
  const moduleContains = o.moduleContains ?? 0;
  const backwardFactor = o.backwardFactor ?? 1;
  const fanout = o.fanout ?? 0;
  const walkOut = o.direction !== 'in';
  const walkIn = o.direction !== 'out';
  const { outOffsets, outEdges, inOffsets, inEdges, edgeTarget, edgeSource, edgeWeight, edgeRelation } = g;
  const limitOffsets = outOffsets.length - 1;

  for (const seed of seeds) {
    const i = seed.index;
    if (i < 0 || i >= n || (mask && mask[i]) || !(seed.signal > 0)) continue;
    if (stamp[i] === epoch && value[i] >= seed.signal) continue;
    stamp[i] = epoch;
    value[i] = Math.min(1, seed.signal);
    depth[i] = 0;
    parent[i] = -1;
    parentEdge[i] = -1;
    backward[i] = 0;
    origin[i] = i;
    cross[i] = 0;
    seedMark[i] = epoch;
    heap.push(value[i], i);
  }

  const order: number[] = [];
  let relaxations = 0;
  let truncated = false;
  const threshold = o.threshold;

  while (heap.size > 0) {
    const u = heap.pop();
    const su = heap.lastKey;
    if (done[u] === epoch || su < value[u]) continue;
    if (order.length >= o.maxVisits) {
      truncated = true;
      break;
    }
    done[u] = epoch;
    order.push(u);
    if (depth[u] >= o.maxDepth || u >= limitOffsets) continue;
    let base = su * o.decay;
    if (fanout > 0) {
      const deg = (walkOut ? outOffsets[u + 1] - outOffsets[u] : 0) + (walkIn ? inOffsets[u + 1] - inOffsets[u] : 0);
      if (deg > fanout) base *= Math.sqrt(fanout / deg);
    }
    if (base < threshold) continue;
    const du = depth[u] + 1;
    if (walkOut) {
      const fromModule = kinds[u] === moduleCode;
      for (let k = outOffsets[u], end = outOffsets[u + 1]; k < end; k++) {
        const e = outEdges[k];
        relaxations++;
        const v = edgeTarget[e];
        if (mask !== null && mask[v]) continue;
        const isSeed = seedMark[v] === epoch;
        if (done[v] === epoch && !isSeed) continue;
        const r = edgeRelation[e];
        let m = rel[r];
        if (r === CONTAINS && fromModule) m = moduleContains;
        if (m === 0) continue;
        let w = edgeWeight[e] * m;
        if (ef !== null) w *= ef[e];
        const sig = base * (w > 1 ? 1 : w);
        if (isSeed) {
          if (origin[u] !== v && sig > cross[v]) cross[v] = sig;
          if (done[v] === epoch) continue;
        }
        if (sig < threshold || (stamp[v] === epoch && sig <= value[v])) continue;
        stamp[v] = epoch;
        value[v] = sig;
        depth[v] = du;
        parent[v] = u;
        parentEdge[v] = e;
        backward[v] = 0;
        origin[v] = origin[u];
        heap.push(sig, v);
      }
    }
    if (walkIn) {
      const b = base * backwardFactor;
      if (b < threshold) continue;
      for (let k = inOffsets[u], end = inOffsets[u + 1]; k < end; k++) {
        const e = inEdges[k];
        relaxations++;
        const v = edgeSource[e];
        if (mask !== null && mask[v]) continue;
        const isSeed = seedMark[v] === epoch;
        if (done[v] === epoch && !isSeed) continue;
        const r = edgeRelation[e];
        let m = rel[r];
        if (r === CONTAINS && kinds[v] === moduleCode) m = moduleContains;
        if (m === 0) continue;
        let w = edgeWeight[e] * m;
        if (ef !== null) w *= ef[e];
        const sig = b * (w > 1 ? 1 : w);
        if (isSeed) {
          if (origin[u] !== v && sig > cross[v]) cross[v] = sig;
          if (done[v] === epoch) continue;
        }
        if (sig < threshold || (stamp[v] === epoch && sig <= value[v])) continue;
        stamp[v] = epoch;
        value[v] = sig;
        depth[v] = du;
        parent[v] = u;
        parentEdge[v] = e;
        backward[v] = 1;
        origin[v] = origin[u];
        heap.push(sig, v);
      }
    }
  }

  const count = order.length;
  const result: Propagation = {
    order: Int32Array.from(order),
    signal: new Float32Array(count),
    depth: new Uint16Array(count),
    parent: new Int32Array(count),
    parentEdge: new Int32Array(count),
    backward: new Uint8Array(count),
    origin: new Int32Array(count),
    cross: new Float32Array(count),
    count,
    truncated,
    relaxations,
  };
  for (let i = 0; i < count; i++) {
    const v = order[i];
    result.signal[i] = value[v];
    result.depth[i] = depth[v];
    result.parent[i] = parent[v];
    result.parentEdge[i] = parentEdge[v];
    result.backward[i] = backward[v];
    result.origin[i] = origin[v];
    result.cross[i] = seedMark[v] === epoch ? cross[v] : 0;
  }
  return result;
}

const positions = new WeakMap<Propagation, Map<number, number>>();

/** Position of a node in a propagation's `order`, or -1 when it was not reached. */
export function positionOf(p: Propagation, index: number): number {
  let map = positions.get(p);
  if (!map) {
    map = new Map();
    for (let i = 0; i < p.count; i++) map.set(p.order[i], i);
    positions.set(p, map);
  }
  return map.get(index) ?? -1;
}

/** Signal a propagation gave a node (0 when not reached). */
export function signalOf(p: Propagation, index: number): number {
  const i = positionOf(p, index);
  return i < 0 ? 0 : p.signal[i];
}

/** The best path from a seed to a reached node, as hops in walking order ([] for a seed or an unreached node). */
export function pathTo(p: Propagation, index: number): Hop[] {
  const hops: Hop[] = [];
  let i = positionOf(p, index);
  let guard = 0;
  while (i >= 0 && p.parent[i] >= 0 && guard++ < 1000) {
    hops.push({ from: p.parent[i], to: p.order[i], edge: p.parentEdge[i], backward: p.backward[i] === 1 });
    i = positionOf(p, p.parent[i]);
  }
  return hops.reverse();
}

/** The seed a reached node's best path starts from (itself for a seed, -1 when not reached). */
export function seedOf(p: Propagation, index: number): number {
  const i = positionOf(p, index);
  return i < 0 ? -1 : p.origin[i];
}
