/** learn: feedback on results adjusts ranking weights for the calling agent (or, with scope team, every agent), persisted in the store. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { RELATION_CODE } from '../../graph/api.ts';
import { CONTAINS } from '../../graph/api.ts';
import { agentNamespace, LEARNED_NAMESPACE } from '../../graph/api.ts';
import { openGraph, resolveNodeArgs, round3 } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS, type ActivationOutcome } from './query-activation.ts';

export const learnVerb = defineVerb({
  name: 'learn',
  description: 'Feedback on result nodes for a query (correct, wrong, partial): adjusts and persists your ranking weights (scope team: everyone\'s).',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1, description: 'The query the results answered' }),
    feedback: StringEnum(['correct', 'wrong', 'partial'] as const),
    node_ids: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 100 }),
    strength: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.2 }),
    scope: StringEnum(['agent', 'team'] as const, { default: 'agent', description: 'agent: re-ranks only your results; team: every agent\'s' }),
  }),
  output: Type.Object({
    query: Type.String(),
    feedback: Type.String(),
    nodes: Type.Array(Type.Object({})),
    edges_strengthened: Type.Number(),
    scope: Type.String(),
    persisted: Type.Object({ namespace: Type.String(), revision: Type.Number() }),
    note: Type.String(),
  }),
  tiers: ['essential'],
  // Both scopes persist to the store, so both are writes: a read-role credential can give no feedback at all.
  effect: 'write',
  stages: ['review'],
  next: 'activate',
  guide: [
    'Three things are learned and kept in the store: with scope `agent` (default) in your own layer (memory namespace `learned@<agent_id>`), applied only to your rankings; with scope `team` in the team layer (namespace `learned`), applied to every agent\'s. Both need the `write` role over HTTP (docs/security.md).',
    '- a bias per node: correct +strength/2, partial +strength/4, wrong −strength/2 (kept within ±0.7);',
    '- an association between the query\'s words and each node: ±strength (partial half), so the same or a similar query ranks the node up or down much more than others do;',
    '- for correct/partial with several nodes, the edges between them (and their members) are strengthened ×(1+strength): activation flows more easily between things confirmed together.',
    'Rankings multiply a node\'s score by exp(bias + 2.5 × association), team and your own layer added. The answer shows each node\'s rank in this query (for you) before and after. Refused when the store is read-only.',
  ].join('\n'),
  handler: async (args, call) => {
    const { graph, engine, g } = await openGraph(call, { workspace: true });
    if (!graph.writable) {
      throw new M1ndError(ErrorCodes.GATE_READ_ONLY, 'learn writes the store, and this server is read-only', { hint: 'ask for a writable server; queries still read what was learned' });
    }
    const nodes = await resolveNodeArgs(engine, args.node_ids, 'node_ids[]');
    const rankIn = (o: ActivationOutcome, index: number): number | null => {
      const k = o.ranked.findIndex((r) => r.index === index);
      return k < 0 ? null : k + 1;
    };
    await activationReady(engine);
    const probe = () => activateQuery(graph, engine, { query: args.query, agentId: call.agentId, dimensions: DIMENSIONS, topK: 50, xlr: true, ghostEdges: true, boosts: false });
    const before = await probe();
    // Edges among the given nodes and their direct members, containment excluded.
    const members = new Set<number>();
    for (const n of nodes) {
      members.add(n.index);
      g.forEachOut(n.index, (t, _w, rel) => {
        if (rel === CONTAINS) members.add(t);
      });
    }
    const pairs: [string, string][] = [];
    if (args.feedback !== 'wrong' && nodes.length > 1) {
      const seen = new Set<string>();
      for (const u of members) {
        g.forEachOut(u, (t, _w, rel) => {
          if (rel === CONTAINS || rel === RELATION_CODE.co_changes || !members.has(t) || t === u) return;
          const key = `${u}>${t}`;
          if (seen.has(key)) return;
          seen.add(key);
          pairs.push([g.node(u)!.id, g.node(t)!.id]);
        });
      }
    }
    let report;
    try {
      report = await graph.learned.learn({
        agent: call.agentId,
        scope: args.scope,
        query: args.query,
        words: before.words,
        feedback: args.feedback,
        nodes: nodes.map((n) => n.node),
        strength: args.strength,
        pairs,
      });
    } catch (error) {
      if (error instanceof M1ndError) throw error; // the team store's own coded errors (unavailable, conflict)
      throw new M1ndError(ErrorCodes.GATE_READ_ONLY, `learn could not persist: ${error instanceof Error ? error.message : String(error)}`, { hint: 'retry; if the store is read-only, use a writable server' });
    }
    const after = await probe();
    return {
      query: args.query,
      feedback: args.feedback,
      nodes: report.nodes.map((r, i) => ({
        id: r.id,
        ...(nodes[i].resolvedFrom ? { resolved_from: nodes[i].resolvedFrom!.text } : {}),
        bias: r.bias.map(round3),
        association: r.association.map(round3),
        rank: [rankIn(before, nodes[i].index), rankIn(after, nodes[i].index)],
      })),
      edges_strengthened: report.edges.length,
      scope: args.scope,
      persisted: { namespace: args.scope === 'team' ? LEARNED_NAMESPACE : agentNamespace(call.agentId), revision: report.revision },
      note: `rank is this query's position in your top 50 before → after (null = not in it); the weights apply to ${args.scope === 'team' ? 'every agent' : 'you only'}`,
    };
  },
});
