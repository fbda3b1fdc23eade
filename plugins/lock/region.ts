/**
 * The region a lock pins, by scope: `node` (the roots), `subgraph` (the roots and what lies within
 * `radius` hops: any relation outward, any but containment inward — a lock on a function takes
 * its callers and callees, not its whole file), `query_neighborhood` (the same around the roots
 * plus the best matches of a query), or `path` (explicit nodes, or the shortest path through the
 * roots). Seeds are resolved once, at creation, so every re-check recaptures the same region.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { CodeGraphEngine } from '../graph/api.ts';
import type { CodeGraph } from '../graph/api.ts';

export const SCOPES = ['node', 'subgraph', 'query_neighborhood', 'path'] as const;
export type Scope = (typeof SCOPES)[number];

/** Most nodes one lock captures (nearest first); the region says when it was cut. */
export const MAX_REGION_NODES = 2000;
/** Longest path searched between two roots for the `path` scope. */
const MAX_PATH_HOPS = 8;
/** Default radius per scope. */
export const DEFAULT_RADIUS: Partial<Record<Scope, number>> = { subgraph: 2, query_neighborhood: 1 };

/** What a lock was asked to pin, with its seeds resolved to node ids. */
export interface RegionSpec {
  scope: Scope;
  /** Seed node ids (roots, plus a query's matches for query_neighborhood). */
  seeds: string[];
  radius?: number;
  query?: string;
  /** Ordered node ids of a `path` lock. */
  path?: string[];
}

/** The node ids of a region on the current graph. */
export interface Region {
  nodes: string[];
  truncated: boolean;
  /** Seeds (or path nodes) no longer in the graph. */
  missing: string[];
}

function isContains(g: CodeGraph, edge: number): boolean {
  return g.edge(edge)!.relation === 'contains';
}

/** Captures a region from its spec on the current graph. */
export function captureRegion(engine: CodeGraphEngine, spec: RegionSpec): Region {
  const g = engine.graph;
  const fixed = spec.scope === 'path' ? spec.path ?? [] : spec.seeds;
  const present = fixed.filter((id) => g.indexOf(id) >= 0);
  const missing = fixed.filter((id) => g.indexOf(id) < 0);
  if (spec.scope === 'node' || spec.scope === 'path') return { nodes: present, truncated: false, missing };
  const radius = spec.radius ?? DEFAULT_RADIUS[spec.scope] ?? 1;
  const seen = new Set<number>(present.map((id) => g.indexOf(id)));
  let frontier = [...seen];
  let truncated = false;
  for (let hop = 0; hop < radius && frontier.length > 0 && !truncated; hop++) {
    const next: number[] = [];
    const reach = (i: number) => {
      if (seen.has(i)) return;
      if (seen.size >= MAX_REGION_NODES) {
        truncated = true;
        return;
      }
      seen.add(i);
      next.push(i);
    };
    for (const i of frontier) {
      g.forEachOut(i, (t) => reach(t));
      g.forEachIn(i, (s, _w, _r, e) => {
        if (!isContains(g, e)) reach(s);
      });
    }
    frontier = next;
  }
  return { nodes: [...seen].map((i) => g.node(i)!.id), truncated, missing };
}

/** The shortest path (any relation, either direction) through the given nodes in order. */
export function pathThrough(engine: CodeGraphEngine, ids: string[]): string[] {
  const g = engine.graph;
  const out: string[] = [ids[0]];
  for (let k = 1; k < ids.length; k++) {
    const from = g.indexOf(ids[k - 1]);
    const to = g.indexOf(ids[k]);
    const parent = new Map<number, number>([[from, -1]]);
    let frontier = [from];
    for (let hop = 0; hop < MAX_PATH_HOPS && !parent.has(to) && frontier.length; hop++) {
      const next: number[] = [];
      const step = (n: number, via: number) => {
        if (!parent.has(n)) {
          parent.set(n, via);
          next.push(n);
        }
      };
      for (const i of frontier) {
        g.forEachOut(i, (t) => step(t, i));
        g.forEachIn(i, (s) => step(s, i));
      }
      frontier = next;
    }
    if (!parent.has(to)) {
      throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `no path of at most ${MAX_PATH_HOPS} edges links ${ids[k - 1]} to ${ids[k]}`, {
        hint: 'pass the path explicitly in path_nodes, or lock them as scope "node"',
      });
    }
    const leg: string[] = [];
    for (let n = to; n !== from; n = parent.get(n)!) leg.push(g.node(n)!.id);
    out.push(...leg.reverse());
  }
  return out;
}
