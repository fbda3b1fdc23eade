/** tremor: files whose change frequency is accelerating, from git commit times, with the trend and its confidence. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { historyCall, historySource, iso, round3 } from '../call.ts';
import { windowSeconds } from '../history-index.ts';

const BUCKETS = 6;

export const tremorVerb = defineVerb({
  name: 'tremor',
  description: 'Files whose change frequency is accelerating (git commit times): trend, acceleration and confidence.',
  input: Type.Object({
    agent_id: AgentId,
    window: Type.String({ default: '90d', maxLength: 16, description: 'Window: 30d, 90d, 1y or all (ends at the newest commit)' }),
    threshold: Type.Number({ minimum: 0, maximum: 10, default: 0.1, description: 'Minimum trend (slope / mean rate per bucket)' }),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
    node_filter: Type.Optional(Type.String({ maxLength: 512, description: 'Path prefix to keep' })),
    include_history: Type.Boolean({ default: false, description: 'Per-bucket commit counts' }),
    min_observations: Type.Integer({ minimum: 2, maximum: 1000, default: 3, description: 'Commits a file needs in the window' }),
    sensitivity: Type.Number({ minimum: 0.1, maximum: 10, default: 1, description: 'Multiplies the trend before the threshold' }),
  }),
  output: Type.Object({
    window: Type.Object({ from: Type.String(), to: Type.String(), buckets: Type.Number(), bucket_days: Type.Number() }),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    accelerating_count: Type.Number(),
    tremors: Type.Array(Type.Object({})),
    note: Type.String(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review', 'plan'],
  next: 'timeline',
  guide: [
    `The window (ending at the newest commit) is cut into ${BUCKETS} equal buckets; a file's commits per bucket get a least-squares line.`,
    '- `trend` = slope / mean commits per bucket (0.2: the rate grows by a fifth of its mean each bucket); kept when trend × sensitivity ≥ threshold.',
    '- `acceleration` = commits in the last third of the window over the first third (null when the first third had none).',
    '- `confidence` = R² of the line × min(1, commits / 10): a clean rise over many commits is sure, three commits are not.',
    'Sweeping commits (formatting, mass renames) are not counted.',
  ].join('\n'),
  handler: async (args, call) => {
    const { index, mined } = await historyCall(call);
    const span = windowSeconds(args.window) ?? Math.max(1, index.newest - index.oldest);
    const start = index.newest - span;
    const width = span / BUCKETS;
    const from = index.firstAtOrAfter(start);
    const counts = new Map<string, number[]>();
    for (let i = from; i < index.commits.length; i++) {
      const c = index.commits[i];
      if (c.sweep) continue;
      const b = Math.min(BUCKETS - 1, Math.floor((c.time - start) / width));
      for (const f of c.files) {
        if (args.node_filter && !f.startsWith(args.node_filter)) continue;
        let row = counts.get(f);
        if (!row) counts.set(f, (row = new Array(BUCKETS).fill(0)));
        row[b]++;
      }
    }
    const xMean = (BUCKETS - 1) / 2;
    let sxx = 0;
    for (let x = 0; x < BUCKETS; x++) sxx += (x - xMean) ** 2;
    const third = BUCKETS / 3;
    const rows = [];
    for (const [file, row] of counts) {
      const n = row.reduce((a, b) => a + b, 0);
      if (n < args.min_observations) continue;
      const mean = n / BUCKETS;
      let sxy = 0;
      let syy = 0;
      row.forEach((y, x) => {
        sxy += (x - xMean) * (y - mean);
        syy += (y - mean) ** 2;
      });
      const slope = sxy / sxx;
      const trend = slope / mean;
      if (trend * args.sensitivity < args.threshold) continue;
      const r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
      const first = row.slice(0, third).reduce((a, b) => a + b, 0);
      const last = row.slice(BUCKETS - third).reduce((a, b) => a + b, 0);
      rows.push({
        file,
        commits: n,
        trend: round3(trend),
        acceleration: first ? round3(last / first) : null,
        confidence: round3(r2 * Math.min(1, n / 10)),
        ...(args.include_history ? { per_bucket: row } : {}),
      });
    }
    rows.sort((a, b) => b.trend * b.confidence - a.trend * a.confidence || b.commits - a.commits || (a.file < b.file ? -1 : 1));
    return {
      window: { from: iso(start), to: iso(index.newest), buckets: BUCKETS, bucket_days: round3(width / 86_400) },
      source: historySource(mined, index),
      accelerating_count: rows.length,
      tremors: rows.slice(0, args.top_k),
      note: 'from git commit times; learn feedback is not part of the trend',
    };
  },
});
