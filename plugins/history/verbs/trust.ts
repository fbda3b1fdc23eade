/** trust: per-file trust from defect history — fix commits in git, recency-weighted, with the evidence. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { historyCall, historySource, iso, round3, workspaceArg } from '../call.ts';
import { defectAnchor, defectRecord, eventsByFile, learnEvents } from '../defects.ts';

/** Subjects that mark a defect fix: fix/bug/hotfix/regression/crash/revert words, or a linked issue ("closes #12"). */
export const DEFAULT_FIX_PATTERN = String.raw`\b(fix(e[sd])?|bug(fix)?|hotfix|patch(ed)?|regression|crash(es|ed)?|broken|revert(s|ed)?)\b|\b(close[sd]?|resolve[sd]?|fixe?[sd]?)\s+#\d+`;

interface TrustRow {
  file: string;
  trust: number;
  defect_density: number;
  risk_multiplier: number;
  commits: number;
  fix_commits: number;
  last_fix?: string;
  evidence: { hash: string; date: string; subject: string }[];
  learn?: { correct: number; wrong: number; partial: number; last: { date: string; feedback: string; query: string } };
}

/** The trust verb, with the fix pattern the plugin is configured with. */
export function trustVerb(fixPattern: string) {
  const fix = new RegExp(fixPattern, 'i');
  return defineVerb({
    name: 'trust',
    description: 'Per-file trust from defect history: git fix commits (message and linked-issue heuristics) and learn outcomes, recency-weighted, with the evidence.',
    input: Type.Object({
      agent_id: AgentId,
      scope: StringEnum(['file'] as const, { default: 'file', description: 'Unit scored (files: git history is per file)' }),
      min_history: Type.Integer({ minimum: 1, maximum: 10_000, default: 1, description: 'Commits a file needs to be scored' }),
      top_k: Type.Integer({ minimum: 1, maximum: 500, default: 20 }),
      node_filter: Type.Optional(Type.String({ maxLength: 512, description: 'Path prefix to keep' })),
      sort_by: StringEnum(['trust_asc', 'trust_desc', 'defects_desc'] as const, { default: 'trust_asc' }),
      decay_half_life_days: Type.Number({ minimum: 1, maximum: 10_000, default: 30, description: 'Age (before the newest commit) at which a commit counts half' }),
      risk_cap: Type.Number({ minimum: 1, maximum: 100, default: 3 }),
      include_learn: Type.Boolean({ default: true, description: 'Count learn outcomes (team and own) as events' }),
    }),
    output: Type.Object({
      source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
      fix_pattern: Type.String(),
      scored: Type.Number(),
      files: Type.Array(Type.Object({})),
      learn_events: Type.Number(),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review', 'plan'],
    next: 'timeline',
    guide: [
      'A fix commit is one whose subject matches the fix pattern (fix, bug, hotfix, regression, crash, revert…, or "closes #12"; plugin option `history.fixPattern`). Sweeping commits are not counted.',
      '- `learn` outcomes on the file\'s nodes (team-scoped and the caller\'s own) are events too: wrong counts as a defect, partial as half of one, correct as clean.',
      '- `defect_density` = Σ w(defects) / Σ w(events), w = 0.5^(age / half-life) before the newest commit or learn event, floored at 0.3 so old history still counts a little; `trust` = max(0.05, 1 − density); `risk_multiplier` = min(risk_cap, 1 + 2 × density).',
      '- `evidence`: the file\'s most recent fix commits; `learn`: its learn outcomes and the last one. Files without defects have trust 1.',
    ].join('\n'),
    handler: async (args, call) => {
      const { engine, graph, index, mined } = await historyCall(call);
      if (args.node_filter) args.node_filter = workspaceArg(graph, 'trust', args.node_filter);
      const halfLife = args.decay_half_life_days * 86_400;
      const learn = args.include_learn ? learnEvents(graph, args.agent_id) : [];
      const learnOf = eventsByFile(learn);
      const anchor = defectAnchor(index, learn);
      const rows: TrustRow[] = [];
      const files = new Set([...index.files.keys(), ...learnOf.keys()]);
      for (const file of files) {
        if (args.node_filter && !file.startsWith(args.node_filter)) continue;
        if (!engine.graph.get(`file:${file}`)) continue;
        const rec = defectRecord(index, file, fix, learnOf.get(file) ?? [], anchor, halfLife);
        if (rec.events < args.min_history) continue;
        const fixes = rec.fixes;
        rows.push({
          file,
          trust: round3(Math.max(0.05, 1 - rec.density)),
          defect_density: round3(rec.density),
          risk_multiplier: round3(Math.min(args.risk_cap, 1 + 2 * rec.density)),
          commits: rec.commits,
          fix_commits: fixes.length,
          ...(fixes.length ? { last_fix: iso(index.commits[fixes.at(-1)!].time) } : {}),
          evidence: fixes
            .slice(-3)
            .reverse()
            .map((ci) => ({ hash: index.commits[ci].hash.slice(0, 12), date: iso(index.commits[ci].time), subject: index.commits[ci].subject.slice(0, 120) })),
          ...(rec.learn.correct + rec.learn.wrong + rec.learn.partial
            ? { learn: { correct: rec.learn.correct, wrong: rec.learn.wrong, partial: rec.learn.partial, last: { date: iso(rec.learn.last!.time), feedback: rec.learn.last!.feedback, query: rec.learn.last!.query.slice(0, 120) } } }
            : {}),
        });
      }
      const by = {
        trust_asc: (a: TrustRow, b: TrustRow) => a.trust - b.trust || b.fix_commits - a.fix_commits,
        trust_desc: (a: TrustRow, b: TrustRow) => b.trust - a.trust || b.commits - a.commits,
        defects_desc: (a: TrustRow, b: TrustRow) => b.fix_commits - a.fix_commits || a.trust - b.trust,
      }[args.sort_by];
      rows.sort((a, b) => by(a, b) || (a.file < b.file ? -1 : 1));
      return {
        source: historySource(mined, index),
        fix_pattern: fix.source,
        scored: rows.length,
        files: rows.slice(0, args.top_k),
        learn_events: learn.length,
      };
    },
  });
}
