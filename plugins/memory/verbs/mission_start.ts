/** mission_start: opens a bounded mission with mode, budget, risk, starter moves and non-claims. */
import type { StateService } from '../../state/api.ts';
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { BUDGET_PRESETS, BudgetParam, budgetReport, MissionBook, MODES, RISKS, type Mission } from '../missions/book.ts';
import { NON_CLAIMS, nextMove, STARTER_MOVES } from '../missions/progress.ts';

export const missionStartVerb = defineVerb({
  name: 'mission_start',
  description: 'Open a bounded mission (mode, budget in calls/tokens/minutes, risk); returns starter moves and non-claims.',
  input: Type.Object({
    agent_id: AgentId,
    repo: Type.String({ minLength: 1, description: 'Repository (label)' }),
    task: Type.String({ minLength: 1 }),
    mode: Type.Optional(StringEnum(MODES, { default: 'review' })),
    budget: Type.Optional(BudgetParam),
    risk: Type.Optional(StringEnum(RISKS, { default: 'medium' })),
    parent_mission_id: Type.Optional(Type.String()),
  }),
  output: Type.Object({
    mission_id: Type.String(),
    mode: Type.String(),
    risk: Type.String(),
    starter_moves: Type.Array(Type.Object({})),
    non_claims: Type.Array(Type.String()),
    next: Type.Object({ verb: Type.String(), arguments: Type.Object({}), why: Type.String(), guardrails: Type.Array(Type.Unknown()) }),
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['plan'],
  next: 'mission_event',
  guide:
    'A mission is stored in the workspace store: any server on the workspace resumes it. Budgets: short (12 calls, 20K tokens, 20 min), normal (30, 60K, 60), deep (80, 150K, 180), or {calls, tokens, minutes}. ' +
    'Every mission call counts one call and the tokens of its answer; event payloads may add `tokens` spent elsewhere. When a dimension is spent, mission_event/next/verify are refused; handoff and close always work.',
  handler: async (args, call) => {
    const book = new MissionBook(call.service<StateService>('state').team);
    const preset = typeof args.budget === 'string' || args.budget === undefined ? BUDGET_PRESETS[args.budget ?? 'normal'] : { ...BUDGET_PRESETS.normal, ...args.budget };
    const mode = args.mode ?? 'review';
    const m: Mission = {
      id: book.newId(),
      agent_id: call.agentId,
      agents: [call.agentId],
      repo: args.repo,
      task: args.task,
      mode,
      risk: args.risk ?? 'medium',
      budget: preset,
      used: { calls: 1, tokens: 0 },
      started_at: Date.now(),
      ...(args.parent_mission_id ? { parent_mission_id: args.parent_mission_id } : {}),
      events: [],
      claims: [],
      status: 'open',
      handoffs: [],
    };
    const answer = { mission_id: m.id, mode, risk: m.risk, starter_moves: STARTER_MOVES[mode], non_claims: NON_CLAIMS[mode], next: nextMove(m), budget: budgetReport(m) };
    await book.save(m, answer);
    return answer;
  },
});
