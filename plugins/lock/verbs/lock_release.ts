/** lock_release: drops one of the agent's locks. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { LockBook } from '../book.ts';
import { graphService } from '../graph-view.ts';
import type { StateService } from '../../state/api.ts';

export const lockReleaseVerb = defineVerb({
  name: 'lock_release',
  description: 'Release one of your locks (its baseline is dropped).',
  input: Type.Object({ agent_id: AgentId, lock_id: Type.String({ minLength: 1 }) }),
  output: Type.Object({ released: Type.String(), scope: Type.String(), nodes: Type.Number(), still_held: Type.Array(Type.String()) }),
  tiers: ['full'],
  effect: 'destructive',
  stages: ['edit', 'handoff'],
  handler: async (args, call) => {
    const graph = graphService(call);
    await graph.fresh();
    const book = new LockBook(call.service<StateService>('state').team);
    const lock = await book.owned(call.agentId, args.lock_id);
    await book.remove(lock);
    return { released: lock.lock_id, scope: lock.spec.scope, nodes: lock.region.nodes.length, still_held: (await book.held(call.agentId)).map((l) => l.lock_id) };
  },
});
