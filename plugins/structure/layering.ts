/**
 * Layers inferred from the dependency topology. Strongly connected components (Tarjan) are the
 * cycles; inside each, a weighted greedy feedback-arc ordering (Eades–Lin–Smyth) names the weakest
 * arcs that close the cycle as the *upward* dependencies; with those removed the graph is a DAG,
 * and a unit's level is the longest dependency chain below it (0 = depends on nothing). Utility
 * units (many dependents across directories, few dependencies of their own) stand aside, so they
 * neither pull everything to level 1 nor count as skipped layers.
 */
import { dirOf, MaxHeap, type CodeGraph } from '../graph/api.ts';
import type { Deadline } from './deadline.ts';
import { buildUnitGraph, type Granularity, type LinkExample, type TypeOnlyImports, type UnitGraph } from './unit-graph.ts';

export interface Violation {
  kind: 'cycle' | 'upward' | 'skip';
  /** 0..1, higher is worse. */
  severity: number;
  from: string;
  to?: string;
  from_layer?: number;
  to_layer?: number;
  /** Cycle members (capped). */
  members?: string[];
  weight: number;
  via?: LinkExample[];
  /** For a skip: the unit in a layer between that `from` also uses and that depends on `to`. */
  bypasses?: string;
  why: string;
}

export interface Layering {
  graph: UnitGraph;
  /** Layer per unit; -1 for utility units. */
  layer: Int32Array;
  layerCount: number;
  utility: number[];
  /** Components of more than one unit. */
  cycles: number[][];
  /** Upward arcs, keyed `${from} ${to}`. */
  upward: Set<string>;
  violations: Violation[];
  /** Distinct dependents per unit. */
  fanIn: number[];
}

export interface LayeringOptions {
  granularity: Granularity;
  inScope: (path: string) => boolean;
  excludeTests: boolean;
  /** Type-only imports per file (unit-graph.ts): arcs resting on them alone order nothing. */
  typeOnlyImports?: TypeOnlyImports;
  maxLayers: number;
  minUnitsPerLayer: number;
}

const cache = new WeakMap<CodeGraph, Map<string, { version: number; layering: Layering }>>();

/** The layering of the graph for these options, cached per graph version. */
export async function layeringOf(g: CodeGraph, options: LayeringOptions, scopeKey: string, deadline: Deadline): Promise<Layering> {
  const key = JSON.stringify([options.granularity, options.excludeTests, options.maxLayers, options.minUnitsPerLayer, scopeKey]);
  let perGraph = cache.get(g);
  const hit = perGraph?.get(key);
  if (hit && hit.version === g.version) return hit.layering;
  const unitGraph = await buildUnitGraph(g, options, deadline);
  const layering = await inferLayers(unitGraph, options, deadline);
  if (!perGraph) cache.set(g, (perGraph = new Map()));
  if (perGraph.size > 8) perGraph.clear();
  perGraph.set(key, { version: g.version, layering });
  return layering;
}

/** Tarjan's strongly connected components, iterative; components come out in reverse topological order. */
export function stronglyConnected(n: number, out: Map<number, number>[]): number[][] {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let next = 0;
  const targets = out.map((m) => [...m.keys()]);
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const v = frame[0];
      if (frame[1] < targets[v].length) {
        const w = targets[v][frame[1]++];
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v], index[w]);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low[parent] = Math.min(low[parent], low[v]);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
    }
  }
  return components;
}

/**
 * Orders one component so that few (and light) arcs point backwards: Eades–Lin–Smyth greedy with
 * weights — sinks go last, sources first, otherwise the unit with the largest out−in weight goes
 * first. Linear-ish: weights are updated as units leave, and a lazy max-heap holds the scores.
 */
export function feedbackOrder(members: readonly number[], out: Map<number, number>[]): number[] {
  const local = new Map<number, number>(members.map((v, i) => [v, i]));
  const n = members.length;
  const succ: [number, number][][] = members.map(() => []);
  const pred: [number, number][][] = members.map(() => []);
  const outW = new Float64Array(n);
  const inW = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (const [w, weight] of out[members[i]]) {
      const j = local.get(w);
      if (j === undefined || j === i) continue;
      succ[i].push([j, weight]);
      pred[j].push([i, weight]);
      outW[i] += weight;
      inW[j] += weight;
    }
  }
  const alive = new Uint8Array(n).fill(1);
  const head: number[] = [];
  const tail: number[] = [];
  const sinks: number[] = [];
  const sources: number[] = [];
  const heap = new MaxHeap(n * 2);
  const EPS = 1e-9;
  for (let i = 0; i < n; i++) {
    if (outW[i] <= EPS) sinks.push(i);
    else if (inW[i] <= EPS) sources.push(i);
    else heap.push(outW[i] - inW[i], i);
  }
  const remove = (v: number) => {
    alive[v] = 0;
    for (const [w, weight] of succ[v]) {
      if (!alive[w]) continue;
      inW[w] -= weight;
      if (inW[w] <= EPS && outW[w] > EPS) sources.push(w);
      else heap.push(outW[w] - inW[w], w);
    }
    for (const [u, weight] of pred[v]) {
      if (!alive[u]) continue;
      outW[u] -= weight;
      if (outW[u] <= EPS) sinks.push(u);
      else heap.push(outW[u] - inW[u], u);
    }
  };
  let left = n;
  while (left > 0) {
    if (sinks.length > 0) {
      const v = sinks.pop()!;
      if (!alive[v]) continue;
      tail.push(v);
      remove(v);
      left--;
    } else if (sources.length > 0) {
      const v = sources.pop()!;
      if (!alive[v]) continue;
      head.push(v);
      remove(v);
      left--;
    } else {
      if (heap.size === 0) break; // cannot happen while weights stay consistent; never loop forever
      const v = heap.pop();
      // A stale entry (the unit left, or its score changed since): skip it.
      if (!alive[v] || Math.abs(heap.lastKey - (outW[v] - inW[v])) > EPS) continue;
      head.push(v);
      remove(v);
      left--;
    }
  }
  return [...head, ...tail.reverse()].map((i) => members[i]);
}

function pickUtility(ug: UnitGraph, fanIn: number[]): Set<number> {
  const n = ug.units.length;
  const minFanIn = Math.max(4, Math.ceil(n * 0.05));
  const dependentDirs: Set<string>[] = ug.units.map(() => new Set());
  for (let a = 0; a < n; a++) for (const b of ug.out[a].keys()) dependentDirs[b].add(dirOf(ug.units[a]));
  const utility = new Set<number>();
  for (let u = 0; u < n; u++) {
    if (fanIn[u] >= minFanIn && dependentDirs[u].size >= 3 && ug.out[u].size <= 1) utility.add(u);
  }
  return utility;
}

async function inferLayers(ug: UnitGraph, options: LayeringOptions, deadline: Deadline): Promise<Layering> {
  const n = ug.units.length;
  const fanIn = new Array<number>(n).fill(0);
  for (let a = 0; a < n; a++) for (const b of ug.out[a].keys()) fanIn[b]++;
  const components = stronglyConnected(n, ug.out);
  await deadline.pace();
  const cycles = components.filter((c) => c.length > 1);
  const upward = new Set<string>();
  for (const c of cycles) {
    const order = feedbackOrder(c, ug.out);
    const position = new Map(order.map((v, i) => [v, i]));
    for (const v of c) for (const w of ug.out[v].keys()) if (position.has(w) && position.get(w)! < position.get(v)!) upward.add(`${v} ${w}`);
    await deadline.pace();
  }
  const utility = pickUtility(ug, fanIn);
  await deadline.pace();
  // Longest chain below each unit over the DAG left once upward arcs and utility targets are set aside.
  const level = new Int32Array(n).fill(-1);
  const remaining = new Int32Array(n);
  const dependents: number[][] = ug.units.map(() => []);
  for (let a = 0; a < n; a++) {
    for (const b of ug.out[a].keys()) {
      if (upward.has(`${a} ${b}`) || utility.has(b) || utility.has(a)) continue;
      remaining[a]++;
      dependents[b].push(a);
    }
  }
  const queue: number[] = [];
  for (let u = 0; u < n; u++) if (!utility.has(u) && remaining[u] === 0) {
    level[u] = 0;
    queue.push(u);
  }
  for (let q = 0; q < queue.length; q++) {
    const b = queue[q];
    for (const a of dependents[b]) {
      level[a] = Math.max(level[a], level[b] + 1);
      if (--remaining[a] === 0) queue.push(a);
    }
  }
  let top = 0;
  for (let u = 0; u < n; u++) if (level[u] > top) top = level[u];
  // Fewer layers than levels: bucket the levels evenly; then fold layers too small into the one below.
  const layer = new Int32Array(n).fill(-1);
  const buckets = Math.min(options.maxLayers, top + 1);
  for (let u = 0; u < n; u++) if (level[u] >= 0) layer[u] = Math.floor((level[u] * buckets) / (top + 1));
  const counts = new Array<number>(buckets).fill(0);
  for (let u = 0; u < n; u++) if (layer[u] >= 0) counts[layer[u]]++;
  const renumber = new Array<number>(buckets).fill(0);
  let current = -1;
  for (let l = 0; l < buckets; l++) {
    if (counts[l] === 0) {
      renumber[l] = Math.max(current, 0);
      continue;
    }
    if (current < 0 || counts[l] >= options.minUnitsPerLayer) current++;
    renumber[l] = current;
  }
  for (let u = 0; u < n; u++) if (layer[u] >= 0) layer[u] = renumber[layer[u]];
  const layerCount = current + 1;
  const violations: Violation[] = [];
  const name = (u: number) => ug.units[u];
  for (const c of cycles) {
    let weight = 0;
    const set = new Set(c);
    for (const v of c) for (const [w, x] of ug.out[v]) if (set.has(w)) weight += x;
    const members = c.map(name).sort();
    violations.push({ kind: 'cycle', severity: Math.min(1, (75 + 5 * (c.length - 1)) / 100), from: members[0], members: members.slice(0, 20), weight: round(weight), why: `${c.length} units depend on each other in a cycle` });
  }
  for (const key of upward) {
    const [a, b] = key.split(' ').map(Number);
    const weight = ug.out[a].get(b)!;
    violations.push({ kind: 'upward', severity: 0.7, from: name(a), to: name(b), from_layer: layer[a], to_layer: layer[b], weight: round(weight), via: ug.examples.get(key), why: `closes a cycle: ${name(b)} already depends on ${name(a)} (directly or through others) more strongly` });
  }
  // A skip bypasses a layer that mediates: `a` uses code two or more layers down in `b` while it also
  // uses `m`, in a layer between, whose code uses `b` (a handler calling the store beside the service
  // that wraps it). Longest-path levels put most arcs more than one layer down; those that bypass
  // nothing are how a relaxed layering works, and a package's re-exports (imports only) mediate nothing.
  // Users of each unit's code, and how many sit in the layer just above it: a unit most of whose
  // users are there is wrapped by that layer; one used from every layer (a value type, a shared
  // helper) is not, and reaching it from far above bypasses nothing.
  const users = new Array<number>(n).fill(0);
  const adjacentUsers = new Array<number>(n).fill(0);
  for (let a = 0; a < n; a++) {
    if (layer[a] < 0) continue;
    for (const [b] of ug.out[a]) {
      if (layer[b] < 0 || layer[b] >= layer[a] || !ug.uses(a, b)) continue;
      users[b]++;
      if (layer[a] === layer[b] + 1) adjacentUsers[b]++;
    }
  }
  for (let a = 0; a < n; a++) {
    if (layer[a] < 0) continue;
    for (const [b, weight] of ug.out[a]) {
      if (layer[b] < 0 || upward.has(`${a} ${b}`)) continue;
      const gap = layer[a] - layer[b];
      if (gap < 2 || !ug.uses(a, b)) continue;
      const others = users[b] - 1;
      if (others < 1 || 2 * adjacentUsers[b] < others) continue;
      let bypassed = -1;
      for (const [m] of ug.out[a]) {
        if (m === b || layer[m] <= layer[b] || layer[m] >= layer[a] || !ug.uses(a, m) || !ug.uses(m, b) || upward.has(`${a} ${m}`)) continue;
        if (bypassed < 0 || layer[m] > layer[bypassed]) bypassed = m;
      }
      if (bypassed < 0) continue;
      violations.push({ kind: 'skip', severity: Math.min(0.5, (20 + 5 * (gap - 2)) / 100), from: name(a), to: name(b), from_layer: layer[a], to_layer: layer[b], weight: round(weight), via: ug.examples.get(`${a} ${b}`), bypasses: name(bypassed), why: `skips ${gap - 1} layer(s), past ${name(bypassed)}, which it also uses and which depends on ${name(b)}` });
    }
  }
  violations.sort((x, y) => y.severity - x.severity || y.weight - x.weight || x.from.localeCompare(y.from));
  return { graph: ug, layer, layerCount, utility: [...utility].sort((a, b) => fanIn[b] - fanIn[a]), cycles, upward, violations, fanIn };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A layer's name from the directories most of its units live in. */
export function layerName(layering: Layering, l: number): string {
  const dirs = new Map<string, number>();
  const ug = layering.graph;
  for (let u = 0; u < ug.units.length; u++) {
    if (layering.layer[u] !== l) continue;
    const d = ug.granularity === 'module' ? ug.units[u] : dirOf(ug.units[u]) || '.';
    dirs.set(d, (dirs.get(d) ?? 0) + 1);
  }
  const top = [...dirs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 2).map(([d]) => d);
  return `L${l} ${top.join(' + ')}`;
}

/** Units of one layer, most depended-on first. */
export function unitsOfLayer(layering: Layering, l: number): number[] {
  const out: number[] = [];
  for (let u = 0; u < layering.graph.units.length; u++) if (layering.layer[u] === l) out.push(u);
  return out.sort((a, b) => layering.fanIn[b] - layering.fanIn[a] || layering.graph.units[a].localeCompare(layering.graph.units[b]));
}
