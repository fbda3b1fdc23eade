/** GET /api/agents: the MCP sessions connected now and every agent's call statistics. */
import type { HttpRouteRequest, HttpRouteResponse } from '../../../core/index.ts';
import { iso, json, type DashboardContext } from '../context.ts';

export function agents(ctx: DashboardContext, req: HttpRouteRequest): HttpRouteResponse {
  const seen = new Map(ctx.stats.connectionsView().map((c) => [c.id, c]));
  const sessions = req
    .mcpSessions()
    .sort((a, b) => b.last_seen_at - a.last_seen_at)
    .map((s) => {
      const calls = seen.get(s.session_id);
      return {
        session_id: s.session_id,
        agent_id: calls?.agentId ?? null,
        transport: 'http',
        connected_at: iso(s.connected_at),
        last_seen_at: iso(Math.max(s.last_seen_at, calls?.lastAt ?? 0)),
        calls: calls?.calls ?? 0,
      };
    });
  return json({ sessions, agents: ctx.stats.agentsView() });
}
