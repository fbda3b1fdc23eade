/** panoramic: per-file risk from blast radius (transitive dependents), centrality (PageRank) and git churn, every component shown. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { fileIndexOf, pathScope, slicePace } from '../../graph/api.ts';
import { round3, workspaceArg } from '../call.ts';
import type { HistoryIndex } from '../history-index.ts';
import { fileDeps, warmFileDeps, type FileDeps } from '../predictor.ts';
import { historyOf } from '../service.ts';

const WEIGHTS = { blast: 0.45, centrality: 0.3, churn: 0.25 } as const;
/** Weight of the runtime heat component when asked for. */
const HEAT_WEIGHT = 0.25;

export const panoramicVerb = defineVerb({
  name: 'panoramic',
  description: 'Per-file risk: blast radius (transitive dependents), centrality (PageRank) and git churn, each component shown.',
  input: Type.Object({
    agent_id: AgentId,
    scope: Type.Optional(Type.String({ maxLength: 512, description: 'Only under this workspace path' })),
    top_n: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    runtime_heat: Type.Boolean({ default: false, description: 'Add a heat component from runtime_overlay spans' }),
  }),
  output: Type.Object({
    files: Type.Array(Type.Object({})),
    note: Type.Optional(Type.String()),
    weights: Type.Object({ blast: Type.Number(), centrality: Type.Number(), churn: Type.Number() }),
    files_scored: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient', 'review'],
  next: 'impact',
  guide: [
    `risk = ${WEIGHTS.blast} × blast + ${WEIGHTS.centrality} × centrality + ${WEIGHTS.churn} × churn, each in [0,1]:`,
    '- blast: files that depend on this one directly or transitively (imports, calls, references, inheritance), log-scaled to the largest.',
    '- centrality: the file\'s best node PageRank, log-compressed. churn: the file\'s non-merge, non-sweeping commits in the mined git history (renames followed; `commits`), log-scaled to the most-changed file in scope.',
    'Without git, churn is null (not 0) and risk uses the other two weights, renormalised.',
    `With runtime_heat, heat (the file's summed runtime_overlay boost, scaled to the hottest file) adds ${HEAT_WEIGHT} × heat and the sum is renormalised.`,
  ].join('\n'),
  handler: async (args, call) => {
    const history = historyOf(call);
    const engine = await history.graph.requireGraph();
    const scope = pathScope(engine, args.scope ? workspaceArg(history.graph, 'panoramic', args.scope) : undefined);
    const g = engine.graph;
    const pr = engine.pagerank().scores;
    let index: HistoryIndex | null = null;
    try {
      index = (await history.current()).index;
    } catch (error) {
      if ((error as M1ndError).code !== ErrorCodes.HISTORY_NO_GIT) throw error;
    }
    // Whole-graph passes, paced in 8 ms slices so other sessions' calls run between them.
    const pace = slicePace(8);
    await warmFileDeps(g, pace);
    const deps = fileDeps(g);
    const fileOf = fileIndexOf(g);
    let maxPr = 0;
    const best = new Map<string, number>();
    for (let i = 0; i < g.nodeCapacity; i++) {
      if ((i & 4095) === 4095) await pace();
      const n = g.node(i);
      if (!n || fileOf[i] < 0 || n.kind === 'module') continue;
      const v = pr[i] ?? 0;
      if (v > maxPr) maxPr = v;
      if (v > (best.get(n.path) ?? -1)) best.set(n.path, v);
    }
    const files = engine.filePaths().filter(scope.has);
    const blast = await transitiveDependents(deps, files, pace);
    let maxBlast = 0;
    for (const v of blast.values()) if (v > maxBlast) maxBlast = v;
    const commitsOf = (f: string) => index?.files.get(f)?.commits.filter((ci) => !index!.commits[ci].sweep).length ?? 0;
    let maxCommits = 0;
    if (index) for (const f of files) maxCommits = Math.max(maxCommits, commitsOf(f));
    // Runtime heat per file, when asked: the file's nodes' runtime_heat boosts summed, scaled to the hottest file.
    const heatOf = new Map<string, number>();
    if (args.runtime_heat) {
      for (const [id, w] of history.graph.boosts.overlay('runtime_heat', call.agentId)) {
        const n = g.get(id);
        if (n) heatOf.set(n.path, (heatOf.get(n.path) ?? 0) + w);
      }
    }
    const maxHeat = Math.max(0, ...heatOf.values());
    const rows = files.map((f) => {
      const b = maxBlast > 0 ? Math.log1p(blast.get(f)!) / Math.log1p(maxBlast) : 0;
      const c = maxPr > 0 ? Math.log1p(((best.get(f) ?? 0) / maxPr) * 1000) / Math.log1p(1000) : 0;
      const commits = commitsOf(f);
      const ch = index ? (maxCommits > 0 ? Math.log1p(commits) / Math.log1p(maxCommits) : 0) : null;
      const base = ch === null ? (WEIGHTS.blast * b + WEIGHTS.centrality * c) / (WEIGHTS.blast + WEIGHTS.centrality) : WEIGHTS.blast * b + WEIGHTS.centrality * c + WEIGHTS.churn * ch;
      const heat = args.runtime_heat ? (maxHeat > 0 ? (heatOf.get(f) ?? 0) / maxHeat : 0) : null;
      const risk = heat === null ? base : (base + HEAT_WEIGHT * heat) / (1 + HEAT_WEIGHT);
      return {
        file: f,
        risk: round3(risk),
        components: { blast: round3(b), centrality: round3(c), churn: ch === null ? null : round3(ch), ...(heat === null ? {} : { heat: round3(heat) }) },
        transitive_dependents: blast.get(f)!,
        direct_dependents: deps.dependents.get(f)?.size ?? 0,
        ...(index ? { commits } : {}),
      };
    });
    rows.sort((a, b) => b.risk - a.risk || (a.file < b.file ? -1 : 1));
    return {
      weights: args.runtime_heat ? { ...WEIGHTS, heat: HEAT_WEIGHT } : WEIGHTS,
      files_scored: rows.length,
      ...(index ? {} : { note: 'no git history: churn is null and risk uses blast and centrality only' }),
      files: rows.slice(0, args.top_n),
    };
  },
});

/**
 * Each file's count of transitive dependents: a walk per file over the dependents adjacency with
 * files numbered and an epoch-stamped seen array (no per-file string sets), paced between files.
 */
async function transitiveDependents(deps: FileDeps, files: string[], pace: () => Promise<void>): Promise<Map<string, number>> {
  const id = new Map<string, number>();
  const number = (f: string): number => {
    let k = id.get(f);
    if (k === undefined) id.set(f, (k = id.size));
    return k;
  };
  for (const f of files) number(f);
  for (const [f, ds] of deps.dependents) {
    number(f);
    for (const d of ds) number(d);
  }
  const n = id.size;
  const offsets = new Int32Array(n + 1);
  for (const [f, ds] of deps.dependents) offsets[id.get(f)! + 1] = ds.size;
  for (let k = 0; k < n; k++) offsets[k + 1] += offsets[k];
  const targets = new Int32Array(offsets[n]);
  for (const [f, ds] of deps.dependents) {
    let at = offsets[id.get(f)!];
    for (const d of ds) targets[at++] = id.get(d)!;
  }
  const seenAt = new Int32Array(n);
  const stack = new Int32Array(n);
  const out = new Map<string, number>();
  let epoch = 0;
  for (const f of files) {
    await pace();
    const start = id.get(f)!;
    epoch++;
    seenAt[start] = epoch;
    let top = 0;
    let reached = 0;
    stack[top++] = start;
    while (top > 0) {
      const u = stack[--top];
      for (let k = offsets[u]; k < offsets[u + 1]; k++) {
        const v = targets[k];
        if (seenAt[v] === epoch) continue;
        seenAt[v] = epoch;
        reached++;
        stack[top++] = v;
      }
    }
    out.set(f, reached);
  }
  return out;
}
