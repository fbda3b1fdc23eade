/**
 * Resolution confidence of an edge, read back from its weight: a name-resolved edge weighs its
 * relation's default weight times the confidence of the resolution (docs/graph-model.md), so the
 * confidence is weight ÷ default. Containment is structural (confidence 1, whatever its weight);
 * for `co_changes` it is the Jaccard share of commits. One place, so every verb shows the same value.
 */
import { DEFAULT_WEIGHTS, RELATION_CODE, RELATIONS, type CodeGraph } from '../engine/graph.ts';

const CONTAINS = RELATION_CODE.contains;

/** Confidence in [0,1] of a relation code and stored weight, rounded to 3 decimals. */
export function confidenceOf(relation: number, weight: number): number {
  if (relation === CONTAINS) return 1;
  const base = (DEFAULT_WEIGHTS as Readonly<Record<string, number | undefined>>)[RELATIONS[relation]];
  // A relation without a default weight stores its confidence as the weight itself.
  const c = base && base > 0 ? weight / base : weight;
  return Math.round(Math.min(1, Math.max(0, c)) * 1000) / 1000;
}

/** Confidence of an edge by id. */
export function edgeConfidence(g: CodeGraph, edge: number): number {
  return confidenceOf(g.edgeRelation[edge], g.edgeWeight[edge]);
}

/**
 * Per-edge factor (indexed by edge id) that keeps edges at or above `min` (1) and drops the rest (0),
 * for propagation's `edgeFactor`; null when `min` ≤ 0 (nothing to drop).
 */
export function confidenceFilter(g: CodeGraph, min: number): Float32Array | null {
  if (!(min > 0)) return null;
  const factor = new Float32Array(g.edgeCapacity);
  for (let e = 0; e < g.edgeCapacity; e++) factor[e] = confidenceOf(g.edgeRelation[e], g.edgeWeight[e]) >= min ? 1 : 0;
  return factor;
}
