/** edit_commit: writes a staged preview (confirm: true) if the file is still the one previewed. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type, writeFileAtomic } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import type { LockService } from '../../lock/api.ts';
import { dropPreview, findPreview, requirePreview } from '../previews.ts';
import { proofTargets } from '../proofs.ts';
import { afterWrite, planWrites, refreshCall, snapshotBefore } from '../writes.ts';

export const editCommitVerb = defineVerb({
  name: 'edit_commit',
  description: 'Write a staged edit_preview (needs confirm: true); refused if the file changed since the preview.',
  input: Type.Object({
    agent_id: AgentId,
    preview_id: Type.String(),
    confirm: Type.Boolean({ default: false }),
    reingest: Type.Boolean({ default: true }),
  }),
  output: Type.Object({ written: Type.Array(Type.Object({})), lock_overlaps: Type.Array(Type.Object({})), preview_id: Type.String() }),
  effect: 'destructive', // overwrites a file's content
  stages: ['edit'],
  proof: (args, ctx) => {
    const p = findPreview(ctx.session, ctx.agentId, args.preview_id);
    return p ? proofTargets(ctx.service<GraphService>('graph'), ctx, [p.file_path]) : { targets: null };
  },
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const preview = requirePreview(call.session, call.agentId, args.preview_id);
    if (!args.confirm) {
      throw new M1ndError(ErrorCodes.EDIT_CONFIRM_REQUIRED, `edit_commit writes ${preview.file_path} only with confirm: true`, {
        hint: `edit_commit({"agent_id":"${call.agentId}","preview_id":"${preview.preview_id}","confirm":true})`,
      });
    }
    await graph.fresh();
    let plan;
    try {
      [plan] = planWrites(graph, call.agentId, [{ file_path: preview.file_path, new_content: preview.new_content, expected_hash: preview.base_hash }]);
    } catch (error) {
      if (!(error instanceof M1ndError) || error.code !== ErrorCodes.EDIT_STALE_BASE) throw error;
      dropPreview(call.session, call.agentId, preview.preview_id);
      throw new M1ndError(ErrorCodes.EDIT_STALE_BASE, `${preview.file_path} changed since preview ${preview.preview_id} was made; nothing was written and the preview is dropped`, {
        hint: `re-read it with ${refreshCall(call.agentId, preview.file_path)}, then stage the edit again with edit_preview`,
        data: error.data,
      });
    }
    const before = snapshotBefore(graph, [plan]);
    writeFileAtomic(plan.absolute, plan.content);
    dropPreview(call.session, call.agentId, preview.preview_id);
    return { preview_id: preview.preview_id, ...(await afterWrite(graph, call.service<LockService>('locks'), call, [plan], before, args.reingest)) };
  },
});
