/** perspective_routes: a page of the ranked next hops from a perspective's focus. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { PerspectiveId, perspectiveGraphCall } from '../context.ts';
import { refOrMissing } from '../graph-view.ts';
import { currentRouteSet, ensureRoutes, routePage } from '../routes.ts';

export const perspectiveRoutesVerb = defineVerb({
  name: 'perspective_routes',
  description: 'Page through the ranked next hops from a perspective\'s focus, each with why it ranks there. Refreshes a stale route set.',
  input: Type.Object({
    agent_id: AgentId,
    perspective_id: PerspectiveId,
    page: Type.Integer({ minimum: 1, default: 1 }),
    page_size: Type.Integer({ minimum: 1, maximum: 40, default: 6 }),
    route_set_version: Type.Optional(Type.Integer({ minimum: 0, description: 'Page this route set (refused if stale); omit for the current one' })),
  }),
  output: Type.Object({
    note: Type.Optional(Type.String()),
    refreshed: Type.Boolean(),
    next_page: Type.Optional(Type.Number()),
    routes: Type.Array(Type.Object({})),
    candidates_beyond_cap: Type.Optional(Type.Number()),
    route_set_version: Type.Number(),
    page: Type.Number(),
    pages: Type.Number(),
    total_routes: Type.Number(),
    perspective_id: Type.String(),
    focus: Type.Union([Type.Object({ id: Type.String(), kind: Type.String(), label: Type.String(), path: Type.String(), lines: Type.Union([Type.Array(Type.Unknown()), Type.Null()]) }), Type.Object({ id: Type.String(), missing: Type.Boolean() })]),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['find'],
  next: 'perspective_follow',
  handler: async (args, call) => {
    const { engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    let refreshed = false;
    if (args.route_set_version !== undefined) currentRouteSet(engine, p, args.route_set_version);
    else if ((refreshed = ensureRoutes(engine, p, boosts))) book.save(p);
    const focus = refOrMissing(engine.graph, p.focus);
    return {
      perspective_id: p.id,
      focus,
      ...routePage(engine, p.routes!, args.page, args.page_size, boosts),
      refreshed,
      ...('missing' in focus ? { note: 'the focus left the graph (deleted or renamed): perspective_back, or perspective_start anew' } : {}),
    };
  },
});
