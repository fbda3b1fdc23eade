/** validate_plan: a planned set of file actions checked against the graph — blast radius, gaps, covering tests, risk. */
import { existsSync } from 'node:fs';
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { engineCall, pathScope } from '../../graph/api.ts';
import { blastRadius } from '../blast-radius.ts';

const ACTIONS = ['modify', 'create', 'delete'] as const;
/** Files listed per action and per gap list (counts stay exact). */
const LIST_CAP = 25;

export const validatePlanVerb = defineVerb({
  name: 'validate_plan',
  description: 'Check planned file actions: 3-hop blast radius, dependents missing from the plan, covering tests, risk score with reasons.',
  input: Type.Object({
    agent_id: AgentId,
    actions: Type.Array(
      Type.Object({
        action_type: StringEnum(ACTIONS),
        file_path: Type.String(),
        description: Type.Optional(Type.String()),
        depends_on: Type.Array(Type.String(), { default: [], description: 'file_paths of actions this one needs first' }),
      }),
      { minItems: 1, maxItems: 100 },
    ),
    include_test_impact: Type.Boolean({ default: true }),
    include_risk_score: Type.Boolean({ default: true }),
    scope: Type.Optional(Type.String({ description: 'Workspace folder: count dependents and tests inside it only' })),
  }),
  output: Type.Object({
    risk: Type.Optional(Type.Object({ score: Type.Number(), level: Type.String(), reasons: Type.Array(Type.Unknown()) })),
    tests_to_run: Type.Optional(Type.Array(Type.String())),
    actions: Type.Array(Type.Object({})),
    gaps: Type.Array(Type.Object({})),
    gap_count: Type.Number(),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['plan', 'edit'],
  next: 'surgical_context_v2',
  guide:
    "Each action's `tests` are the test files that test the file or call its code; `tests_via_dependents` the ones that reach it only through code depending on it (a test of a caller of its function), with the hop. `tests_to_run` takes an action's own tests, or, when it has none, its nearest tests via dependents.",
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    await graph.requireGraph();
    const g = graph.engine.graph;
    const scope = args.scope === undefined ? null : pathScope(graph.engine, args.scope);
    const inScope = (f: string) => scope === null || scope.has(f);
    const planned = new Map<string, string>();
    for (const a of args.actions) planned.set(engineCall(() => graph.engine.resolvePath(a.file_path)).relative, a.action_type);
    const gaps = new Map<string, Set<string>>();
    const tests = new Set<string>();
    const reasons: { weight: number; why: string }[] = [];
    const actions = args.actions.map((a) => {
      const p = engineCall(() => graph.engine.resolvePath(a.file_path));
      const onDisk = existsSync(p.absolute);
      const inGraph = !!g.get(`file:${p.relative}`);
      const issues: string[] = [];
      if (a.action_type === 'create' && onDisk) issues.push('the file already exists (modify it instead?)');
      if (a.action_type !== 'create' && !onDisk) issues.push('no such file');
      for (const d of a.depends_on) {
        const rel = engineCall(() => graph.engine.resolvePath(d)).relative;
        if (!planned.has(rel)) issues.push(`depends_on "${d}" is not an action of this plan`);
      }
      const whole = inGraph ? blastRadius(graph, p.relative, 3) : null;
      // Within `scope` only: the files and tests outside it are left out of counts, gaps and risk.
      const blast = whole && {
        ...whole,
        filesByHop: new Map([...whole.filesByHop].filter(([f]) => inScope(f))),
        tests: new Set([...whole.tests].filter(inScope)),
        testsViaDependents: new Map([...whole.testsViaDependents].filter(([f]) => inScope(f))),
      };
      // Tests of its dependents, nearest first: run the nearest when none tests the file itself.
      const via = [...(blast?.testsViaDependents ?? [])].sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
      const direct = blast ? [...blast.filesByHop].filter(([, hop]) => hop === 1).map(([f]) => f) : [];
      const missing = direct.filter((f) => !planned.has(f));
      for (const f of missing) {
        let of = gaps.get(f);
        if (!of) gaps.set(f, (of = new Set()));
        of.add(p.relative);
      }
      for (const t of blast?.tests ?? []) tests.add(t);
      if ((blast?.tests.size ?? 0) === 0) for (const [t, hop] of via) if (hop === via[0][1]) tests.add(t);
      const total = blast?.filesByHop.size ?? 0;
      if (a.action_type === 'delete' && direct.length) reasons.push({ weight: 0.35, why: `deleting ${p.relative} breaks ${direct.length} file(s) that depend on it` });
      if (total >= 10) reasons.push({ weight: Math.min(0.3, total / 100), why: `${p.relative} reaches ${total} dependent files within 3 hops` });
      if (a.action_type === 'modify' && inGraph && (blast?.tests.size ?? 0) === 0) {
        if (via.length) reasons.push({ weight: 0.05, why: `no test calls ${p.relative} directly; ${via.length} test file(s) reach it through its dependents` });
        else reasons.push({ weight: 0.15, why: `no test covers ${p.relative}` });
      }
      if (issues.length) reasons.push({ weight: 0.1 * issues.length, why: `${p.relative}: ${issues.join('; ')}` });
      return {
        file_path: p.relative,
        action_type: a.action_type,
        exists: onDisk,
        in_graph: inGraph,
        blast_radius: blast
          ? {
              files: total,
              ...(scope !== null ? { outside_scope: whole!.filesByHop.size - total } : {}),
              nodes: blast.nodes,
              by_hop: [1, 2, 3].map((h) => [...blast.filesByHop.values()].filter((x) => x === h).length),
              sample: [...blast.filesByHop].sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0])).slice(0, LIST_CAP).map(([f, hop]) => ({ file_path: f, hop })),
              truncated: blast.truncated,
            }
          : null,
        missing_dependents: missing.slice(0, LIST_CAP),
        ...(args.include_test_impact ? { tests: [...(blast?.tests ?? [])].sort(), tests_via_dependents: { total: via.length, sample: via.slice(0, LIST_CAP).map(([f, hop]) => ({ file_path: f, hop })) } } : {}),
        issues,
      };
    });
    if (gaps.size) reasons.push({ weight: Math.min(0.3, 0.05 * gaps.size), why: `${gaps.size} directly dependent file(s) are not in the plan` });
    const score = Math.min(1, reasons.reduce((s, r) => s + r.weight, 0));
    return {
      actions,
      gaps: [...gaps].sort((x, y) => x[0].localeCompare(y[0])).slice(0, LIST_CAP).map(([f, of]) => ({ file_path: f, depends_on_planned: [...of].sort() })),
      gap_count: gaps.size,
      ...(args.include_test_impact ? { tests_to_run: [...tests].sort().filter((t) => !planned.has(t)) } : {}),
      ...(args.include_risk_score
        ? { risk: { score: Math.round(score * 100) / 100, level: score >= 0.6 ? 'high' : score >= 0.3 ? 'medium' : 'low', reasons: reasons.sort((x, y) => y.weight - x.weight).map((r) => r.why) } }
        : {}),
    };
  },
});
