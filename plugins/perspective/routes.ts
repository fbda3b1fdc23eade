/**
 * Routes: the ranked next hops from a perspective's focus. Candidates are the focus's neighbours
 * (both directions, filtered by the lens); each is scored from five factors — edge strength,
 * relevance to the perspective's query, centrality, novelty, and the agent's activation boosts
 * (what warmup and trail_resume prime) — and the factors are kept so every rank can be explained.
 * A route set is tied to the engine generation and the perspective's version: route ids from an
 * older set are refused as stale.
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { CodeGraphEngine } from '../graph/api.ts';
import type { BoostEntry } from '../graph/api.ts';
import { centralityOf, describeLink, nodeRef, relationOf, relevanceOf, round } from './graph-view.ts';
import { LIMITS, type Perspective, type RouteSet, type StoredRoute } from './state.ts';

/** How much each factor weighs in a route's score (boost is additive on top, ±0.5 at most). */
export const ROUTE_WEIGHTS = Object.freeze({ structural: 0.35, relevance: 0.25, centrality: 0.15, novelty: 0.25, boost: 0.5 });
const FACTORS = ['structural', 'relevance', 'centrality', 'novelty', 'boost'] as const;

/** The agent's boosts as the routes see them: summed per node, and a fingerprint of the whole set. */
export interface BoostView {
  map: Map<string, number>;
  entries: readonly BoostEntry[];
  stamp: string;
}

/** A fingerprint of a boost map (route sets record which boosts they reflect). */
export function boostStamp(map: Map<string, number>): string {
  if (map.size === 0) return '';
  const text = [...map].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join('\n');
  return createHash('sha1').update(text).digest('hex').slice(0, 12);
}

/** Computes the ranked candidate routes from the perspective's focus. */
export function computeRoutes(engine: CodeGraphEngine, p: Perspective, boosts: BoostView): { items: StoredRoute[]; total: number } {
  const g = engine.graph;
  const focus = g.indexOf(p.focus);
  if (focus < 0) return { items: [], total: 0 };
  const lens = p.lens;
  const relations = lens.relations?.length ? new Set<string>(lens.relations) : null;
  const kinds = lens.node_types?.length ? new Set<string>(lens.node_types) : null;
  const direction = lens.direction ?? 'both';
  const candidates = new Map<number, StoredRoute['via']>();
  const consider = (other: number, weight: number, edge: number, d: 'out' | 'in') => {
    if (other === focus) return;
    const node = g.node(other);
    if (!node || (kinds && !kinds.has(node.kind))) return;
    const r = relationOf(g, edge);
    if (relations && !relations.has(r)) return;
    let via = candidates.get(other);
    if (!via) candidates.set(other, (via = []));
    via.push({ r, d, w: round(weight) });
  };
  if (direction !== 'in') g.forEachOut(focus, (t, w, _r, e) => consider(t, w, e, 'out'));
  if (direction !== 'out') g.forEachIn(focus, (s, w, _r, e) => consider(s, w, e, 'in'));

  const relevance = relevanceOf(engine, p.query);
  const centrality = centralityOf(engine);
  const visited = new Set(p.visited);
  const includeVisited = lens.include_visited ?? true;
  const items: StoredRoute[] = [];
  for (const [index, via] of candidates) {
    const id = g.node(index)!.id;
    if (!includeVisited && visited.has(id)) continue;
    // Several edges to one node reinforce each other: 1 - Π(1 - w).
    const structural = Math.min(1, 1 - via.reduce((keep, v) => keep * (1 - Math.min(1, v.w)), 1));
    const f: StoredRoute['f'] = [
      round(structural),
      round(relevance.get(id) ?? 0),
      round(centrality(index)),
      visited.has(id) ? 0 : 1,
      round(boosts.map.get(id) ?? 0),
    ];
    items.push({ t: id, via, s: round(scoreOf(f)), f });
  }
  items.sort((a, b) => b.s - a.s || a.t.localeCompare(b.t));
  return { items: items.slice(0, lens.max_routes ?? LIMITS.routes), total: items.length };
}

/** A route's score from its factors. */
export function scoreOf(f: StoredRoute['f']): number {
  const w = ROUTE_WEIGHTS;
  return w.structural * f[0] + w.relevance * f[1] + w.centrality * f[2] + w.novelty * f[3] + w.boost * f[4];
}

/**
 * The perspective's current route set, recomputed (with a new route_set_version) when the graph
 * generation, the focus or the agent's boosts changed since it was computed. Mutates `p`; returns
 * whether it recomputed (the caller then saves `p`).
 */
export function ensureRoutes(engine: CodeGraphEngine, p: Perspective, boosts: BoostView): boolean {
  const rs = p.routes;
  if (rs && rs.generation === engine.generation && rs.pv === p.version && rs.boosts === boosts.stamp && rs.focus === p.focus) return false;
  const { items, total } = computeRoutes(engine, p, boosts);
  p.rsv_seq++;
  p.routes = { version: p.rsv_seq, generation: engine.generation, pv: p.version, boosts: boosts.stamp, focus: p.focus, total, items, at: Date.now() };
  return true;
}

/** The call that refreshes a perspective's routes (named by every stale-route error). */
export function refreshCall(p: Perspective): string {
  return `perspective_routes({"agent_id":"${p.agent_id}","perspective_id":"${p.id}"})`;
}

/** The current route set, refusing a stale or mismatched route_set_version with the call that refreshes it. */
export function currentRouteSet(engine: CodeGraphEngine, p: Perspective, routeSetVersion: number): RouteSet {
  const rs = p.routes;
  if (!rs) {
    throw new M1ndError(ErrorCodes.STATE_STALE, `perspective "${p.id}" has no route set yet`, { hint: `call ${refreshCall(p)} first` });
  }
  if (rs.generation !== engine.generation) {
    throw new M1ndError(
      ErrorCodes.STATE_STALE,
      `stale route set: route_set_version ${rs.version} of perspective "${p.id}" was computed on graph generation ${rs.generation}, and the graph has changed since (generation ${engine.generation}); its route ids are no longer valid`,
      { hint: `call ${refreshCall(p)} for the fresh route_set_version and route ids`, data: { route_set_version: rs.version, route_generation: rs.generation, generation: engine.generation } },
    );
  }
  if (routeSetVersion !== rs.version) {
    throw new M1ndError(
      ErrorCodes.STATE_STALE,
      `stale route set: route_set_version ${routeSetVersion} is not the current route set of perspective "${p.id}" (current: ${rs.version}; routes are recomputed when the focus moves, the graph changes or your boosts change)`,
      { hint: `use route_set_version ${rs.version}, or call ${refreshCall(p)} to see its routes`, data: { route_set_version: rs.version, given: routeSetVersion } },
    );
  }
  return rs;
}

/** A route picked by `route_id` or `route_index` (1-based) from the current route set. */
export function pickRoute(engine: CodeGraphEngine, p: Perspective, sel: { route_id?: string; route_index?: number; route_set_version: number }): { route: StoredRoute; index: number; rs: RouteSet } {
  const rs = currentRouteSet(engine, p, sel.route_set_version);
  let index: number | undefined = sel.route_index;
  if (sel.route_id !== undefined) {
    const m = /^R(\d+)\.(\d+)$/.exec(sel.route_id);
    if (!m) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `route_id "${sel.route_id}" is not a route id (they look like "R${rs.version}.1")`, { hint: `take route ids from ${refreshCall(p)}` });
    }
    if (Number(m[1]) !== rs.version) {
      throw new M1ndError(ErrorCodes.STATE_STALE, `stale route set: route "${sel.route_id}" belongs to route set ${m[1]}, the current one is ${rs.version}`, {
        hint: `call ${refreshCall(p)} and pick from its routes`,
        data: { route_set_version: rs.version },
      });
    }
    if (index !== undefined && index !== Number(m[2])) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `route_id "${sel.route_id}" and route_index ${index} name different routes`, { hint: 'pass one of them' });
    }
    index = Number(m[2]);
  }
  if (index === undefined) {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'name the route: pass route_id (e.g. "R' + rs.version + '.1") or route_index (1-based)', { hint: `routes are listed by ${refreshCall(p)}` });
  }
  const route = rs.items[index - 1];
  if (!route) {
    throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `route set ${rs.version} has ${rs.items.length} route${rs.items.length === 1 ? '' : 's'}; there is no route ${index}`, {
      hint: `pick 1..${rs.items.length} from ${refreshCall(p)}`,
    });
  }
  return { route, index, rs };
}

/** A route as agents read it: id, target, how it connects, score, and why it ranks there. */
export function renderRoute(engine: CodeGraphEngine, rs: RouteSet, route: StoredRoute, index: number, boosts: BoostView) {
  const node = engine.graph.get(route.t);
  return {
    route_id: `R${rs.version}.${index}`,
    target: node ? nodeRef(node) : { id: route.t, missing: true },
    via: route.via.map((v) => describeLink({ relation: v.r as never, direction: v.d })).join('; '),
    score: route.s,
    why: explain(route, boosts),
  };
}

/** The score factors of a route by name. */
export function factorsOf(route: StoredRoute): Record<(typeof FACTORS)[number], number> {
  return Object.fromEntries(FACTORS.map((k, i) => [k, route.f[i]])) as Record<(typeof FACTORS)[number], number>;
}

function explain(route: StoredRoute, boosts: BoostView): string {
  const [structural, relevance, centrality, novelty, boost] = route.f;
  const parts = [`edge ${structural}`];
  if (relevance > 0) parts.push(`query match ${relevance}`);
  if (centrality >= 0.5) parts.push(`central ${centrality}`);
  parts.push(novelty > 0 ? 'unvisited' : 'visited');
  if (boost !== 0) {
    const sources = [...new Set(boosts.entries.filter((e) => e.nodeId === route.t).map((e) => e.source))];
    parts.push(`boost ${boost > 0 ? '+' : ''}${boost}${sources.length ? ` (${sources.join(', ')})` : ''}`);
  }
  return parts.join(' · ');
}

/** One page of the current route set. */
export function routePage(engine: CodeGraphEngine, rs: RouteSet, page: number, pageSize: number, boosts: BoostView) {
  const start = (page - 1) * pageSize;
  const slice = rs.items.slice(start, start + pageSize);
  const pages = Math.max(1, Math.ceil(rs.items.length / pageSize));
  return {
    route_set_version: rs.version,
    page,
    pages,
    total_routes: rs.items.length,
    ...(rs.total > rs.items.length ? { candidates_beyond_cap: rs.total - rs.items.length } : {}),
    routes: slice.map((r, i) => renderRoute(engine, rs, r, start + i + 1, boosts)),
    ...(page < pages ? { next_page: page + 1 } : {}),
  };
}
