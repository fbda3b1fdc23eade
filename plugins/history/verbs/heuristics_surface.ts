/** heuristics_surface: why a node or file is considered risky or important — every component with its value and source. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { DEPENDENCY_RELATIONS, RELATION_CODE, fileIndexOf, slicePace, type CodeGraph, type GraphNode } from '../../graph/api.ts';
import { decayed, loadOverlay } from '../../runtime/api.ts';
import { iso, round3, workspaceArg } from '../call.ts';
import { noHistory } from '../git.ts';
import { defectAnchor, defectRecord, eventsByFile, learnEvents } from '../defects.ts';
import type { HistoryIndex } from '../history-index.ts';
import { fileDeps, warmFileDeps } from '../predictor.ts';
import { historyOf } from '../service.ts';
import { BUCKETS, bucketRow, lifeWindow, trendOf } from '../trend.ts';

/** Weights of the combined risk (components missing for want of a source are left out and the rest renormalised). */
const WEIGHTS = { blast_radius: 0.3, centrality: 0.15, churn: 0.15, trust: 0.2, tremor: 0.1, test_coverage: 0.1 } as const;
const MAX_NODE_BLAST = 20_000;
const DAY = 86_400;

interface Component {
  /** The raw measure, in the component's own unit. */
  value: unknown;
  /** In [0, 1], higher = riskier; null when the source is missing. */
  score: number | null;
  source: string;
  detail?: unknown;
}

/** The heuristics_surface verb, with the fix pattern the plugin is configured with. */
export function heuristicsSurfaceVerb(fixPattern: string) {
  const fix = new RegExp(fixPattern, 'i');
  return defineVerb({
    name: 'heuristics_surface',
    description: 'Why a node or file is considered risky or important: blast radius, centrality, churn, co-change, trust, tremor, test coverage, runtime heat and feedback, each with value and source.',
    input: Type.Object({
      agent_id: AgentId,
      node_id: Type.Optional(Type.String({ maxLength: 1024, description: 'A node id, name or path:line' })),
      file_path: Type.Optional(Type.String({ maxLength: 1024, description: 'A workspace file (when node_id is absent)' })),
    }),
    output: Type.Object({
      node: Type.Object({ id: Type.String(), kind: Type.String(), file: Type.String(), lines: Type.Array(Type.Number()) }),
      risk: Type.Number(),
      weights: Type.Record(Type.String(), Type.Number()),
      contributions: Type.Record(Type.String(), Type.Number()),
      reasons: Type.Array(Type.String()),
      // Each component: { value, score (null when not scored), source, detail? }.
      components: Type.Record(Type.String(), Type.Unknown()),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review', 'plan'],
    next: 'impact',
    guide: [
      `risk = Σ weight × score over the components with a source (weights ${Object.entries(WEIGHTS)
        .map(([k, w]) => `${k} ${w}`)
        .join(', ')}, renormalised over those present); each component shows its raw value, its score in [0,1] and where it came from:`,
      '- blast_radius (graph): nodes that transitively depend on the node (reverse calls/imports/references/inheritance), or for a file the files that do; score = log-scaled share of the graph. centrality (graph): PageRank percentile among all nodes (a file: its best node).',
      '- churn (git): non-sweeping commits touching the file, lines changed, commits in the last 90 days; score log-scaled against the most-changed file. co_change (git): the strongest partners with support and confidence (not scored).',
      '- trust (git fix commits + learn outcomes, as `trust`): score = 1 − trust. tremor (git + learn events, 90 days, as `tremor`, a file created since measured from its creation): score = max(0, trend) × confidence, capped at 1, and 0 unless the last third holds more commits than the first.',
      '- test_coverage (graph `tests` edges into the node or the file\'s symbols): score 1 when nothing tests it, else 0. runtime (the runtime overlay, when spans were stored) and feedback (learn biases): shown, not scored.',
    ].join('\n'),
    handler: async (args, call) => {
      const history = historyOf(call);
      const graph = history.graph;
      const engine = await graph.requireGraph();
      const g = engine.graph;
      if (args.node_id) args.node_id = workspaceArg(history.graph, 'heuristics_surface', args.node_id);
      if (args.file_path) args.file_path = workspaceArg(history.graph, 'heuristics_surface', args.file_path);
      const text = args.node_id ?? args.file_path;
      if (!text) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'give node_id or file_path', { hint: 'e.g. {"file_path":"src/a.ts"} or {"node_id":"function:src/a.ts#f"}' });
      const node = args.node_id ? graph.node(args.node_id) : g.get(`file:${engine.resolvePath(args.file_path!).relative}`) ?? graph.node(args.file_path!);
      if (node.kind === 'module') throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${node.id} is a directory`, { hint: 'name a file or a symbol in it' });
      const file = node.path;
      const isFile = node.kind === 'file';
      const fileCount = Math.max(2, engine.filePaths().length);

      // The whole-graph facts read below, made ahead in 8 ms slices.
      const pace = slicePace(8);
      await warmFileDeps(g, pace);
      const components: Record<string, Component> = {};
      // Blast radius from real reachability.
      if (isFile) {
        const deps = fileDeps(g);
        const seen = new Set<string>([file]);
        const stack = [file];
        while (stack.length) for (const d of deps.dependents.get(stack.pop()!) ?? []) if (!seen.has(d)) (seen.add(d), stack.push(d));
        const n = seen.size - 1;
        components.blast_radius = { value: { transitive_dependent_files: n, direct_dependent_files: deps.dependents.get(file)?.size ?? 0 }, score: round3(Math.log1p(n) / Math.log1p(fileCount - 1)), source: 'graph: reverse dependency edges between files' };
      } else {
        const { nodes, files, truncated } = reverseReach(g, g.indexOf(node.id));
        components.blast_radius = {
          value: { transitive_dependents: nodes, files: [...files].filter((f) => f !== file).length, ...(truncated ? { truncated: true } : {}) },
          score: round3(Math.min(1, Math.log1p(nodes) / Math.log1p(Math.max(2, g.nodeCount - 1)))),
          source: 'graph: reverse calls/imports/references/inheritance reachability',
        };
      }
      // Centrality.
      const pr = engine.pagerank().scores;
      const fileOf = fileIndexOf(g);
      let own = 0;
      if (isFile) {
        for (let i = 0; i < g.nodeCapacity; i++) {
          if ((i & 4095) === 4095) await pace();
          const n = g.node(i);
          if (n && n.kind !== 'module' && fileOf[i] >= 0 && n.path === file && (pr[i] ?? 0) > own) own = pr[i] ?? 0;
        }
      } else own = pr[g.indexOf(node.id)] ?? 0;
      let below = 0;
      let total = 0;
      for (let i = 0; i < g.nodeCapacity; i++) {
        if ((i & 4095) === 4095) await pace();
        const n = g.node(i);
        if (!n || n.kind === 'module') continue;
        total++;
        if ((pr[i] ?? 0) < own) below++;
      }
      components.centrality = { value: { pagerank: Number(own.toPrecision(3)), percentile: round3(total ? below / total : 0) }, score: round3(total ? below / total : 0), source: 'graph: PageRank' };

      // Tests.
      const testers = new Set<string>();
      const testRel = RELATION_CODE.tests;
      const targets = isFile ? graph.fileSymbols(file).map((s) => g.indexOf(s.id)).concat(g.indexOf(node.id)) : [g.indexOf(node.id)];
      for (const t of targets) if (t >= 0) g.forEachIn(t, (src, _w, rel) => rel === testRel && testers.add(g.node(src)!.path));
      components.test_coverage = { value: { tested_by: [...testers].sort().slice(0, 10), count: testers.size }, score: testers.size ? 0 : 1, source: 'graph: tests edges (test files calling it)' };

      // Git: churn, co-change, trust, tremor.
      let index: HistoryIndex | null = null;
      let noGit: string | null = null;
      try {
        const current = await history.current();
        index = current.index;
        if (index.commits.length === 0) (index = null), (noGit = (await noHistory(engine.root, current.mined.head)).message);
      } catch (error) {
        if ((error as M1ndError).code !== ErrorCodes.HISTORY_NO_GIT) throw error;
        noGit = (error as M1ndError).message;
      }
      const learn = learnEvents(graph, args.agent_id);
      const learnHere = eventsByFile(learn).get(file) ?? [];
      if (index) {
        const fh = index.files.get(file);
        const commits = fh ? fh.commits.filter((ci) => !index!.commits[ci].sweep) : [];
        // Lines and authors of those same commits (a sweep's reformatting is no churn of the file's own).
        let lines = 0;
        fh?.commits.forEach((ci, k) => void (!index!.commits[ci].sweep && (lines += fh.lines[k])));
        const authors = new Set(commits.map((ci) => index!.commits[ci].author));
        let maxCommits = 1;
        for (const other of index.files.values()) {
          let k = 0;
          for (const ci of other.commits) if (!index.commits[ci].sweep) k++;
          if (k > maxCommits) maxCommits = k;
        }
        const recent = commits.filter((ci) => index!.commits[ci].time >= index!.newest - 90 * DAY).length;
        components.churn = {
          value: { commits: commits.length, lines_changed: lines, commits_last_90d: recent, ...(commits.length ? { last_change: iso(index.commits[commits.at(-1)!].time) } : {}), authors: authors.size },
          score: round3(Math.log1p(commits.length) / Math.log1p(maxCommits)),
          source: 'git: non-merge, non-sweeping commits (renames followed)',
        };
        const pc = index.partners(file);
        const partners = [...pc.partners]
          .map(([p, v]) => ({ file: p, support: v.support, confidence: round3(pc.base ? v.support / pc.base : 0) }))
          .filter((p) => p.support >= 2)
          .sort((a, b) => b.confidence - a.confidence || b.support - a.support || (a.file < b.file ? -1 : 1))
          .slice(0, 5);
        components.co_change = { value: { partners }, score: null, source: 'git: files committed together (support ≥ 2; confidence = support / commits of this file)' };
        const anchor = defectAnchor(index, learn);
        const rec = defectRecord(index, file, fix, learnHere, anchor, 30 * DAY);
        const trust = Math.max(0.05, 1 - rec.density);
        components.trust = {
          value: { trust: round3(trust), fix_commits: rec.fixes.length, learn: { correct: rec.learn.correct, wrong: rec.learn.wrong, partial: rec.learn.partial } },
          score: round3(1 - trust),
          source: 'git fix commits + learn outcomes (as trust)',
          detail: rec.fixes.slice(-3).reverse().map((ci) => `${index!.commits[ci].hash.slice(0, 10)} ${index!.commits[ci].subject.slice(0, 80)}`),
        };
        const start = anchor - 90 * DAY;
        const birth = fh?.commits.length ? index.commits[fh.commits[0]].time : undefined;
        const life = lifeWindow(birth, start, anchor);
        const row = life ? bucketRow([...commits.map((ci) => index!.commits[ci].time), ...learnHere.map((e) => e.time)], life) : null;
        const t = row ? trendOf(row) : null;
        const young = !life ? { created: iso(birth!), note: 'created less than 45 days ago: too young for a trend' } : life.young ? { created: iso(life.start), bucket_days: round3(life.span / BUCKETS / DAY) } : {};
        components.tremor = {
          value: t ? { trend: round3(t.trend), confidence: round3(t.confidence), per_bucket: row, ...young } : { trend: null, per_bucket: row, ...young },
          score: t?.rising ? round3(Math.min(1, Math.max(0, t.trend) * t.confidence)) : 0,
          source: 'git commit times + learn events, last 90 days (as tremor)',
        };
      } else {
        for (const k of ['churn', 'co_change', 'trust', 'tremor']) components[k] = { value: null, score: null, source: `git: unavailable (${noGit})` };
      }

      // Runtime heat and feedback (shown, not scored).
      const overlay = loadOverlay({ graph, session: call.session }, 'workspace', 24);
      const heatIds = isFile ? [node.id, ...graph.fileSymbols(file).map((s) => s.id)] : [node.id];
      let heat = 0;
      let spans = 0;
      let errors = 0;
      const now = Date.now();
      for (const id of heatIds) {
        const h = overlay.nodes[id];
        if (!h) continue;
        heat += decayed(h, now, overlay.half_life_hours);
        spans += h.spans;
        errors += h.errors;
      }
      components.runtime = spans ? { value: { heat: round3(heat), spans, errors }, score: null, source: 'runtime overlay (workspace scope)' } : { value: null, score: null, source: 'runtime overlay: no spans stored for it' };
      const fb = graph.learned.node(node.id);
      components.feedback = fb
        ? { value: { bias: round3(fb.bias), correct: fb.correct, wrong: fb.wrong, partial: fb.partial }, score: null, source: 'learn (team layer)' }
        : { value: null, score: null, source: 'learn: no team feedback on this node' };

      let sum = 0;
      let weight = 0;
      const contributions: Record<string, number> = {};
      for (const [k, w] of Object.entries(WEIGHTS)) {
        const s = components[k]?.score;
        if (s === null || s === undefined) continue;
        sum += w * s;
        weight += w;
        contributions[k] = w * s;
      }
      const risk = weight ? sum / weight : 0;
      const reasons = Object.entries(contributions)
        .filter(([, c]) => c / (weight || 1) >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([k]) => reason(k, components[k]));
      return {
        node: { id: node.id, kind: node.kind, file, lines: [node.startLine, node.endLine] },
        risk: round3(risk),
        weights: WEIGHTS,
        contributions: Object.fromEntries(Object.entries(contributions).map(([k, c]) => [k, round3(c / (weight || 1))])),
        reasons,
        components,
      };
    },
  });
}

/** Nodes reaching `start` over reverse dependency edges (bounded), and the files they are in. */
function reverseReach(g: CodeGraph, start: number): { nodes: number; files: Set<string>; truncated: boolean } {
  const dep = new Uint8Array(64);
  for (const r of DEPENDENCY_RELATIONS) dep[RELATION_CODE[r]] = 1;
  const seen = new Set<number>([start]);
  const files = new Set<string>();
  const stack = [start];
  let truncated = false;
  while (stack.length) {
    const u = stack.pop()!;
    g.forEachIn(u, (src, _w, rel) => {
      if (!dep[rel] || seen.has(src)) return;
      if (seen.size >= MAX_NODE_BLAST) return void (truncated = true);
      seen.add(src);
      const n: GraphNode | null = g.node(src);
      if (n && n.kind !== 'module') files.add(n.path);
      stack.push(src);
    });
  }
  return { nodes: seen.size - 1, files, truncated };
}

function reason(key: string, c: Component): string {
  const v = c.value as Record<string, any>;
  switch (key) {
    case 'blast_radius':
      return 'transitive_dependent_files' in v ? `${v.transitive_dependent_files} files depend on it, directly or transitively` : `${v.transitive_dependents} nodes in ${v.files} other files depend on it`;
    case 'centrality':
      return `more central than ${Math.round(v.percentile * 100)}% of nodes (PageRank)`;
    case 'churn':
      return `${v.commits} commits (${v.commits_last_90d} in the last 90 days)`;
    case 'trust':
      return `trust ${v.trust}: ${v.fix_commits} fix commits, ${v.learn.wrong} wrong learn outcomes`;
    case 'tremor':
      return `change rate trending ${v.trend > 0 ? 'up' : 'flat or down'} (trend ${v.trend}, confidence ${v.confidence})`;
    case 'test_coverage':
      return 'no test calls it';
    default:
      return key;
  }
}
