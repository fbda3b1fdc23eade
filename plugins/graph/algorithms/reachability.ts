/**
 * Reachability over "use" edges, the `counterfactual` kernel. A node is *used* when something
 * imports, calls, references, inherits or implements it, or when it is a member of a used class;
 * nodes nobody uses are the entry points (scripts, public API, tests, dead code). Removing nodes
 * (with everything they contain) and walking again from the same entry points shows what is left
 * unreachable: code only the removed nodes led to. Directory containment never counts as use.
 */
import { RELATION_CODE, type CodeGraph } from '../engine/graph.ts';
import { edgeConfidence } from './confidence.ts';
import { runSteps, runStepsPaced } from '../engine/steps.ts';
import { CONTAINS, descendants, ensureFinal, KIND_CODE, kindCodes } from './graph-facts.ts';

const USE = new Uint8Array(16);
for (const r of ['imports', 'calls', 'references', 'inherits', 'implements'] as const) USE[RELATION_CODE[r]] = 1;
const MEMBER_HOLDERS = new Uint8Array(256);
for (const k of ['class', 'interface', 'type'] as const) MEMBER_HOLDERS[KIND_CODE[k]] = 1;

/** True when an edge means "source uses target" (see the module comment). */
export function isUseEdge(g: CodeGraph, kinds: Uint8Array, edge: number): boolean {
  const r = g.edgeRelation[edge];
  if (USE[r]) return g.edgeSource[edge] !== g.edgeTarget[edge];
  return r === CONTAINS && MEMBER_HOLDERS[kinds[g.edgeSource[edge]]] === 1;
}

interface ReachCache {
  version: number;
  entries: Uint8Array;
  reach: Uint8Array;
  reachCount: number;
}
const cache = new WeakMap<CodeGraph, ReachCache>();

/** Entry points (1 = nobody uses it) and what they reach on the intact graph; cached per graph version. */
export function baselineReach(g: CodeGraph): ReachCache {
  ensureFinal(g);
  return runSteps(baselineSteps(g));
}

/** Elements (edges looked at, nodes walked) between two steps: each step well under a millisecond. */
const PER_STEP = 16_384;

function* baselineSteps(g: CodeGraph): Generator<void, ReachCache> {
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit;
  const version = g.version;
  const n = g.nodeCapacity;
  const kinds = kindCodes(g);
  const used = new Uint8Array(n);
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & (PER_STEP - 1)) === PER_STEP - 1) yield;
    if (g.edgeAlive[e] && isUseEdge(g, kinds, e)) used[g.edgeTarget[e]] = 1;
  }
  const entries = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (!used[i] && g.node(i)) entries[i] = 1;
  yield;
  const { seen, count } = yield* walkSteps(g, kinds, entries, null);
  const c = { version, entries, reach: seen, reachCount: count };
  cache.set(g, c);
  return c;
}

function* walkSteps(g: CodeGraph, kinds: Uint8Array, entries: Uint8Array, mask: Uint8Array | null): Generator<void, { seen: Uint8Array; count: number }> {
  const n = g.nodeCapacity;
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) {
    if (entries[i] && !(mask && mask[i])) {
      seen[i] = 1;
      queue[tail++] = i;
    }
  }
  const { outOffsets, outEdges, edgeTarget } = g;
  const limit = outOffsets.length - 1;
  while (head < tail) {
    if ((head & (PER_STEP - 1)) === PER_STEP - 1) yield;
    const u = queue[head++];
    if (u >= limit) continue;
    for (let k = outOffsets[u]; k < outOffsets[u + 1]; k++) {
      const e = outEdges[k];
      const v = edgeTarget[e];
      if (seen[v] || (mask && mask[v]) || !isUseEdge(g, kinds, e)) continue;
      seen[v] = 1;
      queue[tail++] = v;
    }
  }
  return { seen, count: tail };
}

export interface RemovalSimulation {
  /** Removed nodes: the given ones and everything they contain. */
  removed: number[];
  /** Nodes outside the removal with a use/tests/documents edge into it (containment aside): [dependent, its most confident such edge]. */
  broken: { node: number; edge: number }[];
  /** Nodes every one of whose users was removed (the first ring of the cascade). */
  directOrphans: number[];
  /** Nodes reachable from the entry points before and not after (the whole cascade), excluding removed ones. */
  orphaned: number[];
  reachableBefore: number;
  reachableAfter: number;
}

/** Simulates removing nodes (and their contents) and reports what breaks and what becomes unreachable. */
export function simulateRemoval(g: CodeGraph, nodes: readonly number[]): RemovalSimulation {
  ensureFinal(g);
  return runSteps(removalSteps(g, nodes));
}

/**
 * `simulateRemoval` run between `pace()`s (walks of a stdlib-sized graph held the loop 30-60 ms per
 * removal). The graph changing meanwhile starts it again on the new version (node indices are only
 * valid within one); after three such restarts it finishes in one go.
 */
export async function simulateRemovalPaced(g: CodeGraph, nodes: readonly number[], pace: () => Promise<void>): Promise<RemovalSimulation> {
  for (let attempt = 0; attempt < 3; attempt++) {
    ensureFinal(g);
    const version = g.version;
    const sim = await runStepsPaced(removalSteps(g, nodes), pace, () => g.version !== version || g.needsFinalize);
    if (sim) return sim;
  }
  return simulateRemoval(g, nodes);
}

function* removalSteps(g: CodeGraph, nodes: readonly number[]): Generator<void, RemovalSimulation> {
  const base = yield* baselineSteps(g);
  const kinds = kindCodes(g);
  const n = g.nodeCapacity;
  const mask = new Uint8Array(n);
  const removed: number[] = [];
  for (const i of nodes) {
    if (mask[i]) continue;
    mask[i] = 1;
    removed.push(i);
    for (const d of descendants(g, i)) {
      if (!mask[d]) {
        mask[d] = 1;
        removed.push(d);
      }
    }
  }
  const broken: { node: number; edge: number }[] = [];
  const brokenSeen = new Map<number, number>();
  const directOrphans: number[] = [];
  const tests = RELATION_CODE.tests;
  const documents = RELATION_CODE.documents;
  const candidates = new Set<number>();
  let looked = 0;
  for (const r of removed) {
    if ((++looked & 1023) === 0) yield;
    if (r + 1 >= g.inOffsets.length) continue;
    for (let k = g.inOffsets[r]; k < g.inOffsets[r + 1]; k++) {
      const e = g.inEdges[k];
      const src = g.edgeSource[e];
      if (mask[src]) continue;
      const rel = g.edgeRelation[e];
      // A container outside the removal loses a part: nothing of it is left dangling.
      if (rel === CONTAINS || !(isUseEdge(g, kinds, e) || rel === tests || rel === documents)) continue;
      // One entry per dependent, through its most confident edge into the removal.
      const at = brokenSeen.get(src);
      if (at === undefined) {
        brokenSeen.set(src, broken.length);
        broken.push({ node: src, edge: e });
      } else if (edgeConfidence(g, e) > edgeConfidence(g, broken[at].edge)) broken[at].edge = e;
    }
    for (let k = g.outOffsets[r]; k < g.outOffsets[r + 1]; k++) {
      const e = g.outEdges[k];
      if (isUseEdge(g, kinds, e) && !mask[g.edgeTarget[e]]) candidates.add(g.edgeTarget[e]);
    }
  }
  for (const c of candidates) {
    let users = 0;
    let fromRemoved = 0;
    for (let k = g.inOffsets[c]; k < g.inOffsets[c + 1]; k++) {
      const e = g.inEdges[k];
      if (!isUseEdge(g, kinds, e)) continue;
      users++;
      if (mask[g.edgeSource[e]]) fromRemoved++;
    }
    if (users > 0 && users === fromRemoved) directOrphans.push(c);
  }
  yield;
  const after = yield* walkSteps(g, kinds, base.entries, mask);
  const orphaned: number[] = [];
  for (let i = 0; i < n; i++) if (base.reach[i] && !after.seen[i] && !mask[i]) orphaned.push(i);
  return { removed, broken, directOrphans, orphaned, reachableBefore: base.reachCount, reachableAfter: after.count };
}
