/** mission_event: records one observed action with its evidence class (direct or graph-only). */
import type { StateService } from '../../state/api.ts';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { budgetReport, MissionBook } from '../missions/book.ts';
import { classifyEvent } from '../missions/progress.ts';

/** The event parameter shared with mission_next. */
export const MissionEventParam = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({
    action: Type.Optional(Type.String({ description: 'view, file_read, test_run, command, or a graph verb (seek, impact…)' })),
    path: Type.Optional(Type.String()),
    refs: Type.Optional(Type.Array(Type.String())),
    cmd: Type.Optional(Type.String()),
    exit_status: Type.Optional(Type.Integer()),
    evidence_class: Type.Optional(Type.String()),
    tokens: Type.Optional(Type.Integer({ minimum: 0, description: 'Tokens spent outside m1nd, counted against the budget' })),
  }),
]);

export const missionEventVerb = defineVerb({
  name: 'mission_event',
  description: 'Record one observed mission action; a file read, test run or command is direct evidence, a graph answer is graph-only.',
  input: Type.Object({
    agent_id: AgentId,
    mission_id: Type.String({ minLength: 1 }),
    event: MissionEventParam,
    payload: Type.Optional(Type.Unknown()),
    outcome: Type.Optional(Type.String({ description: 'e.g. success, failure, dead_end' })),
    agent_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  }),
  output: Type.Object({
    mission_id: Type.String(),
    event: Type.String(),
    evidence_class: Type.String(),
    refs: Type.Array(Type.String()),
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['ground'],
  next: 'mission_next',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const book = new MissionBook(call.service<StateService>('state').team);
    const m = await book.load(call.agentId, args.mission_id, { open: true });
    book.charge(m, true);
    const event = classifyEvent(graph, m.events.length + 1, args.event, args.outcome, args.agent_confidence);
    m.events.push(event);
    if (typeof args.event === 'object' && args.event.tokens) m.used.tokens += args.event.tokens;
    const answer = { mission_id: m.id, event: `e${event.seq}`, evidence_class: event.evidence_class, refs: event.refs, budget: budgetReport(m) };
    await book.save(m, answer);
    return answer;
  },
});
