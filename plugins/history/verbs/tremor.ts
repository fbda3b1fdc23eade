/** tremor: files whose change frequency is accelerating, from git commit times, with the trend and its confidence. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { historyCall, historySource, iso, onDisk, round3, workspaceArg } from '../call.ts';
import { defectAnchor, learnEvents } from '../defects.ts';
import { windowSeconds } from '../history-index.ts';
import { BUCKETS, bucketRow, lifeWindow, trendOf } from '../trend.ts';

export const tremorVerb = defineVerb({
  name: 'tremor',
  description: 'Files whose change frequency is accelerating (git commit times and learn events): trend, acceleration and confidence.',
  input: Type.Object({
    agent_id: AgentId,
    window: Type.String({ default: '90d', maxLength: 16, description: 'Window: 30d, 90d, 1y or all (ends at the newest commit)' }),
    threshold: Type.Number({ minimum: 0, maximum: 10, default: 0.1, description: 'Minimum trend (slope / mean rate per bucket)' }),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
    node_filter: Type.Optional(Type.String({ maxLength: 512, description: 'Path prefix to keep' })),
    include_history: Type.Boolean({ default: false, description: 'Per-bucket commit counts' }),
    min_observations: Type.Integer({ minimum: 2, maximum: 1000, default: 3, description: 'Commits a file needs in the window' }),
    sensitivity: Type.Number({ minimum: 0.1, maximum: 10, default: 1, description: 'Multiplies the trend before the threshold' }),
    include_learn: Type.Boolean({ default: true, description: 'Count learn events (team and own) on a file as observations' }),
  }),
  output: Type.Object({
    window: Type.Object({ from: Type.String(), to: Type.String(), buckets: Type.Number(), bucket_days: Type.Number() }),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    accelerating_count: Type.Number(),
    learn_events: Type.Number(),
    tremors: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review', 'plan'],
  next: 'timeline',
  guide: [
    `The window (ending at the newest commit) is cut into ${BUCKETS} equal buckets; a file's commits per bucket get a least-squares line.`,
    '- `trend` = slope / mean commits per bucket (0.2: the rate grows by a fifth of its mean each bucket); kept when trend × sensitivity ≥ threshold and the last third holds more commits than the first (a steady rate can tilt the line by where its commits fall in the buckets).',
    '- `acceleration` = commits in the last third of the window over the first third (null when the first third had none).',
    '- `confidence` = R² of the line × min(1, commits / 10): a clean rise over many commits is sure, three commits are not.',
    `- A file created inside the window (\`created\`: its first commit, renames followed) is measured over its own life, cut into ${BUCKETS} buckets of \`bucket_days\`; one that lived less than half the window is left out, too young to show a trend.`,
    'Files since deleted are left out. Sweeping commits (formatting, mass renames) are not counted. `learn` events on a file\'s nodes (team-scoped and the caller\'s own) are observations too (`learn_events` per file); the window then ends at the newest commit or learn event, whichever is later.',
  ].join('\n'),
  handler: async (args, call) => {
    const { graph, engine, index, mined } = await historyCall(call);
    if (args.node_filter) args.node_filter = workspaceArg(graph, 'tremor', args.node_filter);
    const learn = args.include_learn ? learnEvents(graph, args.agent_id) : [];
    const end = defectAnchor(index, learn);
    const span = windowSeconds(args.window) ?? Math.max(1, end - index.oldest);
    const start = end - span;
    const width = span / BUCKETS;
    const from = index.firstAtOrAfter(start);
    const times = new Map<string, number[]>();
    const learned = new Map<string, number[]>();
    const observe = (f: string, time: number) => {
      if (args.node_filter && !f.startsWith(args.node_filter)) return false;
      let list = times.get(f);
      if (!list) times.set(f, (list = []));
      list.push(time);
      return true;
    };
    for (let i = from; i < index.commits.length; i++) {
      const c = index.commits[i];
      if (c.sweep) continue;
      for (const f of c.files) observe(f, c.time);
    }
    for (const e of learn) {
      if (e.time < start) continue;
      for (const f of e.files) {
        if (!observe(f, e.time)) continue;
        let list = learned.get(f);
        if (!list) learned.set(f, (list = []));
        list.push(e.time);
      }
    }
    const rows = [];
    for (const [file, list] of times) {
      const firstCommit = index.files.get(file)?.commits[0];
      const birth = firstCommit === undefined ? undefined : index.commits[firstCommit].time;
      const life = lifeWindow(birth, start, end);
      const row = life ? bucketRow(list, life) : null;
      const t = row ? trendOf(row) : null;
      if (!t || !t.rising || t.observations < args.min_observations || t.trend * args.sensitivity < args.threshold) continue;
      // A file deleted since (off disk under its current name) has no change rate left to rise.
      if (!onDisk(engine, file)) continue;
      const learnEventsHere = (learned.get(file) ?? []).filter((time) => time >= life!.start).length;
      rows.push({
        file,
        commits: t.observations - learnEventsHere,
        ...(learnEventsHere ? { learn_events: learnEventsHere } : {}),
        ...(life!.young ? { created: iso(life!.start), bucket_days: round3(life!.span / BUCKETS / 86_400) } : {}),
        trend: round3(t.trend),
        acceleration: t.acceleration === null ? null : round3(t.acceleration),
        confidence: round3(t.confidence),
        ...(args.include_history ? { per_bucket: row } : {}),
      });
    }
    rows.sort((a, b) => b.trend * b.confidence - a.trend * a.confidence || b.commits - a.commits || (a.file < b.file ? -1 : 1));
    return {
      window: { from: iso(start), to: iso(end), buckets: BUCKETS, bucket_days: round3(width / 86_400) },
      source: historySource(mined, index),
      accelerating_count: rows.length,
      learn_events: learn.length,
      tremors: rows.slice(0, args.top_k),
    };
  },
});
