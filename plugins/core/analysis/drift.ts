/** drift: how the graph's structure and learned weights changed since a baseline (this session's start, or a checkpoint). */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { RELATIONS, symbolNodeId, type Relation } from '../../graph/api.ts';
import { diffDigests, digestGraphPaced, fileDigest, slicePace, type FileDigest } from '../../graph/api.ts';
import { checkpointFiles, storedExtractions, storedFiles } from '../session/stored-files.ts';
import { sessionBaseline } from './baseline.ts';
import { openGraph, round3 } from './graph-call.ts';
import type { GraphService } from '../../graph/api.ts';

const LISTED = 50;
const SYMBOLS_LISTED = 10;

/** A changed file whose line count and symbols are the same, only its edges differ (edges_only). */
function edgesOnly(f: { loc: [number, number]; symbolsAdded: string[]; symbolsRemoved: string[]; symbolsMoved: number; edges: [number, number] | null }): boolean {
  return f.edges !== null && f.loc[0] === f.loc[1] && !f.symbolsAdded.length && !f.symbolsRemoved.length && f.symbolsMoved === 0;
}

/** `{ omitted: { list: n } }` for each list longer than `shown` (n entries left out), else nothing. */
function omitted(lists: Record<string, readonly unknown[]>, shown: number): { omitted?: Record<string, number> } {
  const cut = Object.entries(lists).filter(([, l]) => l.length > shown);
  return cut.length ? { omitted: Object.fromEntries(cut.map(([k, l]) => [k, l.length - shown])) } : {};
}

export const driftVerb = defineVerb({
  name: 'drift',
  description: 'How structure and learned weights changed since a baseline: this session\'s start or a named checkpoint.',
  input: Type.Object({
    agent_id: AgentId,
    since: Type.String({ minLength: 1, default: 'last_session', description: 'last_session or a checkpoint name' }),
    include_weight_drift: Type.Boolean({ default: true }),
  }),
  output: Type.Object({
    summary: Type.String(),
    elapsed_ms: Type.Number(),
    weights: Type.Optional(Type.Object({})),
    since: Type.String(),
    baseline: Type.Object({ kind: Type.String(), generation: Type.Number(), at: Type.String() }),
    current: Type.Object({ generation: Type.Number(), nodes: Type.Number(), edges: Type.Number() }),
    structure: Type.Object({ relations: Type.Optional(Type.Object({})), nodes: Type.Optional(Type.Array(Type.Unknown())), edges: Type.Optional(Type.Array(Type.Unknown())), files_added: Type.Array(Type.Unknown()), files_removed: Type.Array(Type.Unknown()), files_changed: Type.Array(Type.Unknown()), unchanged_files: Type.Number(), omitted: Type.Optional(Type.Object({})) }),
  }),
  effect: 'read',
  stages: ['orient', 'review'],
  guide: [
    '`last_session`: the graph as this server found it, i.e. what the previous session persisted (captured when the first analysis or session verb ran, before any refresh). A checkpoint name (see `persist` status) compares with the files and learned weights that checkpoint saved, symbol by symbol for the files whose content changed.',
    'Structure: files added, removed and changed (line count, symbols added/removed, symbols moved, edge count where known; `edges_only` when only that differs), and edge totals per relation. Lists show 50 files (10 symbols per file); `omitted` counts what was left out. Weights: `learn` feedback recorded since the baseline (node biases and edge factors that changed, before = the baseline\'s recorded value) and per-relation weight totals (co-change weights move with git history).',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    const pace = slicePace(8);
    const current = await digestGraphPaced(g, engine.generation, pace);
    let baseline: { kind: string; generation: number; at: number; files: Map<string, FileDigest>; byRelation?: typeof current.byRelation; nodes?: number; edges?: number };
    let learnedBefore: ReturnType<GraphService['learned']['snapshot']> | null;
    if (args.since === 'last_session') {
      const b = await sessionBaseline(graph, pace);
      if (!b) throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, 'no session baseline was captured', { hint: 'call drift again' });
      baseline = { kind: 'session_start', generation: b.digest.generation, at: b.capturedAt, files: b.digest.files, byRelation: b.digest.byRelation, nodes: b.digest.nodes, edges: b.digest.edges };
      learnedBefore = b.learned;
    } else {
      const cp = checkpointFiles(engine, args.since);
      if (!cp) {
        const known = engine.status().checkpoints.map((c) => c.name);
        throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no checkpoint named "${args.since}"`, {
          hint: known.length ? `use last_session or one of: ${known.join(', ')}` : 'use last_session, or make one first with persist({"action":"checkpoint","path":"<name>"})',
        });
      }
      // Unchanged content shares the current digest; changed files are rebuilt from the checkpoint's extractions.
      const now = storedFiles(engine).files;
      const changed = [...cp.files.values()].filter((f) => now.get(f.path)?.hash !== f.hash);
      const extractions = storedExtractions(engine, changed);
      const files = new Map<string, FileDigest>();
      for (const f of cp.files.values()) {
        const same = now.get(f.path)?.hash === f.hash ? current.files.get(f.path) : undefined;
        if (same) {
          files.set(f.path, same);
          continue;
        }
        const ex = extractions.get(f.extractionKey);
        const syms: [string, number, number][] = (ex?.symbols ?? []).map((s) => [symbolNodeId(s.kind, f.path, s.qualifiedName), s.startLine, s.endLine]);
        files.set(f.path, fileDigest(Math.max(1, f.loc), syms, null, null));
      }
      baseline = { kind: 'checkpoint', generation: cp.generation, at: cp.createdAt, files };
      learnedBefore = graph.learned.checkpoint(args.since);
    }
    const structure = diffDigests(baseline.files, current.files);
    let relations: Partial<Record<Relation, { count: [number, number]; weight: [number, number] }>> | undefined;
    if (baseline.byRelation) {
      relations = {};
      for (const r of RELATIONS) {
        const count: [number, number] = [baseline.byRelation[r].count, current.byRelation[r].count];
        const weight: [number, number] = [round3(baseline.byRelation[r].weight), round3(current.byRelation[r].weight)];
        if (count[0] !== count[1] || weight[0] !== weight[1]) relations[r] = { count, weight };
      }
    }
    const relationField = <K extends 'count' | 'weight'>(k: K) => (relations ? Object.fromEntries(Object.entries(relations).map(([r, v]) => [r, v[k]])) : undefined);
    let weights: Record<string, unknown> | undefined;
    if (args.include_weight_drift && !learnedBefore) {
      // A checkpoint made before checkpoints recorded learned weights: no "before" to diff against.
      weights = {
        learned_unknown: `checkpoint "${args.since}" recorded no learned weights (made by an older version); take a new checkpoint to diff weights against it`,
        feedback_events: graph.learned.events(1000).filter((e) => e.at > baseline.at).length,
      };
    } else if (args.include_weight_drift && learnedBefore) {
      const before = learnedBefore;
      // A node drifted when feedback touched it after the baseline (its update time is not the recorded one).
      const nodes = graph.learned
        .nodes()
        .filter(([id, e]) => before.nodeUpdatedAt.get(id) !== e.updatedAt)
        .map(([id, e]) => ({ id, bias: [round3(before.nodes.get(id) ?? 0), round3(e.bias)], feedback: { correct: e.correct, wrong: e.wrong, partial: e.partial } }))
        .sort((a, b) => Math.abs(b.bias[1] - b.bias[0]) - Math.abs(a.bias[1] - a.bias[0]) || (a.id < b.id ? -1 : 1));
      const edges = graph.learned
        .edgeEntries()
        .map(([s, t, f]) => ({ source: s, target: t, factor: [round3(before.edges.get(`${s}\u0001${t}`) ?? 1), round3(f)] }))
        .filter((e) => e.factor[0] !== e.factor[1])
        .sort((a, b) => Math.abs(b.factor[1] - b.factor[0]) - Math.abs(a.factor[1] - a.factor[0]));
      weights = {
        learned_nodes: nodes.slice(0, LISTED),
        learned_edges: edges.slice(0, LISTED),
        ...omitted({ learned_nodes: nodes, learned_edges: edges }, LISTED),
        feedback_events: graph.learned.events(1000).filter((e) => e.at > baseline.at).length,
        ...(relations ? { relation_weights: relationField('weight') } : {}),
      };
    }
    const total = structure.filesAdded.length + structure.filesRemoved.length + structure.filesChanged.length;
    const relinked = structure.filesChanged.filter(edgesOnly).length;
    return {
      since: args.since,
      baseline: { kind: baseline.kind, generation: baseline.generation, at: new Date(baseline.at).toISOString() },
      current: { generation: engine.generation, nodes: current.nodes, edges: current.edges },
      structure: {
        files_added: structure.filesAdded.slice(0, LISTED),
        files_removed: structure.filesRemoved.slice(0, LISTED),
        files_changed: structure.filesChanged.slice(0, LISTED).map((f) => ({
          path: f.path,
          loc: f.loc,
          symbols_added: f.symbolsAdded.slice(0, SYMBOLS_LISTED),
          symbols_removed: f.symbolsRemoved.slice(0, SYMBOLS_LISTED),
          symbols_moved: f.symbolsMoved,
          ...(f.edges ? { edges: f.edges } : {}),
          ...(edgesOnly(f) ? { edges_only: true } : {}),
          ...omitted({ symbols_added: f.symbolsAdded, symbols_removed: f.symbolsRemoved }, SYMBOLS_LISTED),
        })),
        ...omitted({ files_added: structure.filesAdded, files_removed: structure.filesRemoved, files_changed: structure.filesChanged }, LISTED),
        unchanged_files: structure.unchanged,
        ...(baseline.nodes !== undefined ? { nodes: [baseline.nodes, current.nodes], edges: [baseline.edges, current.edges] } : {}),
        ...(relations ? { relations: relationField('count') } : {}),
      },
      ...(weights ? { weights } : {}),
      summary: total === 0 ? 'no structural drift' : `${structure.filesAdded.length} added, ${structure.filesRemoved.length} removed, ${structure.filesChanged.length} changed file(s)${relinked ? ` (${relinked} only in their edges: same lines and symbols, so a file they link to changed or an edit kept both)` : ''}`,
      elapsed_ms: round3(performance.now() - t0),
    };
  },
});
