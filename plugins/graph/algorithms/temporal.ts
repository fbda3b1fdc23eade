/**
 * Git recency and churn of a node's file as a score in [0,1] (the temporal dimension of activate):
 * 0.6 × recency + 0.4 × churn. Recency decays with a half-life measured from the repository's
 * newest commit, not from the wall clock, so an old but active repository still has a gradient;
 * the half-life is 10% of the history's span, between 7 and 180 days. Churn is log-scaled commits.
 */
import type { CodeGraph } from '../engine/graph.ts';
import { ensureFinal } from './graph-facts.ts';

export interface TemporalProfile {
  /** False when no file carries git facts (no repository, or history scanning off). */
  available: boolean;
  newest: number;
  oldest: number;
  halfLifeSeconds: number;
  maxCommits: number;
}

const DAY = 86_400;
const cache = new WeakMap<CodeGraph, { version: number; profile: TemporalProfile }>();

/** The repository's history span and churn scale, cached per graph version. */
export function temporalProfile(g: CodeGraph): TemporalProfile {
  ensureFinal(g);
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit.profile;
  let newest = 0;
  let oldest = Infinity;
  let maxCommits = 0;
  for (const [, n] of g.nodes()) {
    if (n.kind !== 'file' || !n.lastCommitAt) continue;
    if (n.lastCommitAt > newest) newest = n.lastCommitAt;
    if (n.lastCommitAt < oldest) oldest = n.lastCommitAt;
    if ((n.commitCount ?? 0) > maxCommits) maxCommits = n.commitCount ?? 0;
  }
  const available = newest > 0;
  const span = available ? newest - oldest : 0;
  const profile: TemporalProfile = {
    available,
    newest,
    oldest: available ? oldest : 0,
    halfLifeSeconds: Math.min(180 * DAY, Math.max(7 * DAY, span * 0.1)),
    maxCommits,
  };
  cache.set(g, { version: g.version, profile });
  return profile;
}

/** Temporal score of a file node (0 when it has no git facts). */
export function temporalScore(g: CodeGraph, profile: TemporalProfile, fileIndex: number): number {
  if (!profile.available || fileIndex < 0) return 0;
  const f = g.node(fileIndex);
  if (!f?.lastCommitAt) return 0;
  const age = Math.max(0, profile.newest - f.lastCommitAt);
  const recency = Math.pow(0.5, age / profile.halfLifeSeconds);
  const churn = profile.maxCommits > 0 ? Math.log1p(f.commitCount ?? 0) / Math.log1p(profile.maxCommits) : 0;
  return 0.6 * recency + 0.4 * churn;
}
