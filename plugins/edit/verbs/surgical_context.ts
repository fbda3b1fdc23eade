/** surgical_context: a file prepared for an edit — numbered content, symbols, and who it touches. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { surgicalContext } from '../surgical.ts';

/** Parameters both surgical verbs take. */
export const SurgicalParams = {
  agent_id: AgentId,
  file_path: Type.String({ description: 'Workspace-relative file' }),
  symbol: Type.Optional(Type.String({ description: 'Narrow to one symbol of the file (name or id)', workspacePath: false })),
  radius: Type.Integer({ minimum: 1, maximum: 3, default: 1, description: 'Hops for callers/callees' }),
  include_tests: Type.Boolean({ default: true }),
  token_budget: Type.Integer({ minimum: 200, maximum: 20000, default: 6000, description: 'Max BPE tokens of content' }),
};

/** Output fields both surgical verbs return. */
export const SurgicalOut = {
  file_path: Type.String(),
  content_hash: Type.String(),
  total_lines: Type.Number(),
  lines: Type.Array(Type.Unknown()),
  content: Type.String(),
  truncated: Type.Boolean(),
  symbols: Type.Array(Type.Object({})),
  focus: Type.Union([Type.Object({ id: Type.String(), kind: Type.String(), label: Type.String(), lines: Type.Array(Type.Unknown()) }), Type.Null()]),
  neighbourhood: Type.Object({
    callers: Type.Array(Type.Unknown()),
    callees: Type.Array(Type.Unknown()),
    importers: Type.Array(Type.Unknown()),
    tests: Type.Array(Type.Unknown()),
    totals: Type.Object({ callers: Type.Number(), callees: Type.Number(), importers: Type.Number(), tests: Type.Number() }, { description: 'Neighbours per group before the cap of 40' }),
  }),
  in_graph: Type.Boolean(),
  note: Type.Optional(Type.String()),
};

export const surgicalContextVerb = defineVerb({
  name: 'surgical_context',
  description: "A file's numbered content, symbols with line ranges, and its callers, callees, importers and tests.",
  input: Type.Object(SurgicalParams),
  output: Type.Object(SurgicalOut),
  effect: 'read',
  stages: ['edit', 'ground'],
  next: 'surgical_context_v2',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    return surgicalContext(graph, args, call);
  },
});
