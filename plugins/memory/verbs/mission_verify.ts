/** mission_verify: is a claim backed by direct evidence the mission observed, not only by the graph? */
import type { StateService } from '../../state/api.ts';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { budgetReport, MissionBook } from '../missions/book.ts';
import { verifyClaim, verifyReason } from '../missions/progress.ts';

export const missionVerifyVerb = defineVerb({
  name: 'mission_verify',
  description: 'Check a mission claim: verified only when a direct event (read, test run, command) observed its evidence in the workspace; graph-only is refused.',
  input: Type.Object({
    agent_id: AgentId,
    mission_id: Type.String({ minLength: 1 }),
    claim: Type.String({ minLength: 1 }),
    evidence_refs: Type.Optional(Type.Array(Type.String(), { description: 'Paths, node ids, or event ids (e3)' })),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  }),
  output: Type.Object({
    mission_id: Type.String(),
    verified: Type.Boolean(),
    status: Type.String(),
    reason: Type.String(),
    direct_refs: Type.Array(Type.String()),
    graph_refs: Type.Array(Type.String()),
    failed_refs: Type.Array(Type.String()),
    missing_refs: Type.Array(Type.String()),
    unobserved_refs: Type.Array(Type.String()),
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['review'],
  next: 'mission_next',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const book = new MissionBook(call.service<StateService>('state').team);
    const m = await book.load(call.agentId, args.mission_id, { open: true });
    book.charge(m, true);
    const c = verifyClaim(graph, m, args.claim, args.evidence_refs ?? [], args.confidence);
    m.claims = [...m.claims.filter((x) => x.text !== c.text), c];
    const answer = {
      mission_id: m.id,
      verified: c.status === 'verified',
      status: c.status,
      reason: verifyReason(c),
      direct_refs: c.direct_refs,
      graph_refs: c.graph_refs,
      failed_refs: c.failed_refs ?? [],
      missing_refs: c.missing_refs ?? [],
      unobserved_refs: c.unobserved_refs,
      budget: budgetReport(m),
    };
    await book.save(m, answer);
    return answer;
  },
});
