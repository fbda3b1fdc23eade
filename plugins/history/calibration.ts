/**
 * The held-out replay behind `calibrate_predict`: the most recent commits are hidden, the scorer is
 * trained on everything older, and for each hidden commit one of its files is given and the rest
 * must be predicted. Precision@k and recall@k are measured for `predict`'s scorer and for the naive
 * co-change-frequency ranking; the score thresholds where measured precision reaches the targets
 * become `act` and `reverify`.
 */
import type { HistoryIndex } from './history-index.ts';
import { frequencyBaseline, predictFiles, type FileDeps } from './predictor.ts';

/** What a calibration measured and decided (stored; `predict` reads it). */
export interface Calibration {
  head: string | null;
  computed_at: string;
  alpha: number;
  top_k: number;
  held_out_commits: number;
  queries: number;
  /** Scores at or above `act` were right at least 1 − alpha of the time in the replay; null: never. */
  act_threshold: number | null;
  /** Scores at or above `reverify` were right at least (1 − alpha) / 3 of the time. */
  reverify_threshold: number | null;
  metrics: { k: number; precision: number; recall: number; baseline_precision: number; baseline_recall: number }[];
  half_life_days: number;
}

/** Replay settings. */
export interface ReplayOptions {
  alpha: number;
  topK: number;
  /** Most recent eligible commits held out (default: 20% of them, at most 200). */
  maxHeldOut?: number;
  /** Files of one held-out commit given in turn (default 3). */
  seedsPerCommit?: number;
  halfLifeSeconds: number;
  /** The files `predict` may be asked about and answer (those of the graph): the replay's seeds and rankings keep only these, as predict does. */
  answerable?: (file: string) => boolean;
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));
const round = (x: number) => Math.round(x * 1000) / 1000;

/** Runs the replay; null when the history has too few multi-file commits to hold any out. */
export async function replayHistory(
  index: HistoryIndex,
  deps: FileDeps | null,
  learned: Map<string, Map<string, number>> | null,
  head: string | null,
  opts: ReplayOptions,
): Promise<Calibration | null> {
  const eligible: number[] = [];
  index.commits.forEach((c, i) => {
    if (!c.sweep && c.files.length >= 2) eligible.push(i);
  });
  const held = Math.min(opts.maxHeldOut ?? 200, Math.floor(eligible.length * 0.2));
  if (held < 1 || eligible.length - held < 2) return null;
  const test = eligible.slice(eligible.length - held);
  const cut = test[0];
  const anchor = index.commits[cut - 1]?.time ?? index.oldest;
  const keep = opts.answerable ?? (() => true);
  const ks = [...new Set([1, 5, opts.topK])].sort((a, b) => a - b);
  const kMax = ks.at(-1)!;
  const sums = ks.map(() => ({ p: 0, r: 0, bp: 0, br: 0 }));
  const scored: { score: number; hit: boolean }[] = [];
  let queries = 0;
  for (let t = 0; t < test.length; t++) {
    const c = index.commits[test[t]];
    const seeds = c.files.filter((f) => (index.files.get(f)?.commits[0] ?? Infinity) < cut && keep(f)).sort().slice(0, opts.seedsPerCommit ?? 3);
    for (const seed of seeds) {
      const rest = new Set(c.files.filter((f) => f !== seed));
      const preds = predictFiles(seed, { index, before: cut, halfLifeSeconds: opts.halfLifeSeconds, anchor, deps, learned }, kMax * 3)
        .filter((p) => keep(p.file))
        .slice(0, kMax);
      const base = frequencyBaseline(seed, index, cut, kMax * 3)
        .filter(keep)
        .slice(0, kMax);
      ks.forEach((k, j) => {
        const hits = preds.slice(0, k).filter((p) => rest.has(p.file)).length;
        const bhits = base.slice(0, k).filter((f) => rest.has(f)).length;
        sums[j].p += hits / k;
        sums[j].r += hits / rest.size;
        sums[j].bp += bhits / k;
        sums[j].br += bhits / rest.size;
      });
      for (const p of preds.slice(0, opts.topK)) scored.push({ score: p.score, hit: rest.has(p.file) });
      queries++;
    }
    if (t % 20 === 19) await yieldTurn();
  }
  if (queries === 0) return null;
  scored.sort((a, b) => b.score - a.score);
  const threshold = (target: number): number | null => {
    let hits = 0;
    let best: number | null = null;
    for (let i = 0; i < scored.length; i++) {
      if (scored[i].hit) hits++;
      // Only at a score boundary: a threshold admits every prediction with that score.
      if (i + 1 < scored.length && scored[i + 1].score === scored[i].score) continue;
      if (hits / (i + 1) >= target) best = scored[i].score;
    }
    return best === null ? null : round(best);
  };
  return {
    head,
    computed_at: new Date().toISOString(),
    alpha: opts.alpha,
    top_k: opts.topK,
    held_out_commits: test.length,
    queries,
    act_threshold: threshold(1 - opts.alpha),
    reverify_threshold: threshold((1 - opts.alpha) / 3),
    metrics: ks.map((k, j) => ({
      k,
      precision: round(sums[j].p / queries),
      recall: round(sums[j].r / queries),
      baseline_precision: round(sums[j].bp / queries),
      baseline_recall: round(sums[j].br / queries),
    })),
    half_life_days: round(opts.halfLifeSeconds / 86_400),
  };
}

/** The decision a calibrated score earns. */
export function decide(score: number, cal: Calibration): 'act' | 'reverify' | 'abstain' {
  if (cal.act_threshold !== null && score >= cal.act_threshold) return 'act';
  if (cal.reverify_threshold !== null && score >= cal.reverify_threshold) return 'reverify';
  return 'abstain';
}
