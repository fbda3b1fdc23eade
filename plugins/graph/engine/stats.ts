/**
 * Graph statistics cached per graph version: weighted PageRank (warm-started from the previous
 * vector after an incremental change), degrees, and lines of code per node.
 */
import type { CodeGraph } from './graph.ts';
import { SliceClock } from './steps.ts';

/** PageRank settings (defaults: damping 0.85, 100 iterations at most, L1 tolerance 1e-5: ranks only order results). */
export interface PageRankOptions {
  damping?: number;
  maxIterations?: number;
  tolerance?: number;
}

/** A PageRank vector by node index (empty slots are 0), normalised so the maximum is 1. */
export interface PageRankResult {
  scores: Float64Array;
  iterations: number;
  version: number;
}

/**
 * Weighted PageRank: a node passes rank to its out-neighbours in proportion to edge weights;
 * dangling nodes spread theirs uniformly. Passing the previous result warm-starts the iteration.
 */
export function computePageRank(graph: CodeGraph, options: PageRankOptions = {}, previous?: PageRankResult): PageRankResult {
  const steps = pageRankSteps(graph, options, previous);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/**
 * Node slots visited between two yields of the setup loops and of each iteration: ~1-2 ms, up to
 * ~8 ms with the VM in its slow state (16,384 took up to 28 ms there, a whole small graph per step).
 */
const NODES_PER_YIELD = 4_096;

/**
 * `computePageRank` as a resumable step sequence: it yields after each iteration and every few
 * thousand nodes of the setup and of each iteration, so a caller can run it in slices with the event
 * loop free between them (see PageRankCache.getAsync). The graph must not change between steps.
 * The loops run in the plain functions below, a range per step: V8 never optimises a long loop inside
 * a generator body, where every float is boxed (~3 MB of garbage per iteration on 10K nodes, and
 * several times the time). Sums run in the same order as one loop would, so the scores are the same.
 */
export function* pageRankSteps(graph: CodeGraph, options: PageRankOptions = {}, previous?: PageRankResult): Generator<void, PageRankResult, void> {
  const damping = options.damping ?? 0.85;
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-5;
  if (graph.needsFinalize) graph.finalize();
  const n = graph.nodeCapacity;
  const live = new Uint8Array(n);
  let liveCount = 0;
  for (let from = 0; from < n; from += NODES_PER_YIELD) {
    liveCount += markLive(graph, live, from, Math.min(n, from + NODES_PER_YIELD));
    if (from + NODES_PER_YIELD < n) yield;
  }
  const scores = new Float64Array(n);
  if (liveCount === 0) return { scores, iterations: 0, version: graph.version };
  yield;

  const outWeight = new Float64Array(n);
  const { outOffsets, outEdges, edgeWeight, inOffsets, inEdges, edgeSource } = graph;
  for (let from = 0; from < n; from += NODES_PER_YIELD) {
    sumOutWeights(outOffsets, outEdges, edgeWeight, outWeight, from, Math.min(n, from + NODES_PER_YIELD));
    if (from + NODES_PER_YIELD < n) yield;
  }
  let rank = new Float64Array(n);
  let next = new Float64Array(n);
  initialRanks(rank, live, liveCount, previous);
  yield;
  let iterations = 0;
  const share = new Float64Array(n);
  for (; iterations < maxIterations; iterations++) {
    let dangling = 0;
    for (let from = 0; from < n; from += NODES_PER_YIELD) {
      dangling = spread(rank, outWeight, live, share, from, Math.min(n, from + NODES_PER_YIELD), dangling);
      if (from + NODES_PER_YIELD < n) yield;
    }
    const base = (1 - damping) / liveCount + (damping * dangling) / liveCount;
    let delta = 0;
    for (let from = 0; from < n; from += NODES_PER_YIELD) {
      // An iteration over a big graph is itself many ms: a caller's slice can end inside it.
      delta = gather(inOffsets, inEdges, edgeSource, edgeWeight, share, live, rank, next, base, damping, from, Math.min(n, from + NODES_PER_YIELD), delta);
      if (from + NODES_PER_YIELD < n) yield;
    }
    const swap = rank;
    rank = next;
    next = swap;
    if (delta < tolerance) {
      iterations++;
      break;
    }
    yield;
  }
  normalise(rank, scores);
  return { scores, iterations, version: graph.version };
}

/** Marks the live slots of [from, to) in `live`; returns how many. */
function markLive(graph: CodeGraph, live: Uint8Array, from: number, to: number): number {
  let count = 0;
  // nodeKey: liveness without the namespaced copy a composite graph makes for node().
  for (let i = from; i < to; i++) if (graph.nodeKey(i)) (live[i] = 1), count++;
  return count;
}

/** Out-weight of nodes [from, to). */
function sumOutWeights(outOffsets: Uint32Array, outEdges: Uint32Array, edgeWeight: Float32Array, outWeight: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    let s = 0;
    for (let k = outOffsets[i]; k < outOffsets[i + 1]; k++) s += edgeWeight[outEdges[k]];
    outWeight[i] = s;
  }
}

/** Starting ranks: the previous scores (un-normalised by their sum), new nodes at the uniform value; else uniform. */
function initialRanks(rank: Float64Array, live: Uint8Array, liveCount: number, previous: PageRankResult | undefined): void {
  const n = rank.length;
  const init = 1 / liveCount;
  if (previous && previous.scores.length > 0) {
    let sum = 0;
    for (let i = 0; i < n; i++) if (live[i]) sum += rank[i] = i < previous.scores.length && previous.scores[i] > 0 ? previous.scores[i] : init;
    for (let i = 0; i < n; i++) rank[i] /= sum;
  } else {
    for (let i = 0; i < n; i++) if (live[i]) rank[i] = init;
  }
}

/** Rank each node of [from, to) passes per unit of out-weight (no division in the edge loop); returns `dangling` plus the rank of its dangling nodes. */
function spread(rank: Float64Array, outWeight: Float64Array, live: Uint8Array, share: Float64Array, from: number, to: number, dangling: number): number {
  for (let i = from; i < to; i++) {
    if (outWeight[i] > 0) share[i] = rank[i] / outWeight[i];
    else if (live[i]) dangling += rank[i];
  }
  return dangling;
}

/** The next ranks of nodes [from, to); returns `delta` plus their change. */
function gather(
  inOffsets: Uint32Array, inEdges: Uint32Array, edgeSource: Uint32Array, edgeWeight: Float32Array, share: Float64Array, live: Uint8Array,
  rank: Float64Array, next: Float64Array, base: number, damping: number, from: number, to: number, delta: number,
): number {
  for (let i = from; i < to; i++) {
    if (!live[i]) continue;
    let s = 0;
    for (let k = inOffsets[i]; k < inOffsets[i + 1]; k++) {
      const e = inEdges[k];
      s += share[edgeSource[e]] * edgeWeight[e];
    }
    const v = base + damping * s;
    next[i] = v;
    delta += Math.abs(v - rank[i]);
  }
  return delta;
}

/** Scores scaled so the highest is 1. */
function normalise(rank: Float64Array, scores: Float64Array): void {
  let max = 0;
  for (let i = 0; i < rank.length; i++) if (rank[i] > max) max = rank[i];
  for (let i = 0; i < rank.length; i++) scores[i] = max > 0 ? rank[i] / max : 0;
}

/** Keeps one PageRank per graph version, recomputing (warm) only after the graph changed. */
export class PageRankCache {
  private current: PageRankResult | null = null;

  /** PageRank for the graph's current version. */
  get(graph: CodeGraph): PageRankResult {
    if (graph.needsFinalize) graph.finalize();
    if (!this.current || this.current.version !== graph.version) {
      this.current = computePageRank(graph, {}, this.current ?? undefined);
    }
    return this.current;
  }

  /**
   * `get` without holding the event loop: the iterations run in slices of about `sliceMs` (a
   * background budget, ≤ BACKGROUND_SLICE_MS, shared with the turn's other background work; SliceClock). A graph that changes meanwhile restarts the computation; a `get`
   * meanwhile computes at once (and this one then returns its result).
   */
  async getAsync(graph: CodeGraph, sliceMs = 10): Promise<PageRankResult> {
    for (;;) {
      if (this.current?.version === graph.version && !graph.needsFinalize) return this.current;
      const version = graph.version;
      const steps = pageRankSteps(graph, {}, this.current ?? undefined);
      const clock = new SliceClock(sliceMs);
      let r = steps.next();
      while (!r.done) {
        if (clock.spent()) {
          await clock.yield();
          if (graph.version !== version || this.current?.version === version) break;
        }
        r = steps.next();
      }
      if (r.done) {
        this.current = r.value;
        return r.value;
      }
    }
  }

  /** Forgets the cached vector (next call computes cold). */
  clear(): void {
    this.current = null;
  }
}

/** Degree and size facts about one node. */
export interface NodeStats {
  inDegree: number;
  outDegree: number;
  /** Lines spanned by the node (files: the file's line count; modules: sum over contained files). */
  loc: number;
  pagerank: number;
}

/** Lines of code a node spans (modules: 0; callers can sum files). */
export function nodeLoc(graph: CodeGraph, index: number): number {
  const n = graph.node(index);
  if (!n || n.kind === 'module') return 0;
  return Math.max(0, n.endLine - n.startLine + 1);
}

/** Degrees, LOC and PageRank of a node. */
export function nodeStats(graph: CodeGraph, index: number, pagerank: PageRankResult): NodeStats {
  return {
    inDegree: graph.inDegree(index),
    outDegree: graph.outDegree(index),
    loc: nodeLoc(graph, index),
    pagerank: pagerank.scores[index] ?? 0,
  };
}
