/**
 * Expected-value SIR over the file graph, for `epidemic`. Files are the units (git history, trust
 * and fix commits are per file); two files are linked when nodes of one have edges to nodes of the
 * other, with the strongest edge's transmission per relation: τ = coupling(relation) × edge weight.
 * Each step an infected file passes p = β × τ × P(infected) to each linked file, combined per target
 * as 1 − ∏(1 − p); a susceptible file's infection grows by P(susceptible) × that; infected mass
 * recovers at rate γ. Deterministic (probabilities, no sampling).
 */
import type { CodeGraph } from '../graph/api.ts';
import { RELATIONS, fileIndexOf, slicePace, warmFileIndex } from '../graph/api.ts';

/** How readily a bug travels along one relation (documented in the verb's guide). */
export const COUPLING: Readonly<Record<string, number>> = {
  calls: 0.8,
  inherits: 0.7,
  implements: 0.6,
  imports: 0.5,
  dispatches: 0.5,
  co_changes: 0.5,
  references: 0.4,
  contains: 0.3,
  tests: 0.2,
  documents: 0.05,
};

/** One file-to-file link: the strongest transmission and its relation. */
export interface Link {
  file: number;
  tau: number;
  relation: string;
}

/** The file graph: file slots, and per file its dependents and dependencies. */
export interface FileGraph {
  version: number;
  paths: string[];
  slot: Map<string, number>;
  /** Files whose nodes have edges into this file (they use it). */
  dependents: Link[][];
  /** Files this file's nodes have edges into. */
  dependencies: Link[][];
}

const cache = new WeakMap<CodeGraph, FileGraph>();
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/** The file graph of `g` (cached per graph version; built with yields). */
export async function fileGraph(g: CodeGraph): Promise<FileGraph> {
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit;
  const version = g.version;
  // Whole-graph passes between 8 ms paces (the node → file index included).
  const pace = slicePace(8);
  await warmFileIndex(g, pace);
  const fileOf = fileIndexOf(g);
  const paths: string[] = [];
  const slot = new Map<string, number>();
  const slotOfNode = new Int32Array(g.nodeCapacity).fill(-1);
  for (let i = 0; i < g.nodeCapacity; i++) {
    if ((i & 4095) === 4095) await pace();
    const n = g.node(i);
    if (!n || n.kind === 'module' || fileOf[i] < 0) continue;
    const file = g.node(fileOf[i])!.path;
    let s = slot.get(file);
    if (s === undefined) {
      s = paths.length;
      slot.set(file, s);
      paths.push(file);
    }
    slotOfNode[i] = s;
  }
  const coupling = RELATIONS.map((r) => COUPLING[r] ?? 0);
  const best = new Map<number, { tau: number; rel: number }>();
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 4095) === 4095) await pace();
    if (!g.edgeAlive[e]) continue;
    const a = slotOfNode[g.edgeSource[e]];
    const b = slotOfNode[g.edgeTarget[e]];
    if (a < 0 || b < 0 || a === b) continue;
    const rel = g.edgeRelation[e];
    const tau = coupling[rel] * Math.min(1, g.edgeWeight[e]);
    if (tau <= 0) continue;
    const key = a * paths.length + b;
    const cur = best.get(key);
    if (!cur || tau > cur.tau) best.set(key, { tau, rel });
  }
  const dependents: Link[][] = paths.map(() => []);
  const dependencies: Link[][] = paths.map(() => []);
  for (const [key, { tau, rel }] of best) {
    const a = Math.floor(key / paths.length);
    const b = key % paths.length;
    dependencies[a].push({ file: b, tau, relation: RELATIONS[rel] });
    dependents[b].push({ file: a, tau, relation: RELATIONS[rel] });
  }
  const fg = { version, paths, slot, dependents, dependencies };
  cache.set(g, fg);
  return fg;
}

/** Settings of one run. */
export interface SirOptions {
  /** β: scales every transmission. */
  beta: number;
  /** γ: share of infected mass that recovers each step. */
  gamma: number;
  iterations: number;
  /** forward: to dependents (users of a buggy file); backward: to its dependencies; both. */
  direction: 'forward' | 'backward' | 'both';
}

/** The outcome of one run. */
export interface SirResult {
  /** P(ever infected) per file slot. */
  ever: Float64Array;
  /** The file whose transmission most raised each file's infection (-1: none), and over which relation. */
  parent: Int32Array;
  parentRelation: string[];
  iterations: number;
  stopped: 'iterations' | 'extinct' | 'converged';
  /** New infections (expected files) in the first step, per unit of seed infection. */
  firstGeneration: number;
}

/** Runs the SIR from `seeds` (file slot → initial infection probability); `immune` files never catch it. */
export async function runSir(fg: FileGraph, seeds: Map<number, number>, immune: Set<number>, o: SirOptions): Promise<SirResult> {
  const n = fg.paths.length;
  const inf = new Float64Array(n);
  const ever = new Float64Array(n);
  const parent = new Int32Array(n).fill(-1);
  const parentRelation: string[] = new Array(n).fill('');
  const bestDelta = new Float64Array(n);
  const escape = new Float64Array(n).fill(1);
  const strongest = new Float64Array(n);
  const strongestFrom = new Int32Array(n).fill(-1);
  const strongestRel: string[] = new Array(n).fill('');
  let seedMass = 0;
  for (const [s, p] of seeds) {
    inf[s] = p;
    ever[s] = p;
    seedMass += p;
  }
  let active = [...seeds.keys()];
  let stopped: SirResult['stopped'] = 'iterations';
  let firstGeneration = 0;
  let step = 0;
  const pace = slicePace(8); // a step is at most one pass over the file links: paced between steps
  for (; step < o.iterations; step++) {
    const touched: number[] = [];
    // Relation tags: "calls" = u calls v (spread to a dependency), "calls<" = v calls u (to a dependent).
    const spread = (u: number, links: Link[], toDependents: boolean) => {
      for (const l of links) {
        const v = l.file;
        if (immune.has(v)) continue;
        const p = o.beta * l.tau * inf[u];
        if (p <= 0) continue;
        if (escape[v] === 1 && strongest[v] === 0) touched.push(v);
        escape[v] *= 1 - p;
        if (p > strongest[v]) {
          strongest[v] = p;
          strongestFrom[v] = u;
          strongestRel[v] = toDependents ? `${l.relation}<` : l.relation;
        }
      }
    };
    for (const u of active) {
      if (o.direction !== 'backward') spread(u, fg.dependents[u], true);
      if (o.direction !== 'forward') spread(u, fg.dependencies[u], false);
    }
    let newMass = 0;
    const deltas: [number, number][] = [];
    for (const v of touched) {
      const delta = (1 - ever[v]) * (1 - escape[v]);
      if (delta > 0) deltas.push([v, delta]);
      if (delta > bestDelta[v] && strongestFrom[v] >= 0) {
        bestDelta[v] = delta;
        parent[v] = strongestFrom[v];
        parentRelation[v] = strongestRel[v];
      }
      escape[v] = 1;
      strongest[v] = 0;
      strongestFrom[v] = -1;
    }
    // Recovery of what was infected before this step, then the new infections.
    const next = new Set<number>();
    for (const u of active) {
      inf[u] *= 1 - o.gamma;
      if (inf[u] > 1e-9) next.add(u);
    }
    for (const [v, delta] of deltas) {
      inf[v] += delta;
      ever[v] += delta;
      newMass += delta;
      if (inf[v] > 1e-9) next.add(v);
    }
    if (step === 0) firstGeneration = seedMass > 0 ? newMass / seedMass : 0;
    active = [...next];
    if (active.length === 0 || newMass < 1e-7) {
      stopped = active.length === 0 ? 'extinct' : 'converged';
      step++;
      break;
    }
    await pace();
  }
  return { ever, parent, parentRelation, iterations: step, stopped, firstGeneration };
}

/** The transmission path from a seed to `v`, one sentence per hop (seed first), following the strongest parents. */
export function infectionPath(fg: FileGraph, r: SirResult, seeds: Map<number, number>, v: number, maxHops = 12): string[] {
  const hops: string[] = [];
  const seen = new Set([v]);
  let u = v;
  while (!seeds.has(u) && hops.length < maxHops) {
    const p = r.parent[u];
    if (p < 0 || seen.has(p)) break;
    seen.add(p);
    const tag = r.parentRelation[u];
    // "calls<": u calls p (u depends on the infected p); "calls": p calls u.
    hops.push(tag.endsWith('<') ? `${fg.paths[u]} ${tag.slice(0, -1)} ${fg.paths[p]}` : `${fg.paths[p]} ${tag} ${fg.paths[u]}`);
    u = p;
  }
  hops.push(`${fg.paths[u]}${seeds.has(u) ? ' (seed)' : ''}`);
  return hops.reverse();
}

/** Evidence from git for β: after a fix commit, how often a linked file got a fix within the window. */
export interface Calibration {
  fix_commits: number;
  opportunities: number;
  followed_by_fix: number;
  /** P(linked file fixed within the window | a file was fixed). */
  linked_rate: number;
  /** The same for any other file of the graph with history (the base rate), and linked / base. */
  base_rate: number;
  lift: number | null;
  window_days: number;
}

/** Measures how often fixes follow along links (`historyFiles`: files of `fg` with history); null when the history has fewer than 10 opportunities. */
export async function calibrateFromFixes(fg: FileGraph, fixes: { time: number; files: string[] }[], historyFiles: number, direction: SirOptions['direction'], windowDays = 90): Promise<Calibration | null> {
  const window = windowDays * 86_400;
  const fixTimes = new Map<number, number[]>();
  for (const f of fixes) for (const p of f.files) {
    const s = fg.slot.get(p);
    if (s === undefined) continue;
    let t = fixTimes.get(s);
    if (!t) fixTimes.set(s, (t = []));
    t.push(f.time);
  }
  const fixedWithin = (s: number, from: number) => (fixTimes.get(s) ?? []).some((t) => t > from && t <= from + window);
  let opp = 0;
  let hit = 0;
  let baseOpp = 0;
  let baseHit = 0;
  const fixedFiles = [...fixTimes.keys()];
  let work = 0;
  for (const f of fixes) {
    work += fixedFiles.length + 16;
    if (work > 100_000) {
      work = 0;
      await yieldTurn();
    }
    const own = new Set(f.files.map((p) => fg.slot.get(p)).filter((s): s is number => s !== undefined));
    if (own.size === 0) continue;
    const linked = new Set<number>();
    for (const s of own) {
      if (direction !== 'backward') for (const l of fg.dependents[s]) linked.add(l.file);
      if (direction !== 'forward') for (const l of fg.dependencies[s]) linked.add(l.file);
    }
    for (const y of linked) {
      if (own.has(y)) continue;
      opp++;
      if (fixedWithin(y, f.time)) hit++;
    }
    // Base rate: any other file of the graph with history (fixed later or not).
    baseOpp += Math.max(0, historyFiles - own.size);
    for (const y of fixedFiles) if (!own.has(y) && fixedWithin(y, f.time)) baseHit++;
  }
  if (opp < 10) return null;
  const linkedRate = (hit + 0.5) / (opp + 1);
  const baseRate = baseOpp ? (baseHit + 0.5) / (baseOpp + 1) : 0;
  return { fix_commits: fixes.length, opportunities: opp, followed_by_fix: hit, linked_rate: linkedRate, base_rate: baseRate, lift: baseRate > 0 ? linkedRate / baseRate : null, window_days: windowDays };
}
