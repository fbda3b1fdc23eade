/** timeline: a file's git history, renames followed — commits, authors, churn, co-change partners, velocity, stability. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { fileIdOf } from '../../graph/api.ts';
import { fileDeps } from '../predictor.ts';
import { fileOfNode, historyCall, historySource, iso, onDisk, round3 } from '../call.ts';
import { windowSeconds } from '../history-index.ts';

const WEEK = 7 * 86_400;

export const timelineVerb = defineVerb({
  name: 'timeline',
  description: "A node's file history from git (renames followed): commits, authors, churn, co-change partners, velocity, stability.",
  input: Type.Object({
    agent_id: AgentId,
    node: Type.String({ minLength: 1, description: 'Node id, file path or symbol name' }),
    depth: Type.String({ default: '30d', maxLength: 16, description: 'Window: 7d, 30d, 90d, 1y or all (ends at the newest commit)' }),
    include_co_changes: Type.Boolean({ default: true }),
    include_churn: Type.Boolean({ default: true }),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'Commits and partners listed' }),
  }),
  output: Type.Object({
    commits_in_window: Type.Number(),
    total_commits: Type.Number(),
    note: Type.Optional(Type.String()),
    node: Type.String(),
    file: Type.String(),
    window: Type.String(),
    source: Type.Object({ truncated: Type.Optional(Type.Boolean()), shallow: Type.Optional(Type.Boolean()), warning: Type.Optional(Type.String()), new_commits: Type.Optional(Type.Number()), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]), newest: Type.String(), mined: Type.String() }),
    co_changes: Type.Optional(Type.Array(Type.Unknown())),
    velocity: Type.Optional(Type.Object({ newer_half: Type.Number(), older_half: Type.Number(), ratio: Type.Union([Type.Number(), Type.Null()]), trend: Type.String() })),
    stability: Type.Optional(Type.Number()),
    commits: Type.Optional(Type.Array(Type.Object({}))),
    churn: Type.Optional(Type.Object({ lines: Type.Number(), per_commit: Type.Number() })),
    first_commit: Type.Optional(Type.String()),
    last_commit: Type.Optional(Type.String()),
    authors: Type.Optional(Type.Array(Type.Object({}))),
    former_names: Type.Optional(Type.Array(Type.String())),
    scope: Type.Optional(Type.String()),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['diagnose', 'review'],
  next: 'predict',
  guide: [
    'History is per file: a symbol node is answered with its file. Earlier names of the file are followed (`former_names`).',
    'Windows end at the newest commit, not today, so a quiet repository still has a recent past.',
    '- `co_changes`: files changed in the same commits (support = shared commits, confidence = support / this file\'s commits); sweeping commits (formatting, mass renames, vendoring) are not counted; `static_edge: false` marks a ghost edge; `gone`: deleted since; `in_graph: false`: on disk but not a node (a manifest, a script, an image).',
    '- `velocity`: commits in the newer half of the window over the older half (> 1: speeding up).',
    '- `stability`: share of the window\'s weeks (since the file\'s first commit) without a change.',
  ].join('\n'),
  handler: async (args, call) => {
    const { graph, engine, index, mined } = await historyCall(call, { view: true });
    const { node, file } = fileOfNode(graph, args.node);
    const span = windowSeconds(args.depth);
    const fh = index.files.get(file);
    const base = { node: node.id, file, window: args.depth, source: historySource(mined, index) };
    if (!fh) return { ...base, commits_in_window: 0, total_commits: 0, note: `no mined commit touched ${file} (new, untracked, or older than the mined history)` };
    const since = span === null ? index.commits[fh.commits[0]].time : index.newest - span;
    const from = index.firstAtOrAfter(since);
    const inWindow: number[] = [];
    fh.commits.forEach((ci, k) => {
      if (ci >= from) inWindow.push(k);
    });
    const commits = inWindow
      .slice(-args.top_k)
      .reverse()
      .map((k) => {
        const c = index.commits[fh.commits[k]];
        return { hash: c.hash.slice(0, 12), date: iso(c.time), author: c.author, subject: c.subject.slice(0, 120), ...(args.include_churn ? { lines: fh.lines[k] } : {}), ...(c.sweep ? { sweeping: true } : {}) };
      });
    const authors = new Map<string, number>();
    let churn = 0;
    for (const k of inWindow) {
      const c = index.commits[fh.commits[k]];
      authors.set(c.author, (authors.get(c.author) ?? 0) + 1);
      churn += fh.lines[k];
    }
    const windowStart = Math.max(since, index.commits[fh.commits[0]].time);
    const mid = (windowStart + index.newest) / 2;
    const older = inWindow.filter((k) => index.commits[fh.commits[k]].time < mid).length;
    const newer = inWindow.length - older;
    const weeks = Math.max(1, Math.ceil((index.newest - windowStart + 1) / WEEK));
    const activeWeeks = new Set(inWindow.map((k) => Math.floor((index.commits[fh.commits[k]].time - windowStart) / WEEK))).size;
    let coChanges: unknown[] | undefined;
    if (args.include_co_changes) {
      const deps = fileDeps(engine.graph);
      const counts = index.partners(file, { from });
      coChanges = [...counts.partners]
        .sort((a, b) => b[1].support - a[1].support || b[1].weight - a[1].weight || (a[0] < b[0] ? -1 : 1))
        .slice(0, args.top_k)
        .map(([f, p]) => ({
          file: f,
          support: p.support,
          confidence: round3(counts.commits ? p.support / counts.commits : 0),
          last_together: iso(p.last),
          static_edge: !!(deps.dependents.get(file)?.has(f) || deps.dependencies.get(file)?.has(f)),
          // Not a node of the graph: deleted since (`gone`), or a file the graph does not hold (a manifest, a script, an image).
          ...(engine.graph.get(fileIdOf(f)) ? {} : onDisk(engine, f) ? { in_graph: false } : { gone: true }),
        }));
    }
    return {
      ...base,
      ...(node.kind !== 'file' ? { scope: `history of the file holding ${node.id}` } : {}),
      ...(fh.formerNames.length ? { former_names: fh.formerNames } : {}),
      total_commits: fh.commits.length,
      commits_in_window: inWindow.length,
      first_commit: iso(index.commits[fh.commits[0]].time),
      last_commit: iso(index.commits[fh.commits.at(-1)!].time),
      authors: [...authors].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([name, commits]) => ({ name, commits })),
      ...(args.include_churn ? { churn: { lines: churn, per_commit: round3(inWindow.length ? churn / inWindow.length : 0) } } : {}),
      velocity: { newer_half: newer, older_half: older, ratio: older ? round3(newer / older) : newer ? null : 0, trend: newer > older ? 'accelerating' : newer < older ? 'slowing' : 'steady' },
      stability: round3(1 - activeWeeks / weeks),
      commits,
      ...(coChanges ? { co_changes: coChanges } : {}),
    };
  },
});
