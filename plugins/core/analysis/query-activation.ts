/**
 * Spreading activation for a free-text query, shared by activate, warmup, missing, focus and
 * fingerprint probes. Seeds come from seek's ranking (BM25F over names, signatures, docs, bodies
 * and paths, with its kind priors: the function doing the work first, tests behind; fingerprint
 * probes use the bounded name/doc/path index of seed-index.ts instead), exact ids/paths and words the
 * agents taught with `learn`; four dimensions then
 * score every node the seeds reach:
 *
 * - structural: best-first propagation over every relation, both directions, hub-damped, plus a
 *   bonus where several activated neighbours converge; `xlr` subtracts what a "cold" propagation
 *   from look-alike anti-seeds also reaches (generic hubs), outside two hops of a seed;
 * - semantic: the node's own lexical match to the query;
 * - temporal: git recency and churn of the node's file (unavailable without history);
 * - causal: propagation along dependency edges only, forward, and backward at 0.7.
 *
 * Requested dimensions are merged with weights 0.35 / 0.5 / 0.15 / 0.25 (renormalised over the
 * ones requested and available): a node's own match to the query weighs as much as the structural
 * and temporal dimensions together, since the spreads only pass on the seeds' matches (at 0.25, a
 * helper that several seeds call outranked the function the query describes: bench:quality's
 * activate hit@1 0.514, against 0.663 now; any weight from 0.5 to 1.2 gave 0.651–0.663); ×(1 + 0.1 per extra agreeing dimension), then multiplied by the
 * learned factor (learn feedback) and the agent's boost (warmup). Nothing here writes weights.
 */
import type { CodeGraphEngine } from '../../graph/api.ts';
import type { CodeGraph, GraphNode, NodeKind } from '../../graph/api.ts';
import { membersBeforeTheirTypes, pathScope, queryNames, tokenize } from '../../graph/api.ts';
import { degreeOrder, fileIndexOf, kindCodes, relationCounts } from '../../graph/api.ts';
import { MaxHeap } from '../../graph/api.ts';
import { propagate, reservePropagation, type Propagation, type PropagationOptions, type Seed } from '../../graph/api.ts';
import { CAUSAL_PROFILE, STRUCTURAL_PROFILE, without } from '../../graph/api.ts';
import { lexicalSeeds, slicePace, warmFileIndex, warmSeedIndex, yieldToLoop } from '../../graph/api.ts';
import { temporalProfile, temporalScore } from '../../graph/api.ts';
import type { GraphService } from '../../graph/api.ts';
import { addConvergence, cancelHubs } from './activation-structural.ts';

export const DIMENSIONS = ['structural', 'semantic', 'temporal', 'causal'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
const DIMENSION_WEIGHT: Record<Dimension, number> = { structural: 0.35, semantic: 0.5, temporal: 0.15, causal: 0.25 };

export interface ActivationRequest {
  query: string;
  agentId: string;
  dimensions: readonly Dimension[];
  topK: number;
  /** Cancel hub activation with cold anti-seed pulses. */
  xlr: boolean;
  /** Walk co-change (git) edges in the structural dimension. */
  ghostEdges: boolean;
  scope?: string;
  kinds?: readonly NodeKind[];
  minScore?: number;
  /** Lexical seeds at most (default 30). */
  seedLimit?: number;
  /** Apply the agent's warmup/trail boosts (default true). */
  boosts?: boolean;
  /**
   * Where lexical seeds come from: `seek`'s ranking (default: the code doing the work), or `names`,
   * the bounded name/doc/path index (fingerprint probes: the concepts a probe names, not every body
   * that uses its words — a compared node would otherwise seed its own response).
   */
  seedFrom?: 'seek' | 'names';
  /** Named boost overlays to add (e.g. `runtime_heat`), applied only when listed. */
  overlays?: readonly string[];
}

export interface ActivatedNode {
  index: number;
  node: GraphNode;
  score: number;
  dims: Record<Dimension, number>;
  seed: boolean;
  matched: string[];
  /** Multiplier from learn feedback (1 = none). */
  learned: number;
  /** The agent's boost (0 = none). */
  boost: number;
}

export interface ActivationOutcome {
  /** Ranked results after filters, at most topK. */
  results: ActivatedNode[];
  /** The best max(topK, 50) after filters (a longer ranked list for verbs that need one). */
  ranked: ActivatedNode[];
  /** Merged score of any node (0 when the query did not reach it), filters ignored. */
  scoreOf(index: number): number;
  /** Nodes scored. */
  candidates: number;
  words: string[];
  seeds: Seed[];
  structural: Propagation | null;
  dimensionsUsed: Dimension[];
  unavailable: Partial<Record<Dimension, string>>;
  xlr: { antiSeeds: number[]; suppressed: number } | null;
  /** A visit cap stopped some propagation. */
  truncated: boolean;
}

/** The structural dimension's walk (decay, cut-off, caps), shared by every verb that activates a seed structurally. */
export const STRUCTURAL_OPTIONS: Omit<PropagationOptions, 'relations' | 'direction'> = {
  decay: 0.6,
  threshold: 0.02,
  maxDepth: 4,
  maxVisits: 3000,
  fanout: 16,
  moduleContains: 0.3,
};
const CAUSAL_OPTIONS: Omit<PropagationOptions, 'relations' | 'direction'> = { decay: 0.65, threshold: 0.02, maxDepth: 4, maxVisits: 3000, fanout: 24 };
const NO_CO_CHANGE = without(STRUCTURAL_PROFILE, 'co_changes');

/** Per-node scores of one query, in arrays reused across queries (reset by the touched list). */
class DenseScores {
  structural = new Float32Array(0);
  causal = new Float32Array(0);
  semantic = new Float32Array(0);
  mark = new Uint8Array(0);
  list: number[] = [];

  begin(n: number): void {
    if (this.mark.length < n) {
      this.structural = new Float32Array(n);
      this.causal = new Float32Array(n);
      this.semantic = new Float32Array(n);
      this.mark = new Uint8Array(n);
    }
    for (const i of this.list) {
      this.structural[i] = 0;
      this.causal[i] = 0;
      this.semantic[i] = 0;
      this.mark[i] = 0;
    }
    this.list.length = 0;
  }

  add(i: number): void {
    if (!this.mark[i]) {
      this.mark[i] = 1;
      this.list.push(i);
    }
  }
}
/** Score arrays not in use by an activation (one is taken per call: calls may overlap at their paces). */
const spareScores: DenseScores[] = [];
const topHeap = new MaxHeap();

/**
 * What `activateQuery` reads, made ahead between yields to the event loop: the seek index and
 * PageRank (`prepareSeek`: built off the main thread or in background slices) or, for `names` seeds,
 * the seed index (8 ms slices), each node's file, the per-version facts (kinds, degree order,
 * relation counts) and propagation's scratch arrays (a few ms each).
 * Verbs await it before their first `activateQuery`; cheap once made.
 */
export async function activationReady(engine: CodeGraphEngine, seedFrom: 'seek' | 'names' = 'seek'): Promise<void> {
  const g = engine.graph;
  const t0 = performance.now();
  const pace = slicePace(8);
  if (seedFrom === 'names') await warmSeedIndex(g, pace);
  else await engine.prepareSeek();
  await warmFileIndex(g, pace);
  for (const fact of [kindCodes, degreeOrder, relationCounts, reservePropagation]) {
    await pace();
    fact(g);
  }
  // Something was built: the activation that follows starts a stretch of its own.
  if (performance.now() - t0 > 2) await yieldToLoop();
}

/**
 * Runs the activation pipeline (see the module comment), yielding to the event loop between its
 * phases (seeds, structural spread, hub cancelling, causal spreads, merge) once `pace` says a slice
 * is spent: a first call in a new process runs each phase before V8 has compiled it.
 */
export async function activateQuery(graph: GraphService, engine: CodeGraphEngine, req: ActivationRequest, pace: () => Promise<void> = slicePace(8)): Promise<ActivationOutcome> {
  const dense = spareScores.pop() ?? new DenseScores();
  try {
    // A graph that moves to a new generation during a pace (a watcher's re-ingest) starts the run
    // again on the new one; the last attempt runs in one piece, so one outcome is of one graph.
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= MAX_ATTEMPTS;
      const generation = engine.generation;
      const g = engine.graph;
      const paced = last
        ? () => Promise.resolve()
        : async () => {
            await pace();
            if (engine.generation !== generation || engine.graph !== g) throw GRAPH_MOVED;
          };
      try {
        return await activateWith(dense, graph, engine, req, paced);
      } catch (error) {
        if (error !== GRAPH_MOVED) throw error;
      }
    }
  } finally {
    if (spareScores.length < 2) spareScores.push(dense);
  }
}

const MAX_ATTEMPTS = 3;
const GRAPH_MOVED = Symbol('graph moved');

async function activateWith(dense: DenseScores, graph: GraphService, engine: CodeGraphEngine, req: ActivationRequest, pace: () => Promise<void>): Promise<ActivationOutcome> {
  const g = engine.graph;
  const n = g.nodeCapacity;
  dense.begin(n);
  const { structural: S, causal: C, semantic: M } = dense;
  const words = [...new Set(tokenize(req.query))];
  const requested = new Set(req.dimensions.length ? req.dimensions : DIMENSIONS);
  const unavailable: Partial<Record<Dimension, string>> = {};
  const temporal = temporalProfile(g);
  if (requested.has('temporal') && !temporal.available) unavailable.temporal = 'no git history in the graph';
  const used = DIMENSIONS.filter((d) => requested.has(d) && !unavailable[d]);
  const use = { structural: used.includes('structural'), semantic: used.includes('semantic'), temporal: used.includes('temporal'), causal: used.includes('causal') };

  // Seeds: exact id/path, lexical hits, learned associations.
  const matched = new Map<number, string[]>();
  const seedLimit = req.seedLimit ?? 30;
  const lexical: Seed[] = [];
  const q = req.query.trim();
  const exact = g.get(q) ?? g.get(`file:${q.replace(/^\.\//, '')}`);
  if (exact) {
    const i = g.indexOf(exact.id);
    lexical.push({ index: i, signal: 1 });
    matched.set(i, [q]);
  }
  if (req.seedFrom === 'names') {
    for (const h of lexicalSeeds(g, req.query, Math.max(seedLimit, 60))) {
      if (matched.has(h.index)) continue;
      lexical.push({ index: h.index, signal: h.score });
      matched.set(h.index, h.matched);
    }
  } else {
    // seek's ranking (names, signatures, docs, bodies, paths; kind priors, tests behind), each signal
    // relative to the best hit: one text-relevance engine for both verbs.
    const hits = engine.seek(req.query, { topK: Math.max(seedLimit, 60), minScore: 0 }).results;
    const top = hits[0]?.score ?? 0;
    for (const h of hits) {
      const i = g.indexOf(h.id);
      if (i < 0 || matched.has(i) || top <= 0) continue;
      lexical.push({ index: i, signal: h.score / top });
      matched.set(i, h.matched);
    }
  }
  for (const s of lexical) {
    M[s.index] = s.signal;
    dense.add(s.index);
  }
  await pace();
  const seeds = lexical.slice(0, seedLimit);
  const own = new Map(seeds.map((s) => [s.index, s.signal]));
  for (const [id, a] of graph.learned.associated(words, req.agentId)) {
    const i = g.indexOf(id);
    if (i < 0 || a <= 0) continue;
    const sig = Math.min(1, a * 2);
    if ((own.get(i) ?? 0) >= sig) continue;
    if (own.has(i)) seeds.find((s) => s.index === i)!.signal = sig;
    else seeds.push({ index: i, signal: sig });
    own.set(i, sig);
  }
  const edgeFactor = graph.learned.edgeFactors(g, req.agentId);

  // Structural (also the candidate set for temporal), with convergence and XLR.
  let structural: Propagation | null = null;
  let xlr: ActivationOutcome['xlr'] = null;
  let truncated = false;
  if (seeds.length && (use.structural || use.temporal)) {
    const relations = req.ghostEdges ? STRUCTURAL_PROFILE : NO_CO_CHANGE;
    const opts: PropagationOptions = { ...STRUCTURAL_OPTIONS, relations, direction: 'both', edgeFactor };
    structural = propagate(g, seeds, opts);
    truncated ||= structural.truncated;
    for (let k = 0; k < structural.count; k++) {
      const v = structural.order[k];
      dense.add(v);
      // A seed's own signal counts half: what reaches it from other seeds says it belongs.
      const o = own.get(v);
      S[v] = o === undefined ? structural.signal[k] : Math.min(1, 0.5 * o + structural.cross[k]);
    }
    if (use.structural) {
      addConvergence(g, structural, S, relations);
      await pace();
      if (req.xlr) xlr = cancelHubs(g, structural, seeds, own, opts, S);
    }
    await pace();
  }

  // Causal: forward along dependencies, backward at 0.7 (a seed counts what reaches it from others).
  if (seeds.length && use.causal) {
    for (const [direction, factor] of [['out', 1], ['in', 0.7]] as const) {
      const p = propagate(g, seeds, { ...CAUSAL_OPTIONS, relations: CAUSAL_PROFILE, direction, edgeFactor });
      truncated ||= p.truncated;
      for (let k = 0; k < p.count; k++) {
        const v = p.order[k];
        const sig = factor * (own.has(v) ? p.cross[k] : p.signal[k]);
        if (sig > C[v]) C[v] = sig;
        dense.add(v);
      }
      await pace();
    }
  }
  for (const s of seeds) dense.add(s.index);

  // Merge every candidate; keep the best few as objects.
  const fileOf = fileIndexOf(g);
  const boosts = req.boosts === false ? new Map<string, number>() : graph.boosts.map(req.agentId, req.overlays);
  const weightSum = used.reduce((sum, d) => sum + DIMENSION_WEIGHT[d], 0);
  const learnedFactor = graph.learned.scorer(words, req.agentId);
  const scope = pathScope(engine, req.scope);
  const kinds = req.kinds?.length ? new Set(req.kinds) : null;
  const minScore = req.minScore ?? 0;
  const list = dense.list;
  const scores = new Float32Array(list.length);
  const keep = Math.max(req.topK, 50);
  topHeap.clear();
  const dimsOf = (i: number): Record<Dimension, number> => ({
    structural: use.structural ? S[i] : 0,
    semantic: use.semantic ? M[i] : 0,
    temporal: use.temporal ? temporalScore(g, temporal, fileOf[i]) : 0,
    causal: use.causal ? C[i] : 0,
  });
  for (let k = 0; k < list.length; k++) {
    const i = list[k];
    const node = g.node(i);
    if (!node) continue;
    const t = use.temporal ? temporalScore(g, temporal, fileOf[i]) : 0;
    let base = 0;
    let agreeing = 0;
    if (use.structural) {
      base += DIMENSION_WEIGHT.structural * S[i];
      if (S[i] > 0.05) agreeing++;
    }
    if (use.semantic) {
      base += DIMENSION_WEIGHT.semantic * M[i];
      if (M[i] > 0.05) agreeing++;
    }
    if (use.temporal) {
      base += DIMENSION_WEIGHT.temporal * t;
      if (t > 0.05) agreeing++;
    }
    if (use.causal) {
      base += DIMENSION_WEIGHT.causal * C[i];
      if (C[i] > 0.05) agreeing++;
    }
    base = weightSum > 0 ? base / weightSum : 0;
    if (agreeing > 1) base *= 1 + 0.1 * (agreeing - 1);
    const boost = boosts.size ? boosts.get(node.id) ?? 0 : 0;
    const score = base * learnedFactor(node.id) * Math.max(0, 1 + boost);
    scores[k] = score;
    if (score <= 0 || score < minScore) continue;
    if (kinds && !kinds.has(node.kind)) continue;
    if (!scope.has(node.path)) continue;
    if (topHeap.size < keep) topHeap.push(-score, k);
    else if (-topHeap.peekKey() < score) {
      topHeap.pop();
      topHeap.push(-score, k);
    }
  }
  const best: number[] = [];
  while (topHeap.size) best.push(topHeap.pop());
  best.reverse();
  const ranked = best
    .map((k) => {
      const i = list[k];
      const node = g.node(i)!;
      return {
        index: i,
        node,
        score: scores[k],
        dims: dimsOf(i),
        seed: own.has(i),
        matched: matched.get(i) ?? [],
        learned: learnedFactor(node.id),
        boost: boosts.get(node.id) ?? 0,
      };
    })
    .sort((a, b) => b.score - a.score || (a.node.id < b.node.id ? -1 : 1));
  // As in seek: a type (a constructor) goes behind its class's best method unless the query names it
  // (asks about construction): spreading from its members' matches would otherwise lift it above the work.
  const named = queryNames(req.query);
  membersBeforeTheirTypes(
    g,
    ranked,
    (r) => r.index,
    (_r, node) => named(node),
    (r) => r.score,
    (r, score) => ({ ...r, score }),
  );
  const candidates = Int32Array.from(list);
  let byIndex: Map<number, number> | null = null;
  const scoreOf = (i: number): number => {
    byIndex ??= new Map(Array.from(candidates, (v, k) => [v, scores[k]]));
    return byIndex.get(i) ?? 0;
  };
  return { results: ranked.slice(0, req.topK), ranked, scoreOf, candidates: candidates.length, words, seeds, structural, dimensionsUsed: used, unavailable, xlr, truncated };
}
