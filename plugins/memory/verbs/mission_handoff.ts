/** mission_handoff: a resumable packet — verified claims, hypotheses, dead ends, next move — optionally naming the next agent. */
import type { StateService } from '../../state/api.ts';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { budgetReport, MissionBook } from '../missions/book.ts';
import { nextMove } from '../missions/progress.ts';

export const missionHandoffVerb = defineVerb({
  name: 'mission_handoff',
  description: 'Resumable hand-off of a mission: verified claims, hypotheses, dead ends, the next move; a recipient may continue it.',
  input: Type.Object({
    agent_id: AgentId,
    mission_id: Type.String({ minLength: 1 }),
    summary: Type.Optional(Type.String({ maxLength: 4000 })),
    recipient_agent_id: Type.Optional(Type.String({ minLength: 1 })),
    include_events: Type.Optional(Type.Boolean({ default: false })),
  }),
  output: Type.Object({
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
    events: Type.Union([Type.Array(Type.Object({})), Type.Number()]),
    claims: Type.Array(Type.Object({})),
    hypotheses: Type.Array(Type.Object({})),
    dead_ends: Type.Array(Type.Object({})),
    next: Type.Object({ verb: Type.String(), arguments: Type.Object({}), why: Type.String(), guardrails: Type.Array(Type.Unknown()) }),
    resume: Type.Object({ verb: Type.String(), arguments: Type.Object({}) }),
    summary: Type.Optional(Type.String()),
    mission_id: Type.String(),
    task: Type.String(),
    mode: Type.String(),
    risk: Type.String(),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff'],
  next: 'mission_next',
  handler: async (args, call) => {
    const book = new MissionBook(call.service<StateService>('state').team);
    const m = await book.load(call.agentId, args.mission_id, { open: true });
    book.charge(m, false);
    if (args.recipient_agent_id && !m.agents.includes(args.recipient_agent_id)) m.agents.push(args.recipient_agent_id);
    m.handoffs.push({ to: args.recipient_agent_id ?? null, at: Date.now(), ...(args.summary ? { summary: args.summary } : {}) });
    const answer = {
      mission_id: m.id,
      task: m.task,
      mode: m.mode,
      risk: m.risk,
      ...(args.summary ? { summary: args.summary } : {}),
      claims: m.claims.filter((c) => c.status === 'verified').map((c) => ({ text: c.text, evidence: c.direct_refs })),
      hypotheses: m.claims
        .filter((c) => c.status === 'unverified')
        .map((c) => ({ text: c.text, graph_refs: c.graph_refs, unobserved_refs: c.unobserved_refs, ...(c.failed_refs?.length ? { failed_refs: c.failed_refs } : {}), ...(c.missing_refs?.length ? { missing_refs: c.missing_refs } : {}) })),
      dead_ends: m.events.filter((e) => /fail|dead/.test(e.outcome ?? '')).map((e) => ({ event: `e${e.seq}`, action: e.action, refs: e.refs, outcome: e.outcome })),
      // The move is the next agent's: the recipient's when one is named.
      next: nextMove(m, args.recipient_agent_id ?? call.agentId),
      resume: { verb: 'mission_next', arguments: { agent_id: args.recipient_agent_id ?? m.agent_id, mission_id: m.id } },
      ...(args.include_events ? { events: m.events } : { events: m.events.length }),
      budget: budgetReport(m),
    };
    await book.save(m, answer);
    return answer;
  },
});
