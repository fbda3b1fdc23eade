/** perspective_close: closes one of the agent's perspectives (its branches stay open). */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { PerspectiveId, perspectiveCall } from '../context.ts';

export const perspectiveCloseVerb = defineVerb({
  name: 'perspective_close',
  description: 'Close one of your perspectives and free its memory (branches of it stay open).',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId }),
  output: Type.Object({ closed: Type.String(), name: Type.String(), branches_left_open: Type.Array(Type.String()), open: Type.Number() }),
  tiers: ['full'],
  effect: 'session',
  stages: ['handoff'],
  handler: async (args, call) => {
    const { book, agentId } = await perspectiveCall(call);
    const p = book.load(agentId, args.perspective_id);
    book.remove(p);
    const rest = book.list(agentId);
    return {
      closed: p.id,
      name: p.name,
      branches_left_open: rest.filter((x) => x.parent === p.id).map((x) => x.id),
      open: rest.length,
    };
  },
});
