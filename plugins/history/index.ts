/**
 * The history family: what is likely to break, and why, from the repository's real git history and
 * the code graph. Provides the `history` service (the mined, incrementally updated log and its
 * index); git is read through the git CLI in a child process with bounded output.
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { DEFAULT_SWEEP } from './history-index.ts';
import { createHistoryService } from './service.ts';
import { calibratePredictVerb } from './verbs/calibrate_predict.ts';
import { ghostEdgesVerb } from './verbs/ghost_edges.ts';
import { predictVerb } from './verbs/predict.ts';
import { timelineVerb } from './verbs/timeline.ts';
import { traceVerb } from './verbs/trace.ts';
import { hypothesizeVerb } from './verbs/hypothesize.ts';
import { divergeVerb } from './verbs/diverge.ts';
import { tremorVerb } from './verbs/tremor.ts';
import { panoramicVerb } from './verbs/panoramic.ts';
import { DEFAULT_FIX_PATTERN, trustVerb } from './verbs/trust.ts';
import { epidemicVerb } from './verbs/epidemic.ts';
import { heuristicsSurfaceVerb } from './verbs/heuristics_surface.ts';
import { differentialVerb } from './verbs/differential.ts';

const Options = Type.Object({
  maxCommits: Type.Integer({ minimum: 1, default: 50_000, description: 'Newest commits mined and kept' }),
  sweepMaxFiles: Type.Integer({ minimum: 2, default: DEFAULT_SWEEP.maxFiles, description: 'A commit touching more files is a sweep, never coupling' }),
  sweepShare: Type.Number({ minimum: 0.05, maximum: 1, default: DEFAULT_SWEEP.share, description: 'A commit touching this share of the known files (and ≥ 5) is a sweep' }),
  fixPattern: Type.String({ default: DEFAULT_FIX_PATTERN, maxLength: 2000, description: 'Regular expression (case-insensitive) a fix commit subject matches, for trust' }),
});

export interface HistoryOptions {
  maxCommits: number;
  sweepMaxFiles: number;
  sweepShare: number;
  fixPattern: string;
}

export default definePlugin<HistoryOptions>({
  name: 'history',
  version: '0.1.0',
  description: 'Git history, co-change prediction, stack-trace mapping, structural hypotheses and drift.',
  requires: ['graph'],
  provides: ['history'],
  options: Options,
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    const service = createHistoryService(graph, {
      maxCommits: ctx.options.maxCommits,
      sweep: { ...DEFAULT_SWEEP, maxFiles: ctx.options.sweepMaxFiles, share: ctx.options.sweepShare },
    });
    ctx.provide('history', service);
    ctx.registerVerb(timelineVerb);
    ctx.registerVerb(ghostEdgesVerb);
    ctx.registerVerb(predictVerb);
    ctx.registerVerb(calibratePredictVerb);
    ctx.registerVerb(traceVerb);
    ctx.registerVerb(hypothesizeVerb);
    ctx.registerVerb(divergeVerb);
    ctx.registerVerb(tremorVerb);
    ctx.registerVerb(panoramicVerb);
    ctx.registerVerb(trustVerb(ctx.options.fixPattern));
    ctx.registerVerb(epidemicVerb(ctx.options.fixPattern));
    ctx.registerVerb(heuristicsSurfaceVerb(ctx.options.fixPattern));
    ctx.registerVerb(differentialVerb);
  },
});

export type { HistoryService } from './service.ts';
