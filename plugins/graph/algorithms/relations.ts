/**
 * Relation profiles: a multiplier per relation code that an algorithm applies on top of each edge's
 * stored weight (0 = the relation is not walked). One place names what each traversal follows.
 */
import { RELATIONS, RELATION_CODE, type Relation } from '../engine/graph.ts';

/** Multiplier per relation code, indexed like RELATIONS. */
export type RelationProfile = Float32Array;

/** Builds a profile; relations not named get `rest` (default 0: not walked). */
export function relationProfile(weights: Partial<Record<Relation, number>>, rest = 0): RelationProfile {
  const p = new Float32Array(RELATIONS.length).fill(rest);
  for (const [r, w] of Object.entries(weights) as [Relation, number][]) p[RELATION_CODE[r]] = w;
  return p;
}

/** A copy of a profile with some relations switched off. */
export function without(profile: RelationProfile, ...relations: Relation[]): RelationProfile {
  const p = profile.slice();
  for (const r of relations) p[RELATION_CODE[r]] = 0;
  return p;
}

/** Relations that mean "the source needs the target" (a change to the target can break the source). */
export const DEPENDENCY_RELATIONS: readonly Relation[] = ['imports', 'calls', 'references', 'inherits', 'implements'];

/** Everything connects, dependency edges count most; co-change (git) edges are the "ghost" dimension. */
export const STRUCTURAL_PROFILE = relationProfile({
  contains: 0.9,
  imports: 1,
  calls: 1,
  references: 1,
  inherits: 1,
  implements: 1,
  tests: 0.8,
  documents: 0.8,
  co_changes: 0.9,
  dispatches: 0.9,
});

/** Directed cause → effect: only dependency relations. */
export const CAUSAL_PROFILE = relationProfile({ calls: 1, imports: 0.8, inherits: 0.9, implements: 0.9, references: 0.7, dispatches: 0.8 });

/** What a change reaches: dependencies, containment (a symbol's file), tests, docs, co-change partners. */
export const IMPACT_PROFILE = relationProfile({
  contains: 1,
  imports: 1,
  calls: 1,
  references: 0.8,
  inherits: 1,
  implements: 1,
  tests: 0.9,
  documents: 0.6,
  co_changes: 0.6,
  dispatches: 0.9,
});

/** Where a type is used: references, subtyping and construction/calls. */
export const TYPE_USAGE_PROFILE = relationProfile({ references: 1, inherits: 1, implements: 1, calls: 0.8 });

/** Verb phrases for explaining an edge walked forward ("a calls b") and backward ("b is called by a"). */
export const RELATION_PHRASE: Readonly<Record<Relation, [forward: string, backward: string]>> = Object.freeze({
  contains: ['contains', 'is contained in'],
  imports: ['imports', 'is imported by'],
  calls: ['calls', 'is called by'],
  references: ['references', 'is referenced by'],
  inherits: ['inherits from', 'is inherited by'],
  implements: ['implements', 'is implemented by'],
  tests: ['tests', 'is tested by'],
  documents: ['documents', 'is documented by'],
  co_changes: ['changes together with', 'changes together with'],
  dispatches: ['may dispatch to', 'may be dispatched to from'],
});
