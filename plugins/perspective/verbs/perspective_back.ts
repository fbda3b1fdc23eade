/** perspective_back: undoes the last move, restoring the previous checkpoint's focus and routes. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { perspectiveGraphCall, PerspectiveId, RoutePageOut } from '../context.ts';
import { refOrMissing } from '../graph-view.ts';
import { ensureRoutes, routePage } from '../routes.ts';
import { stepBack } from '../state.ts';
import { NodeRefSchema } from '../../graph/api.ts';

export const perspectiveBackVerb = defineVerb({
  name: 'perspective_back',
  description: 'Undo the last focus move: back to the previous checkpoint, with fresh routes.',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId }),
  output: Type.Object({
    ...RoutePageOut,
    perspective_id: Type.String(),
    focus: Type.Union([NodeRefSchema, Type.Object({ id: Type.String(), missing: Type.Boolean() })]),
    left: Type.String(),
    depth: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['find'],
  next: 'perspective_routes',
  handler: async (args, call) => {
    const { engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const left = stepBack(p);
    if (left === null) {
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `perspective "${p.id}" is at its starting node; there is no checkpoint to go back to`, {
        hint: `follow a route first, or start another perspective: perspective_start({"agent_id":"${agentId}","query":"…"})`,
      });
    }
    ensureRoutes(engine, p, boosts);
    book.save(p);
    return {
      perspective_id: p.id,
      focus: refOrMissing(engine.graph, p.focus),
      left,
      depth: p.history.length,
      ...routePage(engine, p.routes!, 1, 6, boosts),
    };
  },
});
