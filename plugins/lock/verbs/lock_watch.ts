/** lock_watch: sets when a lock is re-checked against its baseline (manual, on_ingest, on_learn, periodic). */
import { AgentId, defineVerb, StringEnum, Type, type CatalogView } from '../../../core/index.ts';
import { LockBook, STRATEGIES } from '../book.ts';
import { graphService } from '../graph-view.ts';
import { strategyMeaning } from '../watch.ts';
import type { StateService } from '../../state/api.ts';

/** The lock_watch verb; `periodicSeconds` is this server's re-check interval for `periodic`. */
export function lockWatchVerb(catalog: CatalogView, periodicSeconds: number) {
  return defineVerb({
    name: 'lock_watch',
    description: 'Set when your lock is re-checked: manual, on_ingest, on_learn or periodic. Changes found are listed by lock_diff.',
    input: Type.Object({ agent_id: AgentId, lock_id: Type.String({ minLength: 1 }), strategy: StringEnum(STRATEGIES) }),
    output: Type.Object({ lock_id: Type.String(), strategy: Type.String(), previous: Type.String(), means: Type.String(), checked_generation: Type.Number() }),
    tiers: ['full'],
    effect: 'write',
    stages: ['edit'],
    next: 'lock_diff',
    handler: async (args, call) => {
      const graph = graphService(call);
      const engine = await graph.requireGraph();
      const book = new LockBook(call.service<StateService>('state').team);
      const lock = await book.owned(call.agentId, args.lock_id);
      const before = lock.strategy;
      lock.strategy = args.strategy;
      lock.checked_generation = engine.generation;
      await book.save(lock);
      return {
        lock_id: lock.lock_id,
        strategy: lock.strategy,
        previous: before,
        means: strategyMeaning(args.strategy, periodicSeconds, catalog.get('learn') !== undefined),
        checked_generation: lock.checked_generation,
      };
    },
  });
}
