/** apply: writes one file atomically (optional compare-and-swap) and re-ingests it in the same call. */
import { AgentId, defineVerb, Type, writeFileAtomic } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import type { LockService } from '../../lock/api.ts';
import { proofTargets } from '../proofs.ts';
import { afterWrite, planWrites, snapshotBefore } from '../writes.ts';
import { MAX_CONTENT_CHARS } from '../previews.ts';

export const applyVerb = defineVerb({
  name: 'apply',
  description: 'Write one file (atomic; expected_hash refuses if it changed since you read it), re-ingest it, report graph delta, dependents, tests.',
  input: Type.Object({
    agent_id: AgentId,
    file_path: Type.String({ description: 'Workspace-relative file (created with its folders if absent)' }),
    new_content: Type.String({ maxLength: MAX_CONTENT_CHARS }),
    expected_hash: Type.Optional(Type.String({ description: 'content_hash you read; "absent" for a new file', workspacePath: false })),
    description: Type.Optional(Type.String()),
    reingest: Type.Boolean({ default: true }),
  }),
  output: Type.Object({ written: Type.Array(Type.Object({})), lock_overlaps: Type.Array(Type.Object({})) }),
  tiers: ['essential'],
  effect: 'destructive', // overwrites a file's content
  stages: ['edit'],
  next: 'validate_plan',
  proof: (args, ctx) => proofTargets(ctx.service<GraphService>('graph'), ctx, [args.file_path]),
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    await graph.fresh();
    const [plan] = planWrites(graph, call.agentId, [args]);
    const before = snapshotBefore(graph, [plan]);
    writeFileAtomic(plan.absolute, plan.content);
    return afterWrite(graph, call.service<LockService>('locks'), call, [plan], before, args.reingest);
  },
});
