/** perspective_follow: moves the focus along a route (checkpointing the old one) and recomputes routes. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { perspectiveGraphCall, PerspectiveId, RouteChoice, RoutePageOut, RouteSetVersion } from '../context.ts';
import { nodeRef } from '../graph-view.ts';
import { ensureRoutes, pickRoute, routePage } from '../routes.ts';
import { moveFocus } from '../state.ts';
import { NodeRefSchema } from '../../graph/api.ts';

export const perspectiveFollowVerb = defineVerb({
  name: 'perspective_follow',
  description: 'Move the focus along a route (perspective_back undoes it); returns the new routes.',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, ...RouteChoice, route_set_version: RouteSetVersion }),
  output: Type.Object({
    ...RoutePageOut,
    perspective_id: Type.String(),
    focus: NodeRefSchema,
    from: Type.String(),
    depth: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['find'],
  next: 'perspective_routes',
  handler: async (args, call) => {
    const { engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const { route } = pickRoute(engine, p, args);
    const from = p.focus;
    moveFocus(p, route.t, [...new Set(route.via.map((v) => v.r))]);
    ensureRoutes(engine, p, boosts);
    book.save(p);
    return {
      perspective_id: p.id,
      focus: nodeRef(engine.graph.get(p.focus)!),
      from,
      depth: p.history.length,
      ...routePage(engine, p.routes!, 1, 6, boosts),
    };
  },
});
