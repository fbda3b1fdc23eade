/** predict: what else likely needs changing with a node — git co-change, static dependents, learned feedback. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { fileIdOf } from '../../graph/api.ts';
import { fileOfNode, historyCall, historySource, round3 } from '../call.ts';
import { decide } from '../calibration.ts';
import { fileDeps, learnedPairs, predictFiles, PREDICT_WEIGHTS } from '../predictor.ts';

export const predictVerb = defineVerb({
  name: 'predict',
  description: 'Files likely to need changing with a changed node: git co-change, static dependents and learned feedback, weights shown; act/reverify/abstain once calibrated.',
  input: Type.Object({
    agent_id: AgentId,
    changed_node: Type.String({ minLength: 1, description: 'Node id, file path or symbol name' }),
    top_k: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    include_velocity: Type.Boolean({ default: true, description: 'Weight recent co-changes more (half-life from the history span)' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    note: Type.Optional(Type.String()),
    changed: Type.Object({ node: Type.String(), file: Type.String(), commits: Type.Number(), sweeping_commits: Type.Optional(Type.Number()) }),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    weights: Type.Object({ co_change: Type.Number(), static: Type.Number(), learned: Type.Number() }),
    predictions: Type.Array(Type.Object({})),
    calibration: Type.Union([Type.Object({ note: Type.Optional(Type.String()), act_threshold: Type.Union([Type.Number(), Type.Null()]), reverify_threshold: Type.Union([Type.Number(), Type.Null()]), measured: Type.Array(Type.Unknown()), at_head: Type.Union([Type.String(), Type.Null()]), calibrated: Type.Optional(Type.Unknown()), next: Type.Optional(Type.Unknown()) }), Type.Object({ calibrated: Type.Boolean(), next: Type.String() })]),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['plan', 'edit', 'review'],
  next: 'calibrate_predict',
  guide: [
    `score = ${PREDICT_WEIGHTS.co_change} × co_change + ${PREDICT_WEIGHTS.static} × static + ${PREDICT_WEIGHTS.learned} × learned, each in [0,1]:`,
    '- `co_change`: damped shared commits / (commits of the changed file + 1), from git (sweeping commits skipped; with include_velocity, each commit weighted by recency before the newest commit). `confidence` = `support` / the changed file\'s commits less its `sweeping_commits`.',
    '- `static`: 1 when the file depends on the changed one (imports, calls, references, inherits), 0.4 when the changed one depends on it.',
    '- `learned`: `learn` feedback that confirmed an edge between the two files.',
    'After `calibrate_predict`, each row gets `decision`: act (replayed precision ≥ 1 − alpha at that score), reverify, or abstain, and the answer shows the measured precision@k/recall@k.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { history, graph, engine, index, mined, federated } = await historyCall(call, { view: true });
    const { node, file } = fileOfNode(graph, args.changed_node);
    const g = engine.graph;
    const preds = predictFiles(
      file,
      { index, halfLifeSeconds: args.include_velocity ? history.halfLife(index) : undefined, deps: fileDeps(g), learned: learnedPairs(graph) },
      args.top_k * 3,
    )
      .filter((p) => g.get(fileIdOf(p.file)) !== null)
      .slice(0, args.top_k);
    // Thresholds were replayed on the workspace's history: they say nothing about the federation's.
    const cal = federated ? null : history.calibration();
    const fh = index.files.get(file);
    const sweeps = fh?.commits.filter((ci) => index.commits[ci].sweep).length ?? 0;
    return {
      changed: { node: node.id, file, commits: fh?.commits.length ?? 0, ...(sweeps ? { sweeping_commits: sweeps } : {}) },
      source: historySource(mined, index),
      weights: PREDICT_WEIGHTS,
      predictions: preds.map((p) => ({
        file: p.file,
        score: round3(p.score),
        ...(cal ? { decision: decide(p.score, cal) } : {}),
        components: { co_change: round3(p.co_change), static: p.static, learned: round3(p.learned) },
        support: p.support,
        confidence: round3(p.confidence),
      })),
      calibration: cal
        ? {
            act_threshold: cal.act_threshold,
            reverify_threshold: cal.reverify_threshold,
            measured: cal.metrics,
            at_head: cal.head?.slice(0, 12) ?? null,
            ...(cal.head !== mined.head ? { note: 'calibrated at an older head: rerun calibrate_predict to refresh' } : {}),
          }
        : { calibrated: false, next: 'calibrate_predict replays this history and sets act/reverify/abstain thresholds' },
      ...(fh ? {} : { note: `no mined commit touched ${file}: only static and learned signals apply` }),
      elapsed_ms: round3(performance.now() - t0),
    };
  },
});
