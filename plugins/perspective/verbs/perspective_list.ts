/** perspective_list: the calling agent's perspectives, with where each stands and the limits. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { perspectiveCall } from '../context.ts';

export const perspectiveListVerb = defineVerb({
  name: 'perspective_list',
  description: 'List your perspectives: focus, depth, route set and whether the graph changed under it.',
  input: Type.Object({ agent_id: AgentId }),
  output: Type.Object({
    storage: Type.String(),
    perspectives: Type.Array(Type.Object({})),
    usage: Type.Object({ open: Type.Number(), bytes: Type.Number(), limits: Type.Object({}) }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient', 'handoff'],
  handler: async (_args, call) => {
    const { graph, book, agentId } = await perspectiveCall(call);
    const mine = book.list(agentId);
    const g = graph.engine.graph;
    return {
      storage: book.storage,
      perspectives: mine.map((p) => ({
        perspective_id: p.id,
        name: p.name,
        focus: { id: p.focus, label: g.get(p.focus)?.label ?? null },
        depth: p.history.length,
        visited: p.visited.length + p.visited_dropped,
        ...(p.parent ? { branch_of: p.parent } : {}),
        ...(p.routes ? { route_set_version: p.routes.version, routes_stale: p.routes.generation !== graph.engine.generation } : {}),
        updated_at: new Date(p.updated_at).toISOString(),
      })),
      usage: book.usage(agentId, mine),
    };
  },
});
