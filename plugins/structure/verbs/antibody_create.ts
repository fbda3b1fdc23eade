/** antibody_create: store a bug pattern (a buggy function's AST shape, or a tree-sitter query), or enable/disable/delete one. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { antibodyView, buildAntibody, deleteAntibody, getAntibody, saveAntibody, SEVERITIES, type Severity } from '../antibodies.ts';
import { structureCall } from '../call.ts';
import { CODE_LANGUAGES } from '../code-trees.ts';

export const antibodyCreateVerb = defineVerb({
  name: 'antibody_create',
  description: 'Stores a known bug pattern — the AST shape of a buggy function (given, or confirmed by a learn correction), or a tree-sitter query — for antibody_scan; or enables, disables, deletes one.',
  input: Type.Object({
    agent_id: AgentId,
    action: Type.Optional(StringEnum(['create', 'enable', 'disable', 'delete'], { default: 'create', description: 'What to do' })),
    antibody_id: Type.Optional(Type.String({ maxLength: 40, description: 'For enable/disable/delete' })),
    name: Type.Optional(Type.String({ maxLength: 120, description: 'Short name (create)' })),
    description: Type.Optional(Type.String({ maxLength: 2000, description: 'What the bug is and how it was fixed' })),
    severity: Type.Optional(StringEnum([...SEVERITIES], { default: 'warning' })),
    pattern: Type.Optional(
      Type.Object({
        from_node: Type.Optional(Type.String({ maxLength: 512, description: 'The buggy function/method/class (its AST shape is the pattern); with from_learn, which of the correction\'s nodes' })),
        from_learn: Type.Optional(Type.String({ maxLength: 1000, description: 'A learn correction (feedback correct/partial) by its query, or "latest": the confirmed node\'s shape as it was then' })),
        query: Type.Optional(Type.String({ maxLength: 4000, description: 'A tree-sitter query; @hit marks the reported node' })),
        language: Type.Optional(StringEnum([...CODE_LANGUAGES], { description: 'Language of the query' })),
        min_similarity: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, description: 'Shape: least AST similarity of a match (default 0.75)' })),
      }),
    ),
  }),
  output: Type.Object({ action: Type.String() }),
  tiers: ['full'],
  effect: (args) => (args.action === 'delete' ? 'destructive' : 'write'),
  maxEffect: 'destructive',
  stages: ['review'],
  next: 'antibody_scan',
  guide: 'from_learn takes the shape a `learn` correction confirmed (feedback correct/partial), captured when learn ran — so it is the buggy code even after the fix; the newest of your corrections with that query ("latest": any query), else another agent\'s. A shape antibody matches functions whose normalised AST (names and literals dropped) is at least min_similarity alike — copies of the bug with renamed variables. Specificity (shape: tokens ÷ 150; query: node tests, fields and predicates ÷ 10, capped at 1) must reach 0.15; a pattern ≥ 90% alike to a stored one, or the same query, is a duplicate and refused.',
  handler: async (args, call) => {
    const { graph } = await structureCall(call);
    const action = args.action ?? 'create';
    if (action !== 'create') {
      if (!args.antibody_id) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${action} needs antibody_id`, { hint: 'call `antibody_list` for the ids' });
      const antibody = getAntibody(graph, args.antibody_id);
      if (action === 'delete') {
        deleteAntibody(graph, antibody.id);
        return { action, antibody_id: antibody.id, deleted: true };
      }
      const updated = { ...antibody, enabled: action === 'enable' };
      saveAntibody(graph, updated);
      return { action, antibody: antibodyView(updated) };
    }
    if (!args.name) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'create needs a name', { hint: 'antibody_create({name, pattern: {from_node: "<buggy function id>"}})' });
    const antibody = await buildAntibody(graph, { name: args.name, description: args.description ?? '', severity: (args.severity ?? 'warning') as Severity, pattern: args.pattern ?? {}, agentId: call.agentId });
    saveAntibody(graph, antibody);
    return { action, antibody: antibodyView(antibody) };
  },
});
