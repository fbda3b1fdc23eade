/**
 * fingerprint's probe responses: how nodes respond to a few free-text queries. One number per probe
 * would make every cosine 1 (two one-number vectors are always parallel), so each probe contributes
 * one dimension per seed it finds: a node's entry is the signal a propagation from that seed alone
 * leaves on it. Two nodes respond alike when the same seeds reach them with the same strength.
 */
import type { CodeGraphEngine } from '../../graph/api.ts';
import { COMPARABLE_KINDS, featureCount, signatures } from '../../graph/api.ts';
import { propagate, type PropagationOptions } from '../../graph/api.ts';
import { STRUCTURAL_PROFILE, without } from '../../graph/api.ts';
import type { GraphService } from '../../graph/api.ts';
import { activateQuery, STRUCTURAL_OPTIONS } from './query-activation.ts';

/** Nodes each probe contributes to the compared set, at most. */
const PROBE_TOP = 200;
/** Seeds of one probe that become response dimensions, at most (the strongest). */
const SEEDS_PER_PROBE = 8;
/** Fewer response dimensions than this say too little for a cosine to mean anything. */
export const MIN_RESPONSE_DIMENSIONS = 4;
/** Signatures with fewer features are too little evidence to compare (the verb's documented rule). */
export const MIN_SIGNATURE_FEATURES = 2;

const SEED_PROPAGATION: PropagationOptions = { ...STRUCTURAL_OPTIONS, relations: without(STRUCTURAL_PROFILE, 'co_changes'), direction: 'both' };

export interface ProbeResponses {
  /** Comparable nodes the probes reach (each with enough signature evidence), best-first by probe. */
  nodes: number[];
  /** Response vector of every node in `nodes` (length `dimensions`). */
  vectors: Map<number, Float32Array>;
  /** Seeds across all probes, one dimension each. */
  dimensions: number;
}

/** Activation responses of comparable nodes to the probes, one dimension per (probe, seed). */
export async function probeResponses(graph: GraphService, engine: CodeGraphEngine, probes: readonly string[], agentId: string, include?: number): Promise<ProbeResponses> {
  const g = engine.graph;
  const features = signatures(g);
  const enough = (i: number): boolean => featureCount(features, i) >= MIN_SIGNATURE_FEATURES;
  const nodes = new Set<number>();
  const seeds: { index: number; signal: number }[] = [];
  for (const q of probes) {
    const o = await activateQuery(graph, engine, { query: q, agentId, dimensions: ['structural', 'causal'], topK: PROBE_TOP, xlr: false, ghostEdges: false, boosts: false, kinds: [...COMPARABLE_KINDS], seedFrom: 'names' });
    for (const r of o.ranked) if (enough(r.index)) nodes.add(r.index);
    const strongest = [...o.seeds].sort((a, b) => b.signal - a.signal || a.index - b.index).slice(0, SEEDS_PER_PROBE);
    for (const s of strongest) seeds.push({ index: s.index, signal: s.signal });
  }
  if (include !== undefined && enough(include)) nodes.add(include);
  const vectors = new Map<number, Float32Array>();
  for (const i of nodes) vectors.set(i, new Float32Array(seeds.length));
  seeds.forEach((seed, d) => {
    const p = propagate(g, [seed], SEED_PROPAGATION);
    for (let k = 0; k < p.count; k++) {
      const v = vectors.get(p.order[k]);
      if (v) v[d] = p.signal[k];
    }
  });
  return { nodes: [...nodes], vectors, dimensions: seeds.length };
}

/** Cosine of two response vectors (0 when either is all zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? Math.min(1, dot / Math.sqrt(na * nb)) : 0;
}
