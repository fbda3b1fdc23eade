/**
 * The state of one perspective: where the agent stands (focus), how it got there (a history of
 * checkpoints and moves), what it has seen, and the route set last offered from the focus. Every
 * list is capped, so a perspective's size is bounded by construction.
 */
import { StringEnum, Type, type Static } from '../../core/index.ts';
import { RELATION_NAMES } from './graph-view.ts';

/** Node kinds a lens may keep. */
export const NODE_KINDS = ['file', 'module', 'class', 'interface', 'function', 'method', 'type', 'section'] as const;

/** The `lens` parameter: what routes a perspective offers. Unknown keys are refused by validation. */
export const Lens = Type.Object(
  {
    relations: Type.Optional(Type.Array(StringEnum(RELATION_NAMES), { description: 'Follow only these edge relations' })),
    direction: Type.Optional(StringEnum(['out', 'in', 'both'] as const, { description: 'out: what the focus uses; in: what uses it (default both)' })),
    node_types: Type.Optional(Type.Array(StringEnum(NODE_KINDS), { description: 'Offer only these node kinds' })),
    include_visited: Type.Optional(Type.Boolean({ description: 'Offer nodes already visited (ranked lower; default true)' })),
    max_routes: Type.Optional(Type.Integer({ minimum: 1, maximum: 40, description: 'Routes kept per route set (default 40)' })),
  },
  { additionalProperties: false },
);
export type LensSpec = Static<typeof Lens>;

/** Caps per perspective (what keeps one within ~30 KB) and per agent. */
export const LIMITS = Object.freeze({
  perspectivesPerAgent: 16,
  bytesPerAgent: 512 * 1024,
  history: 64,
  visited: 256,
  moves: 32,
  abandoned: 64,
  routes: 40,
});

/** One offered next hop, as stored (short keys: route sets are persisted). */
export interface StoredRoute {
  /** Target node id. */
  t: string;
  /** Edges between focus and target: relation and direction (`out` = focus → target). */
  via: { r: string; d: 'out' | 'in'; w: number }[];
  /** Score. */
  s: number;
  /** Factors: structural, relevance, centrality, novelty, boost. */
  f: [number, number, number, number, number];
}

/** The routes offered from one focus on one graph generation. */
export interface RouteSet {
  /** route_set_version: bumped whenever the routes are recomputed. */
  version: number;
  /** Engine generation the routes were computed on. */
  generation: number;
  /** Perspective version (focus moves) they were computed for. */
  pv: number;
  /** Fingerprint of the agent's activation boosts they reflect. */
  boosts: string;
  focus: string;
  /** Candidates before the lens cap. */
  total: number;
  items: StoredRoute[];
  at: number;
}

/** One navigation step, kept for suggest (what the agent tends to follow, what it backed out of). */
export interface Move {
  kind: 'follow' | 'back';
  from: string;
  to: string;
  /** Relations of the route followed. */
  via?: string[];
  at: number;
}

/** A perspective as stored. */
export interface Perspective {
  id: string;
  agent_id: string;
  name: string;
  query: string;
  lens: LensSpec;
  /** Node id the perspective stands on. */
  focus: string;
  /** Where the perspective started. */
  origin: string;
  /** Checkpoints: previous foci, newest last (back pops one). */
  history: string[];
  /** Every node the focus has been on, oldest first (back keeps them, like a browser's history). */
  visited: string[];
  /** How many old visited entries fell off the cap. */
  visited_dropped: number;
  moves: Move[];
  /** Nodes the agent backed out of (suggest avoids them). */
  abandoned: string[];
  /** The perspective this one was branched from. */
  parent?: string;
  /** Bumped by every focus change. */
  version: number;
  /** Last route_set_version handed out. */
  rsv_seq: number;
  routes?: RouteSet;
  created_at: number;
  updated_at: number;
}

function pushCapped<T>(list: T[], item: T, cap: number): number {
  list.push(item);
  const over = list.length - cap;
  if (over > 0) list.splice(0, over);
  return Math.max(0, over);
}

/** Marks a node visited (moved to the newest position if seen before). */
export function visit(p: Perspective, nodeId: string): void {
  const i = p.visited.indexOf(nodeId);
  if (i >= 0) p.visited.splice(i, 1);
  p.visited_dropped += pushCapped(p.visited, nodeId, LIMITS.visited);
}

/** Moves the focus along a route: checkpoint the old focus, record the move, bump the version. */
export function moveFocus(p: Perspective, to: string, via: string[]): void {
  pushCapped(p.history, p.focus, LIMITS.history);
  pushCapped(p.moves, { kind: 'follow', from: p.focus, to, via, at: Date.now() }, LIMITS.moves);
  p.abandoned = p.abandoned.filter((id) => id !== to);
  p.focus = to;
  visit(p, to);
  p.version++;
  p.updated_at = Date.now();
}

/** Restores the previous checkpoint; returns the focus left, or null when there is no checkpoint. */
export function stepBack(p: Perspective): string | null {
  const previous = p.history.pop();
  if (previous === undefined) return null;
  const left = p.focus;
  pushCapped(p.moves, { kind: 'back', from: left, to: previous, at: Date.now() }, LIMITS.moves);
  if (!p.abandoned.includes(left)) pushCapped(p.abandoned, left, LIMITS.abandoned);
  p.focus = previous;
  p.version++;
  p.updated_at = Date.now();
  return left;
}

/** A fresh perspective record standing on `focus`. */
export function newPerspective(init: { id: string; agentId: string; name: string; query: string; lens: LensSpec; focus: string }): Perspective {
  const now = Date.now();
  return {
    id: init.id,
    agent_id: init.agentId,
    name: init.name,
    query: init.query,
    lens: init.lens,
    focus: init.focus,
    origin: init.focus,
    history: [],
    visited: [init.focus],
    visited_dropped: 0,
    moves: [],
    abandoned: [],
    version: 1,
    rsv_seq: 0,
    created_at: now,
    updated_at: now,
  };
}
