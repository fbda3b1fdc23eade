/**
 * The edit family: surgical context that proves a file for an agent's writes, previews, single and
 * batched atomic writes (journaled, recovered at start), and plan validation — each write keeps the
 * graph in step in the same call and reports what it touched.
 */
import { relative } from 'node:path';
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { recoverJournals, type RecoveredBatch } from './journal.ts';
import { applyVerb } from './verbs/apply.ts';
import { applyBatchVerb } from './verbs/apply_batch.ts';
import { editCommitVerb } from './verbs/edit_commit.ts';
import { editPreviewVerb } from './verbs/edit_preview.ts';
import { surgicalContextVerb } from './verbs/surgical_context.ts';
import { surgicalContextV2Verb } from './verbs/surgical_context_v2.ts';
import { validatePlanVerb } from './verbs/validate_plan.ts';
import type { VerifyCommand } from './verify.ts';

const Command = Type.Object({ command: Type.String({ minLength: 1 }), args: Type.Array(Type.String(), { default: [] }) });
const Options = Type.Object({
  verify: Type.Record(Type.String(), Command, { default: {}, description: 'Compile check per project type (typescript, python, go, rust), replacing the built-in one' }),
  verifyTimeoutSeconds: Type.Integer({ minimum: 5, maximum: 3600, default: 300 }),
});

export default definePlugin<{ verify: Record<string, VerifyCommand>; verifyTimeoutSeconds: number }>({
  name: 'edit',
  version: '0.1.0',
  description: 'Edits through the graph: surgical context, previews, atomic writes, plan validation.',
  requires: ['graph', 'locks'],
  options: Options,
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    const batch = applyBatchVerb({ overrides: ctx.options.verify, timeoutMs: ctx.options.verifyTimeoutSeconds * 1000 });
    for (const verb of [surgicalContextVerb, surgicalContextV2Verb, editPreviewVerb, editCommitVerb, applyVerb, batch, validatePlanVerb]) ctx.registerVerb(verb);

    // A batch a crash interrupted is finished before anything else reads the workspace.
    let recovered: RecoveredBatch[] = [];
    let recoveryError: string | null = null;
    ctx.hooks.boot.tap('edit', () => {
      if (!graph.writable) return; // read-only: never touch files; health says a journal waits
      try {
        recovered = recoverJournals(graph.engine.storeDir);
        for (const r of recovered) ctx.log.warn(`edit: interrupted batch ${r.batch_id} of agent ${r.agent_id} ${r.outcome.replace('_', ' ')} (${r.files.length} files)`);
      } catch (error) {
        recoveryError = (error as Error).message;
        ctx.log.warn(`edit: batch journal recovery failed: ${recoveryError}`);
      }
    });
    ctx.hooks.health.tap('edit', (report) => ({
      ...report,
      edit: {
        recovered_batches: recovered.map((r) => ({ ...r, files: r.files.map((f) => relative(graph.engine.root, f).split('\\').join('/')) })),
        ...(recoveryError ? { recovery_error: recoveryError } : {}),
      },
    }));
  },
});
