/** calibrate_predict: replays this repository's recent commits held out, measures predict, stores thresholds. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { fileIdOf } from '../../graph/api.ts';
import { historyCall, historySource } from '../call.ts';
import { replayHistory } from '../calibration.ts';
import { fileDeps, learnedPairs, PREDICT_WEIGHTS } from '../predictor.ts';

export const calibratePredictVerb = defineVerb({
  name: 'calibrate_predict',
  description: "Replay this repository's recent commits held out to measure predict's precision@k/recall@k (vs a co-change-count baseline) and store act/reverify thresholds.",
  input: Type.Object({
    agent_id: AgentId,
    alpha: Type.Number({ minimum: 0.01, maximum: 0.9, default: 0.1, description: 'Act when replayed precision ≥ 1 − alpha' }),
    top_k: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
    held_out: Type.Integer({ minimum: 1, maximum: 2000, default: 200, description: 'Most recent multi-file commits held out (at most 20% of them)' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    note: Type.Optional(Type.String()),
    stored: Type.Boolean(),
    head: Type.Union([Type.String(), Type.Null()]),
    computed_at: Type.String(),
    alpha: Type.Number(),
    top_k: Type.Number(),
    held_out_commits: Type.Number(),
    queries: Type.Number(),
    act_threshold: Type.Union([Type.Number(), Type.Null()]),
    reverify_threshold: Type.Union([Type.Number(), Type.Null()]),
    metrics: Type.Array(Type.Object({})),
    half_life_days: Type.Number(),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    weights: Type.Object({ co_change: Type.Number(), static: Type.Number(), learned: Type.Number() }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['plan'],
  next: 'predict',
  guide: [
    'The most recent multi-file, non-sweeping commits are hidden; predict is trained on everything older. For each hidden commit, up to 3 of its files are given in turn and the rest must be predicted. As in predict, only files of the graph are given or predicted (the rest of the commit still counts for recall).',
    '`metrics` gives precision@k and recall@k for k = 1, 5 and top_k, beside the baseline that ranks partners by raw co-change count (sweeps included, no static or learned signal).',
    'Thresholds: `act` is the lowest score at which replayed precision reached 1 − alpha, `reverify` where it reached (1 − alpha)/3; predict then labels each row. Stored in the workspace store (in memory only on a read-only server). Static edges come from the current graph.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { history, graph, engine, index, mined } = await historyCall(call);
    const cal = await replayHistory(index, fileDeps(engine.graph), learnedPairs(graph), mined.head, {
      alpha: args.alpha,
      topK: args.top_k,
      maxHeldOut: args.held_out,
      halfLifeSeconds: history.halfLife(index),
      answerable: (f) => engine.graph.get(fileIdOf(f)) !== null,
    });
    if (!cal) {
      throw new M1ndError(ErrorCodes.HISTORY_TOO_SHORT, `too little history to replay: ${index.commits.length} commits, too few touching two or more files`, {
        hint: 'calibrate again once the repository has a few dozen multi-file commits; predict still answers, uncalibrated',
      });
    }
    const stored = history.saveCalibration(cal);
    return {
      source: historySource(mined, index),
      weights: PREDICT_WEIGHTS,
      ...cal,
      stored,
      ...(stored ? {} : { note: 'read-only server: the thresholds apply to this server process only' }),
      elapsed_ms: Math.round(performance.now() - t0),
    };
  },
});
