/** ghost_edges: file pairs that change together in git without any static edge between them. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { fileIdOf, pathScope } from '../../graph/api.ts';
import { historyCall, historySource, iso, round3 } from '../call.ts';
import { pairDamping, windowSeconds } from '../history-index.ts';
import { fileDeps } from '../predictor.ts';

export const ghostEdgesVerb = defineVerb({
  name: 'ghost_edges',
  description: 'File pairs that change together in git but have no static edge (hidden coupling), with support and confidence.',
  input: Type.Object({
    agent_id: AgentId,
    depth: Type.String({ default: '30d', maxLength: 16, description: 'Window: 7d, 30d, 90d, 1y or all (ends at the newest commit)' }),
    scope: Type.Optional(Type.String({ maxLength: 512, description: 'Keep pairs with a file under this workspace path' })),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    min_support: Type.Integer({ minimum: 1, maximum: 1000, default: 2, description: 'Shared commits a pair needs' }),
  }),
  output: Type.Object({
    window: Type.String(),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    commits_counted: Type.Number(),
    sweeping_commits_skipped: Type.Number(),
    coupled_pairs_with_static_edge: Type.Number(),
    ghost_count: Type.Number(),
    ghost_edges: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['diagnose', 'review'],
  next: 'timeline',
  guide: [
    'Counts non-merge commits in the window (ending at the newest commit). Sweeping commits (more than 30 files, half the files known so far, or a formatting/lint/rename/vendoring subject) are skipped and counted under `sweeping_commits_skipped`; commits of 6+ files count less (weight 4/(n−1)).',
    'A pair is a ghost when no import, call, reference or inheritance links any node of one file to the other. Both files must exist in the graph now.',
    '`confidence_ab` = shared commits / commits of a; `weight` is the damped support the ranking uses.',
  ].join('\n'),
  handler: async (args, call) => {
    const { engine, index, mined } = await historyCall(call, { view: true });
    const span = windowSeconds(args.depth);
    const from = span === null ? 0 : index.firstAtOrAfter(index.newest - span);
    const g = engine.graph;
    const deps = fileDeps(g);
    const inGraph = (f: string) => g.get(fileIdOf(f)) !== null;
    const commitsOf = new Map<string, number>();
    const pairs = new Map<string, { support: number; weight: number; last: number }>();
    let sweeps = 0;
    let counted = 0;
    for (let i = from; i < index.commits.length; i++) {
      const c = index.commits[i];
      if (c.sweep) {
        sweeps++;
        continue;
      }
      counted++;
      const files = c.files.filter(inGraph).sort();
      for (const f of files) commitsOf.set(f, (commitsOf.get(f) ?? 0) + 1);
      const d = pairDamping(c.files.length);
      for (let a = 0; a < files.length; a++) {
        for (let b = a + 1; b < files.length; b++) {
          const key = `${files[a]}\0${files[b]}`;
          const p = pairs.get(key);
          if (p) {
            p.support++;
            p.weight += d;
            p.last = Math.max(p.last, c.time);
          } else pairs.set(key, { support: 1, weight: d, last: c.time });
        }
      }
    }
    const linked = (a: string, b: string) => !!(deps.dependents.get(a)?.has(b) || deps.dependencies.get(a)?.has(b));
    const scope = args.scope === undefined ? null : pathScope(engine, args.scope);
    const rows = [];
    let staticPairs = 0;
    for (const [key, p] of pairs) {
      if (p.support < args.min_support) continue;
      const [a, b] = key.split('\0');
      if (scope && !scope.has(a) && !scope.has(b)) continue;
      if (linked(a, b)) {
        staticPairs++;
        continue;
      }
      const ca = commitsOf.get(a)!;
      const cb = commitsOf.get(b)!;
      rows.push({ a, b, support: p.support, weight: round3(p.weight), confidence_ab: round3(p.support / ca), confidence_ba: round3(p.support / cb), last_together: iso(p.last) });
    }
    rows.sort((x, y) => y.weight - x.weight || y.support - x.support || (x.a + x.b < y.a + y.b ? -1 : 1));
    return {
      window: args.depth,
      source: historySource(mined, index),
      commits_counted: counted,
      sweeping_commits_skipped: sweeps,
      coupled_pairs_with_static_edge: staticPairs,
      ghost_count: rows.length,
      ghost_edges: rows.slice(0, args.top_k),
    };
  },
});
