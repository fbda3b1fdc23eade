/** lock_diff: what changed inside a lock's region since its baseline — nodes, edges, files and lines. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { LockBook } from '../book.ts';
import { graphService } from '../graph-view.ts';
import { diffLock } from '../watch.ts';
import type { StateService } from '../../state/api.ts';

export const lockDiffVerb = defineVerb({
  name: 'lock_diff',
  description: "What changed in your lock's region since its baseline: nodes and edges added, removed or changed, with files and lines.",
  input: Type.Object({ agent_id: AgentId, lock_id: Type.String({ minLength: 1 }) }),
  output: Type.Object({
    look_next: Type.Optional(Type.Object({ tool: Type.String(), arguments: Type.Object({}) })),
    overlaps: Type.Optional(Type.Array(Type.Object({}))),
    watch: Type.Object({ strategy: Type.String(), checked_generation: Type.Number(), events: Type.Array(Type.Unknown()) }),
    missing_seeds: Type.Optional(Type.Array(Type.String())),
    unindexed_edits: Type.Optional(Type.Array(Type.String())),
    note: Type.Optional(Type.String()),
    lock_id: Type.String(),
    changed: Type.Boolean(),
    baseline_generation: Type.Number(),
    generation: Type.Number(),
    nodes: Type.Object({ added: Type.Array(Type.Unknown()), removed: Type.Array(Type.Unknown()), changed: Type.Array(Type.Unknown()), moved: Type.Array(Type.Unknown()) }),
    edges: Type.Object({ added: Type.Array(Type.Unknown()), removed: Type.Array(Type.Unknown()), reweighted: Type.Array(Type.Unknown()) }),
    files: Type.Array(Type.Object({})),
    unchanged_nodes: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review', 'edit'],
  next: 'lock_rebase',
  handler: async (args, call) => {
    const graph = graphService(call);
    const engine = await graph.requireGraph();
    const book = new LockBook(call.service<StateService>('state').team);
    const lock = await book.owned(call.agentId, args.lock_id);
    const { region, diff } = await diffLock(engine, book, lock);
    const first = diff.nodes.changed[0] ?? diff.nodes.added[0];
    const overlaps = await book.overlaps(call.agentId, region.nodes, lock.lock_id);
    return {
      lock_id: lock.lock_id,
      changed: diff.changed,
      baseline_generation: lock.region.generation,
      generation: engine.generation,
      nodes: diff.nodes,
      edges: diff.edges,
      files: diff.files,
      unchanged_nodes: diff.unchanged_nodes,
      ...(diff.unindexed_edits.length ? { unindexed_edits: diff.unindexed_edits, note: 'these files changed on disk but the graph has not re-ingested them: call ingest to see which nodes changed' } : {}),
      ...(region.missing.length ? { missing_seeds: region.missing } : {}),
      watch: { strategy: lock.strategy, checked_generation: lock.checked_generation, events: lock.events },
      ...(overlaps.length ? { overlaps } : {}),
      ...(first?.lines
        ? { look_next: { tool: 'view', arguments: { agent_id: call.agentId, file_path: first.path, offset: first.lines[0] - 1, limit: first.lines[1] - first.lines[0] + 1 } } }
        : {}),
    };
  },
});
