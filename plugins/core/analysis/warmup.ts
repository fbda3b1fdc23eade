/** warmup: primes this agent's ranking toward a task (session boosts), and says what it primed. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, round3 } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS } from './query-activation.ts';

/** Boosts come from warmup's own source, so a new warmup replaces the last one and nothing else. */
export const WARMUP_SOURCE = 'warmup';
const PRIMED = 30;

export const warmupVerb = defineVerb({
  name: 'warmup',
  description: 'Prime ranking toward an upcoming task for this agent: later activate/focus rank task-relevant nodes higher.',
  input: Type.Object({
    agent_id: AgentId,
    task_description: Type.String({ minLength: 1 }),
    boost_strength: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.15 }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    note: Type.Optional(Type.String()),
    task: Type.String(),
    primed: Type.Array(Type.Object({})),
    seeds: Type.Array(Type.String()),
    replaced_previous: Type.Number(),
    scope: Type.String(),
  }),
  effect: 'session',
  stages: ['orient', 'plan'],
  next: 'activate',
  guide: [
    `Runs activation for the task and gives its top ${PRIMED} nodes a boost of boost_strength × (score / best score), stored in session memory for this agent only (source \`${WARMUP_SOURCE}\`; a new warmup replaces the previous one, other sources such as trails stay).`,
    'Ranking verbs multiply a node\'s score by (1 + boost), so primed nodes move up when a later query reaches them; they are not injected into unrelated queries. Nothing is written to the store, and other agents are unaffected.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine } = await openGraph(call);
    await activationReady(engine);
    const outcome = await activateQuery(graph, engine, {
      query: args.task_description,
      agentId: call.agentId,
      dimensions: DIMENSIONS,
      topK: PRIMED,
      xlr: true,
      ghostEdges: true,
      boosts: false,
    });
    const top = outcome.results[0]?.score ?? 0;
    const boosts: Record<string, number> = {};
    for (const r of outcome.results) if (top > 0) boosts[r.node.id] = round3(args.boost_strength * (r.score / top));
    const replaced = graph.boosts.clear(call.agentId, WARMUP_SOURCE);
    const primed = graph.boosts.add(call.agentId, boosts, WARMUP_SOURCE);
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: outcome.results.map((r) => r.node), query: { subject: args.task_description, results: primed, elapsedMs } });
    return {
      task: args.task_description,
      primed: outcome.results.map((r) => ({ ...nodeRef(r.node), boost: boosts[r.node.id] })),
      seeds: outcome.seeds.slice(0, 5).map((s) => engine.graph.node(s.index)!.id),
      replaced_previous: replaced,
      scope: 'this agent, this session (session memory)',
      ...(primed === 0 ? { note: 'nothing matched the task: no boosts were set' } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
