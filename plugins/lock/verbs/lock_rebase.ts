/** lock_rebase: accepts what changed — re-captures the lock's baseline from the current graph. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { diffCounts } from '../baseline.ts';
import { heldRegion, LockBook } from '../book.ts';
import { graphService } from '../graph-view.ts';
import { diffLock } from '../watch.ts';
import type { StateService } from '../../state/api.ts';

export const lockRebaseVerb = defineVerb({
  name: 'lock_rebase',
  description: "Accept the changes: re-capture your lock's baseline from the current graph, keeping the lock.",
  input: Type.Object({ agent_id: AgentId, lock_id: Type.String({ minLength: 1 }) }),
  output: Type.Object({
    lock_id: Type.String(),
    accepted: Type.Object({ nodes_added: Type.Number(), nodes_removed: Type.Number(), nodes_changed: Type.Number(), edges_added: Type.Number(), edges_removed: Type.Number(), edges_reweighted: Type.Number() }),
    baseline_generation: Type.Number(),
    previous_baseline_generation: Type.Number(),
    region: Type.Object({ truncated: Type.Optional(Type.Boolean()), nodes: Type.Number(), edges: Type.Number(), files: Type.Number() }),
    not_held: Type.Optional(Type.Array(Type.Object({ node: Type.String(), lock_id: Type.Optional(Type.String()), agent_id: Type.Optional(Type.String()) }), { description: 'exclusive lock: nodes that joined the region but another exclusive lock holds' })),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['edit', 'review'],
  handler: async (args, call) => {
    const graph = graphService(call);
    const engine = await graph.requireGraph();
    const book = new LockBook(call.service<StateService>('state').team);
    const lock = await book.owned(call.agentId, args.lock_id);
    const { region, now, diff } = await diffLock(engine, book, lock);
    if (diff.unindexed_edits.length) {
      // The graph has not read these edits: a baseline taken now would hash new text over old line ranges.
      throw new M1ndError(ErrorCodes.STATE_STALE, `${diff.unindexed_edits.length} file${diff.unindexed_edits.length === 1 ? '' : 's'} of the region changed on disk since the graph read them (${diff.unindexed_edits.slice(0, 5).join(', ')}); nothing was rebased`, {
        hint: `call ingest({"agent_id":"${call.agentId}","path":"${engine.root}","incremental":true}), then lock_rebase again`,
        data: { unindexed_edits: diff.unindexed_edits },
      });
    }
    const previous = lock.region.generation;
    const before = lock.region.nodes;
    lock.region = heldRegion(now);
    lock.checked_generation = engine.generation;
    lock.events = [];
    lock.rebased_at = Date.now();
    // An exclusive lock's holds move with its region (else a node that left stays held after release).
    const notHeld = await book.saveRecaptured(lock, now, before);
    return {
      lock_id: lock.lock_id,
      accepted: diffCounts(diff),
      baseline_generation: now.generation,
      previous_baseline_generation: previous,
      region: { nodes: region.nodes.length, edges: Object.keys(now.edges).length, files: Object.keys(now.files).length, ...(region.truncated ? { truncated: true } : {}) },
      ...(notHeld.length ? { not_held: notHeld.map((n) => ({ node: n.node, ...(n.holder ? { lock_id: n.holder.lock_id, agent_id: n.holder.agent_id } : {}) })) } : {}),
    };
  },
});
