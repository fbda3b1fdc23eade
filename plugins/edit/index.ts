/**
 * The edit family: surgical context that proves a file for an agent's writes, previews, single and
 * batched atomic writes (journaled, recovered at start), and plan validation — each write keeps the
 * graph in step in the same call and reports what it touched.
 */
import { definePlugin } from '../../core/index.ts';
import { applyVerb } from './verbs/apply.ts';
import { editCommitVerb } from './verbs/edit_commit.ts';
import { editPreviewVerb } from './verbs/edit_preview.ts';
import { surgicalContextVerb } from './verbs/surgical_context.ts';
import { surgicalContextV2Verb } from './verbs/surgical_context_v2.ts';

export default definePlugin({
  name: 'edit',
  version: '0.1.0',
  description: 'Edits through the graph: surgical context, previews, atomic writes, plan validation.',
  requires: ['graph', 'locks'],
  apply(ctx) {
    for (const verb of [surgicalContextVerb, surgicalContextV2Verb, editPreviewVerb, editCommitVerb, applyVerb]) ctx.registerVerb(verb);
  },
});
