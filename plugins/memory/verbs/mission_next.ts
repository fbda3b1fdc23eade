/** mission_next: logs the last event (optional) and returns exactly one next move with guardrails. */
import type { StateService } from '../../state/api.ts';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { budgetReport, exhausted, MissionBook } from '../missions/book.ts';
import { classifyEvent, nextMove } from '../missions/progress.ts';
import { MissionEventParam } from './mission_event.ts';

export const missionNextVerb = defineVerb({
  name: 'mission_next',
  description: 'One recommended next move for a mission, with guardrails, derived from its events, claims and budget.',
  input: Type.Object({ agent_id: AgentId, mission_id: Type.String({ minLength: 1 }), last_event: Type.Optional(MissionEventParam) }),
  output: Type.Object({
    warning: Type.Optional(Type.String()),
    mission_id: Type.String(),
    next: Type.Object({ verb: Type.String(), arguments: Type.Object({}), why: Type.String(), guardrails: Type.Array(Type.Unknown()) }),
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['plan'],
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const book = new MissionBook(call.service<StateService>('state').team);
    const m = await book.load(call.agentId, args.mission_id, { open: true });
    // A spent budget still gets its one move (close); only new events are refused.
    book.charge(m, Boolean(args.last_event));
    if (args.last_event) m.events.push(classifyEvent(graph, m.events.length + 1, args.last_event));
    const answer = { mission_id: m.id, next: nextMove(m, call.agentId), budget: budgetReport(m), ...(exhausted(m) ? { warning: 'budget spent' } : {}) };
    await book.save(m, answer);
    return answer;
  },
});
