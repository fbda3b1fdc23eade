/** surgical_context_v2: surgical_context plus excerpts of connected files; proves the file for this agent's writes. */
import { defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { connectedExcerpts } from '../excerpts.ts';
import { recordProof } from '../proofs.ts';
import { surgicalContext } from '../surgical.ts';
import { SurgicalOut, SurgicalParams } from './surgical_context.ts';

export const surgicalContextV2Verb = defineVerb({
  name: 'surgical_context_v2',
  description: 'surgical_context plus ranked source excerpts of connected files. Proves the file for your writes (until it changes).',
  input: Type.Object({
    ...SurgicalParams,
    max_connected_files: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
    max_lines_per_file: Type.Integer({ minimum: 1, maximum: 400, default: 60 }),
  }),
  output: Type.Object({
    connected_files: Type.Array(Type.Object({})),
    connected_budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    files_connected: Type.Number(),
    proof: Type.Object({ state: Type.String(), file_path: Type.String(), content_hash: Type.String(), note: Type.String() }),
    ...SurgicalOut,
  }),
  tiers: ['essential'],
  effect: 'session',
  proves: true,
  stages: ['edit'],
  next: 'apply',
  guide:
    'The content takes up to 60% of `token_budget`; the excerpts of connected files (ranked by edge strength: callers, callees, importers, tests) share the rest. The call marks the file proven for your `agent_id` at its current content hash: with the proof gate on (M1ND_PROOF_GATE=1), apply, apply_batch and edit_commit accept the file only while it still has that hash.',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const contentBudget = Math.floor(args.token_budget * 0.6);
    const ctx = await surgicalContext(graph, { ...args, token_budget: contentBudget }, call);
    const connected = connectedExcerpts(graph, ctx.neighbourhood, {
      maxFiles: args.max_connected_files,
      maxLinesPerFile: args.max_lines_per_file,
      budget: Math.max(1, args.token_budget - contentBudget),
    });
    recordProof(call, ctx.file_path, ctx.content_hash);
    return {
      ...ctx,
      connected_files: args.max_connected_files === 0 ? [] : connected.excerpts,
      connected_budget: connected.budget,
      files_connected: connected.files_connected,
      proof: { state: 'ready_to_edit', file_path: ctx.file_path, content_hash: ctx.content_hash, note: 'valid for your writes until the file changes' },
    };
  },
});
