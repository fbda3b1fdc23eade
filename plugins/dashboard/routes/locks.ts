/** GET /api/locks: every lock's region, owner and the locks it overlaps (shared nodes or line ranges). */
import type { HttpRouteResponse } from '../../../core/index.ts';
import { iso, json, type DashboardContext } from '../context.ts';

export function locks(ctx: DashboardContext): HttpRouteResponse {
  const regions = ctx.locks.regions();
  const views = regions.map((l) => ({
    id: l.lock_id,
    owner: l.agent_id,
    scope: l.scope,
    exclusive: l.exclusive,
    paths: [...new Set(l.nodes.map((n) => n.path))].sort(),
    node_ids: l.nodes.map((n) => n.id),
    created_at: iso(l.created_at),
    expires_at: null,
    overlaps: [] as string[],
  }));
  // Two locks overlap when they pin a node in common or line ranges of one file that intersect.
  for (let i = 0; i < regions.length; i++) {
    for (let j = i + 1; j < regions.length; j++) {
      if (!overlap(regions[i].nodes, regions[j].nodes)) continue;
      views[i].overlaps.push(regions[j].lock_id);
      views[j].overlaps.push(regions[i].lock_id);
    }
  }
  return json({ locks: views });
}

type RegionNode = { id: string; path: string; lines: [number, number] | null };

function overlap(a: RegionNode[], b: RegionNode[]): boolean {
  const ids = new Set(a.map((n) => n.id));
  if (b.some((n) => ids.has(n.id))) return true;
  const byPath = new Map<string, RegionNode[]>();
  for (const n of a) byPath.set(n.path, [...(byPath.get(n.path) ?? []), n]);
  return b.some((n) => (byPath.get(n.path) ?? []).some((m) => !m.lines || !n.lines || (m.lines[0] <= n.lines[1] && n.lines[0] <= m.lines[1])));
}
