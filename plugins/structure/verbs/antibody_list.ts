/** antibody_list: the stored bug patterns. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { antibodyView, listAntibodies } from '../antibodies.ts';
import { structureCall } from '../call.ts';

export const antibodyListVerb = defineVerb({
  name: 'antibody_list',
  description: 'Lists the stored bug patterns (antibodies) with their kind, severity and specificity.',
  input: Type.Object({
    agent_id: AgentId,
    include_disabled: Type.Optional(Type.Boolean({ default: false, description: 'List disabled ones too' })),
  }),
  output: Type.Object({ antibodies: Type.Array(Type.Object({})), total: Type.Number(), disabled: Type.Number() }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'antibody_scan',
  handler: async (args, call) => {
    const { graph } = await structureCall(call);
    const all = listAntibodies(graph);
    const shown = all.filter((a) => a.enabled || args.include_disabled);
    return { antibodies: shown.map(antibodyView), total: all.length, disabled: all.filter((a) => !a.enabled).length };
  },
});
