/**
 * What else likely changes with a file: co-change from git history, static dependents from the
 * graph, and learned feedback, combined with fixed weights every answer shows. The same scorer
 * serves `predict` and the held-out replay of `calibrate_predict`, so the measured precision is the
 * precision of what `predict` answers.
 */
import type { CodeGraph, GraphService } from '../graph/api.ts';
import { DEPENDENCY_RELATIONS, RELATION_CODE, fileIndexOf, runStepsPaced, warmFileIndex } from '../graph/api.ts';
import type { HistoryIndex } from './history-index.ts';

/** Weights of the three signals (they sum to 1). */
export const PREDICT_WEIGHTS = { co_change: 0.6, static: 0.3, learned: 0.1 } as const;
/** Static strength of a file that depends on the changed one, and of one it depends on. */
const DEPENDENT = 1;
const DEPENDENCY = 0.4;

/** One predicted file with its score's components. */
export interface Prediction {
  file: string;
  score: number;
  co_change: number;
  static: number;
  learned: number;
  /** Commits shared with the changed file, and how many commits the changed file had (in range). */
  support: number;
  confidence: number;
}

/** Per-file static neighbours: files depending on a file (dependents) and files it depends on. */
export interface FileDeps {
  dependents: Map<string, Set<string>>;
  dependencies: Map<string, Set<string>>;
}

const depCache = new WeakMap<CodeGraph, { version: number; deps: FileDeps }>();

/** File-level dependency adjacency of the graph (imports, calls, references, inheritance), cached per version. */
export function fileDeps(g: CodeGraph): FileDeps {
  const hit = depCache.get(g);
  if (hit && hit.version === g.version) return hit.deps;
  const version = g.version;
  const steps = fileDepsSteps(g, fileIndexOf(g));
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) {
      depCache.set(g, { version, deps: r.value });
      return r.value;
    }
  }
}

/**
 * Makes `fileDeps` ahead, a step of edges between two `pace()`s (one pass over a stdlib graph's
 * edges held the loop ~30 ms); gives up when the graph changes meanwhile.
 */
export async function warmFileDeps(g: CodeGraph, pace: () => Promise<void>): Promise<void> {
  if (g.needsFinalize) g.finalize();
  const hit = depCache.get(g);
  if (hit && hit.version === g.version) return;
  const version = g.version;
  await warmFileIndex(g, pace);
  if (g.version !== version) return;
  const deps = await runStepsPaced(fileDepsSteps(g, fileIndexOf(g)), pace, () => g.version !== version);
  if (deps && g.version === version) depCache.set(g, { version, deps });
}

/** Edges looked at between two steps. */
const EDGES_PER_STEP = 16_384;

function* fileDepsSteps(g: CodeGraph, fileOf: Int32Array): Generator<void, FileDeps> {
  const dep = new Uint8Array(64);
  for (const r of DEPENDENCY_RELATIONS) dep[RELATION_CODE[r]] = 1;
  const deps: FileDeps = { dependents: new Map(), dependencies: new Map() };
  const add = (m: Map<string, Set<string>>, k: string, v: string) => {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(v);
  };
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & (EDGES_PER_STEP - 1)) === EDGES_PER_STEP - 1) yield;
    if (!g.edgeAlive[e] || !dep[g.edgeRelation[e]]) continue;
    const fs = fileOf[g.edgeSource[e]];
    const ft = fileOf[g.edgeTarget[e]];
    if (fs < 0 || ft < 0 || fs === ft) continue;
    const a = g.node(fs)!.path;
    const b = g.node(ft)!.path;
    add(deps.dependents, b, a);
    add(deps.dependencies, a, b);
  }
  return deps;
}

/** Learned feedback between files: team-level edge multipliers above 1, as a [0,1] strength per file pair. */
export function learnedPairs(graph: GraphService): Map<string, Map<string, number>> {
  const g = graph.engine.graph;
  const out = new Map<string, Map<string, number>>();
  for (const [s, t, factor] of graph.learned.edgeEntries()) {
    if (factor <= 1) continue;
    const a = g.get(s)?.path;
    const b = g.get(t)?.path;
    if (!a || !b || a === b) continue;
    const v = Math.min(1, factor - 1);
    for (const [x, y] of [[a, b], [b, a]]) {
      let m = out.get(x);
      if (!m) out.set(x, (m = new Map()));
      m.set(y, Math.max(m.get(y) ?? 0, v));
    }
  }
  return out;
}

/** Scoring inputs: the history (and the commit range it may use), the graph's static and learned signals. */
export interface PredictContext {
  index: HistoryIndex;
  /** Only commits before this index count (the replay's training cut); default all. */
  before?: number;
  halfLifeSeconds?: number;
  anchor?: number;
  deps: FileDeps | null;
  learned: Map<string, Map<string, number>> | null;
}

/** Ranked files likely to change with `file`, best first, at most `topK`. */
export function predictFiles(file: string, ctx: PredictContext, topK: number): Prediction[] {
  const counts = ctx.index.partners(file, { to: ctx.before, halfLifeSeconds: ctx.halfLifeSeconds, anchor: ctx.anchor });
  const rows = new Map<string, Prediction>();
  const row = (f: string): Prediction => {
    let r = rows.get(f);
    if (!r) rows.set(f, (r = { file: f, score: 0, co_change: 0, static: 0, learned: 0, support: 0, confidence: 0 }));
    return r;
  };
  for (const [f, p] of counts.partners) {
    const r = row(f);
    // +1 smoothing: one shared commit out of one is weaker evidence than ten out of ten.
    r.co_change = p.weight / (counts.base + 1);
    r.support = p.support;
    r.confidence = counts.commits ? p.support / counts.commits : 0;
  }
  for (const f of ctx.deps?.dependents.get(file) ?? []) row(f).static = DEPENDENT;
  for (const f of ctx.deps?.dependencies.get(file) ?? []) {
    const r = row(f);
    r.static = Math.max(r.static, DEPENDENCY);
  }
  for (const [f, v] of ctx.learned?.get(file) ?? []) row(f).learned = v;
  rows.delete(file);
  const out = [...rows.values()];
  for (const r of out) r.score = PREDICT_WEIGHTS.co_change * r.co_change + PREDICT_WEIGHTS.static * r.static + PREDICT_WEIGHTS.learned * r.learned;
  out.sort((a, b) => b.score - a.score || b.support - a.support || (a.file < b.file ? -1 : 1));
  return out.slice(0, topK);
}

/** The co-change-frequency-only baseline: partners ranked by raw shared-commit count. */
export function frequencyBaseline(file: string, index: HistoryIndex, before: number | undefined, topK: number): string[] {
  const counts = index.partners(file, { to: before, raw: true });
  return [...counts.partners]
    .sort((a, b) => b[1].support - a[1].support || (a[0] < b[0] ? -1 : 1))
    .slice(0, topK)
    .map(([f]) => f);
}
