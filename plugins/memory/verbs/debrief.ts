/** debrief: scores a returned sub-agent's touched paths against its packet, feeds lessons back, appends the outcomes ledger. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { memoryCall } from '../call.ts';
import { inScope, loadDelegation, OUTCOMES_NAMESPACE } from '../delegations.ts';
import { words } from '../similarity.ts';

export const debriefVerb = defineVerb({
  name: 'debrief',
  description: "Grade a sub-agent's touched paths against its delegate packet; findings become claims, verified outcomes feed learn; appends the outcomes ledger.",
  input: Type.Object({
    agent_id: AgentId,
    delegation_id: Type.String({ minLength: 1 }),
    outcome: StringEnum(['success', 'failure', 'partial'] as const),
    evidence: Type.Optional(Type.Object({ cmd: Type.Optional(Type.String()), exit_status: Type.Optional(Type.Integer()) })),
    diff: Type.Optional(Type.String({ maxLength: 1024 * 1024, description: 'Unified diff; its --- and +++ paths count as touched' })),
    touched_paths: Type.Optional(Type.Array(Type.String())),
    findings: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 20 })),
    subagent_id: Type.Optional(Type.String()),
  }),
  output: Type.Object({
    warning: Type.Optional(Type.String()),
    status: Type.String(),
    lessons: Type.Union([Type.Object({ stored: Type.Array(Type.Unknown()), duplicates: Type.Array(Type.Unknown()) }), Type.Null()]),
    learned_nodes: Type.Number(),
    score: Type.Object({ touched: Type.Number(), in_scope: Type.Number(), out_of_scope: Type.Number(), precision: Type.Union([Type.Number(), Type.Null()]), editable_touched: Type.Number(), editable: Type.Number() }),
    out_of_scope: Type.Array(Type.String()),
    at: Type.String(),
    evidence: Type.Optional(Type.Object({ cmd: Type.Optional(Type.String()), exit_status: Type.Optional(Type.Number()) })),
    delegation_id: Type.String(),
    agent_id: Type.String(),
    subagent_id: Type.Union([Type.String(), Type.Null()]),
    outcome: Type.String(),
    verified: Type.Boolean(),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff', 'review'],
  next: 'orient',
  guide:
    'Grading is by paths only, never code quality: touched paths inside the packet’s editable set against those outside it. The outcome is `verified` only with evidence of a command whose exit status agrees with it (0 for success, non-zero for failure); otherwise it is recorded as `outcome_unverified`. ' +
    'Findings are memorized as project claims anchored to the in-scope files touched; a verified outcome also feeds learn (correct on success, wrong on failure) for the touched files under the task words.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const d = loadDelegation(graph, call.agentId, args.delegation_id);
    // Both sides of each file header (a --- line right before a +++ line, never a hunk's removed "-- …" line):
    // a deleted file (+++ /dev/null) and a renamed one's old path were touched too.
    const fromDiff = [...(args.diff ?? '').matchAll(/^--- (\S+)[^\n]*\n\+\+\+ (\S+)/gm)]
      .flatMap((m) => [m[1], m[2]])
      .filter((p) => p !== '/dev/null')
      .map((p) => p.replace(/^[ab]\//, ''));
    const touched = [...new Set([...(args.touched_paths ?? []), ...fromDiff].map((p) => graph.run(() => graph.engine.resolvePath(p)).relative))].sort();
    const inside = touched.filter((p) => inScope(d.editable, p));
    const outside = touched.filter((p) => !inScope(d.editable, p));
    // A command's exit status backs the outcome it agrees with: 0 a success, non-zero a failure (a partial one, either).
    const exit = args.evidence?.exit_status;
    const verified = exit !== undefined && (args.outcome === 'success' ? exit === 0 : args.outcome === 'failure' ? exit !== 0 : true);
    const score = { touched: touched.length, in_scope: inside.length, out_of_scope: outside.length, precision: touched.length ? Math.round((inside.length / touched.length) * 1000) / 1000 : null, editable_touched: d.editable.filter((e) => touched.some((t) => inScope([e], t))).length, editable: d.editable.length };
    const files = inside.filter((p) => graph.engine.getNode(`file:${p}`));
    const lessons = args.findings?.length
      ? await memory.memorize(call.agentId, { scope: 'project', topic: d.task, claims: args.findings.map((text) => ({ text, kind: 'fact' as const, confidence: verified ? 0.8 : 0.5, evidence: files })) })
      : null;
    let learned = 0;
    if (verified && args.outcome !== 'partial' && files.length) {
      const nodes = files.map((p) => graph.engine.getNode(`file:${p}`)!);
      graph.learned.record({ agent: call.agentId, scope: 'agent', query: d.task, words: [...words(d.task)], feedback: args.outcome === 'success' ? 'correct' : 'wrong', nodes, strength: 0.5, pairs: [] });
      learned = nodes.length;
    }
    const row = { delegation_id: d.delegation_id, agent_id: call.agentId, subagent_id: args.subagent_id ?? null, outcome: args.outcome, verified, ...(args.evidence ? { evidence: args.evidence } : {}), score, out_of_scope: outside, at: new Date().toISOString() };
    graph.engine.memory.set(OUTCOMES_NAMESPACE, `o_${Date.now().toString(36)}_${d.delegation_id}`, row);
    return {
      ...row,
      status: verified ? 'verified' : 'outcome_unverified',
      lessons: lessons ? { stored: lessons.stored.map((c) => c.id), duplicates: lessons.duplicates.map((x) => x.existing.id) } : null,
      learned_nodes: learned,
      ...(outside.length ? { warning: `${outside.length} path(s) touched outside the packet: ${outside.slice(0, 10).join(', ')}` } : {}),
    };
  },
});
