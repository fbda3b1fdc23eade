/** perspective_branch: forks a perspective into a new one (same focus, history and routes). */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { PerspectiveId, perspectiveCall } from '../context.ts';

export const perspectiveBranchVerb = defineVerb({
  name: 'perspective_branch',
  description: 'Fork a perspective into a new one at the same focus, to explore an alternative without losing your place.',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, branch_name: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })) }),
  output: Type.Object({
    persisted: Type.Boolean(),
    route_set_version: Type.Optional(Type.Number()),
    perspective_id: Type.String(),
    branch_of: Type.String(),
    name: Type.String(),
    focus: Type.String(),
    depth: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['find'],
  next: 'perspective_routes',
  handler: async (args, call) => {
    const { book, agentId } = await perspectiveCall(call);
    const p = book.load(agentId, args.perspective_id);
    const now = Date.now();
    const branch = { ...structuredClone(p), id: book.newId(agentId), name: args.branch_name ?? `${p.name} (branch)`, parent: p.id, created_at: now, updated_at: now };
    book.save(branch);
    return {
      perspective_id: branch.id,
      branch_of: p.id,
      name: branch.name,
      focus: branch.focus,
      depth: branch.history.length,
      ...(branch.routes ? { route_set_version: branch.routes.version } : {}),
      persisted: book.persisted,
    };
  },
});
