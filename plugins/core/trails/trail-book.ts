/**
 * Saved investigations (trails): what they hold and where they live — the state store (namespace
 * `trails`, one row per trail keyed by its id). Team trails (the default) are shared, across machines
 * when a team store is set: any agent can list and resume them; a private trail stays in the local
 * store and exists only for the agent that saved it (the bound identity, core/identity.ts). Merging marks only the caller's own sources as merged.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../../core/index.ts';
import type { StateService, StateStore } from '../../state/api.ts';

export const NAMESPACE = 'trails';

/** A claim of an investigation (hypothesis or conclusion), with the nodes it rests on. */
export interface Claim {
  statement: string;
  confidence?: number;
  supporting_nodes: string[];
  /** Trails it came from (merged trails only). */
  from?: string[];
}

/** A visited node as saved: how much it mattered, and a fingerprint to detect later change. */
export interface TrailNode {
  id: string;
  relevance: number;
  note?: string;
  path: string;
  lines: [number, number] | null;
  /** Hash of the node's text when saved (null for directories). */
  hash: string | null;
}

/** A trail as stored. */
export interface Trail {
  trail_id: string;
  label: string;
  agent_id: string;
  status: 'saved' | 'merged';
  summary?: string;
  hypotheses: Claim[];
  conclusions: Claim[];
  open_questions: string[];
  tags: string[];
  visited: TrailNode[];
  /** Node id → activation boost re-applied on resume. */
  boosts: Record<string, number>;
  /** Content hash per file of the visited nodes, when saved. */
  files: Record<string, string>;
  /** Names given that matched no node when saved. */
  unresolved: string[];
  generation: number;
  created_at: number;
  updated_at: number;
  merged_from?: string[];
  merged_into?: string;
  /** `private`: only `agent_id` sees it; absent (older trails) or `team`: every agent. */
  visibility?: 'team' | 'private';
}

/** Whether an agent may see a trail: its own, or a team trail. */
export function visibleTo(trail: Trail, agentId: string): boolean {
  return trail.visibility !== 'private' || trail.agent_id === agentId;
}

/** A trail id: a slug of the label plus a random suffix. */
export function newTrailId(label: string): string {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 24).replace(/-+$/, '');
  return `trail_${slug || 'untitled'}_${randomBytes(2).toString('hex')}`;
}

/** Where a trail lives: a private trail stays on this machine, a team trail in the team store (when one is set). */
function storeOf(state: StateService, trail: Pick<Trail, 'visibility'>): StateStore {
  return trail.visibility === 'private' ? state.local : state.team;
}

/** Loads a trail the agent may see by id; STATE_NOT_FOUND (also for another agent's private trail) names trail_list. */
export async function loadTrail(state: StateService, agentId: string, trailId: string): Promise<Trail> {
  let trail = (await state.team.get<Trail>(NAMESPACE, trailId))?.value;
  if (!trail && state.local !== state.team) trail = (await state.local.get<Trail>(NAMESPACE, trailId))?.value;
  // Another agent's private trail answers exactly like a missing one: its existence is not told.
  if (trail && visibleTo(trail, agentId)) return trail;
  throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no trail "${trailId}" on this workspace`, {
    hint: `trail_list({"agent_id":"${agentId}"}) lists the saved trails`,
    data: { trail_id: trailId },
  });
}

/** Every stored trail the agent may see. */
export async function allTrails(state: StateService, agentId: string): Promise<Trail[]> {
  const stores = state.team === state.local ? [state.team] : [state.team, state.local];
  const lists = await Promise.all(stores.map((s) => s.list<Trail>(NAMESPACE, 'trail_', 100_000)));
  return lists
    .flatMap((rows, i) => rows.map((r) => r.value).filter((t) => stores.length === 1 || storeOf(state, t) === stores[i]))
    .filter((t) => visibleTo(t, agentId));
}

/** Stores trails, one transaction per store they go to (a store's writes all land or none do). */
export async function saveTrails(state: StateService, trails: readonly Trail[]): Promise<void> {
  const stores = [...new Set(trails.map((t) => storeOf(state, t)))];
  for (const store of stores) {
    await store.transaction(async (tx) => {
      for (const t of trails) if (storeOf(state, t) === store) await tx.put(NAMESPACE, t.trail_id, t);
    });
  }
}
