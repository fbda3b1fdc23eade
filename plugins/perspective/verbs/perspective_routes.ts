/** perspective_routes: a page of the ranked next hops from a perspective's focus. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { perspectiveGraphCall, PerspectiveId, RoutePageOut } from '../context.ts';
import { refOrMissing } from '../graph-view.ts';
import { currentRouteSet, ensureRoutes, routePage } from '../routes.ts';
import { NodeRefSchema } from '../../graph/api.ts';

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
    ...RoutePageOut,
    perspective_id: Type.String(),
    focus: Type.Union([NodeRefSchema, Type.Object({ id: Type.String(), missing: Type.Boolean() })]),
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
