/** xray_ledger: the append-only ledger of committed xray writes, newest first. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { readLedger } from '../xray/ledger.ts';

export const xrayLedgerVerb = defineVerb({
  name: 'xray_ledger',
  description: 'Committed xray writes (xray_apply files, xray_paint/xray_retag tag changes), newest first.',
  input: Type.Object({
    agent_id: AgentId,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'Most entries' })),
    verb: Type.Optional(StringEnum(['xray_apply', 'xray_paint', 'xray_retag'], { description: 'Only this verb\'s entries' })),
  }),
  output: Type.Object({
    entries: Type.Array(Type.Object({ seq: Type.Number(), at: Type.String(), verb: Type.String(), agent_id: Type.String(), summary: Type.String(), files: Type.Optional(Type.Array(Type.Unknown())), nodes: Type.Optional(Type.Number()), sample: Type.Optional(Type.Array(Type.Unknown())), version_before: Type.Optional(Type.String()), version_after: Type.Optional(Type.String()) })),
    total: Type.Number(),
    shown: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  handler: async (args, call) => {
    const { graph } = await structureCall(call);
    const { entries, total } = readLedger(graph, args.limit ?? 20, args.verb);
    return { entries, total, shown: entries.length };
  },
});
