/**
 * Graph query verbs on the Python standard library (site-packages excluded: it is not the standard
 * library). Ingests with the engine into a temp store, then serves the same workspace from a real
 * host and calls `activate`, `impact` and `why` through host.call (the whole dispatch pipeline:
 * gates, validation, handler, BPE token count, envelope) over ~200 varied queries / nodes / pairs.
 * Baselines measured in the same run, on the same inputs:
 *   activate ÷ seek (lexical search alone, through the host),
 *   impact   ÷ the same reverse walk as a plain FIFO BFS (same relations, depth and cut-off; no heap, no output),
 *   why      ÷ a plain bidirectional BFS between the same pair (hop-minimal, no explanation).
 * The same three are also timed at the kernel (the algorithm functions the handlers call, no
 * dispatch, no JSON), against the same baselines. Prints the graph's node and edge counts, p50/p99
 * per verb and the ratios of medians.
 *
 *   node --import tsx bench/analysis.bench.ts [--corpus DIR]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from '../core/index.ts';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { CodeGraph } from '../plugins/graph/engine/graph.ts';
import { explainPaths } from '../plugins/graph/algorithms/paths.ts';
import { propagate } from '../plugins/graph/algorithms/propagation.ts';
import { IMPACT_PROFILE } from '../plugins/graph/algorithms/relations.ts';
import { CONTAINS, KIND_CODE, kindCodes } from '../plugins/graph/algorithms/graph-facts.ts';
import { IMPACT_DECAY, IMPACT_THRESHOLD } from '../plugins/core/analysis/impact.ts';
import { activateQuery, DIMENSIONS } from '../plugins/core/analysis/query-activation.ts';
import type { GraphService } from '../plugins/graph/service.ts';
import { pct, serveStoredGraph } from './bench-host.ts';

const EXCLUDE = ['site-packages/**'];
const N = Number(process.env.BENCH_QUERIES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const fmt = (x: number): string => x.toFixed(2);

/** A small seeded generator, so every run measures the same inputs. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function words(label: string): string {
  return label
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** Inputs: queries from symbol names and docs, nodes with dependents, and pairs a few hops apart. */
function inputs(g: CodeGraph): { queries: string[]; nodes: string[]; pairs: [string, string][] } {
  const rand = rng(42);
  const symbols: number[] = [];
  for (const [i, n] of g.nodes()) if ((n.kind === 'function' || n.kind === 'method' || n.kind === 'class') && !n.path.startsWith('test/')) symbols.push(i);
  const pick = () => symbols[Math.floor(rand() * symbols.length)];
  const queries = new Set<string>();
  while (queries.size < N) {
    const a = g.node(pick())!;
    const b = g.node(pick())!;
    const r = rand();
    const q = r < 0.4 ? words(a.label) : r < 0.7 ? `${words(a.label)} ${words(b.label).split(' ')[0]}` : (a.doc ?? a.label).split(/\s+/).slice(0, 4).join(' ');
    if (q.replace(/[^a-z0-9]/gi, '').length >= 3) queries.add(q);
  }
  const nodes: string[] = [];
  while (nodes.length < N) {
    const i = pick();
    if (g.inDegree(i) > 1) nodes.push(g.node(i)!.id);
  }
  const pairs: [string, string][] = [];
  while (pairs.length < N) {
    const s = pick();
    let v = s;
    const hops = 2 + Math.floor(rand() * 4);
    for (let h = 0; h < hops; h++) {
      const out = g.outDegree(v);
      const inn = g.inDegree(v);
      if (out + inn === 0) break;
      const k = Math.floor(rand() * (out + inn));
      let next = -1;
      if (k < out) g.forEachOut(v, (t, _w, _r, e) => (next = next < 0 && e === g.outEdges[g.outOffsets[v] + k] ? t : next));
      else g.forEachIn(v, (t, _w, _r, e) => (next = next < 0 && e === g.inEdges[g.inOffsets[v] + (k - out)] ? t : next));
      if (next >= 0 && g.node(next)!.kind !== 'module') v = next;
    }
    if (v !== s) pairs.push([g.node(s)!.id, g.node(v)!.id]);
  }
  return { queries: [...queries], nodes, pairs };
}

/**
 * The floor of impact's walk: the same reverse walk (same relations and multipliers, directory
 * containment skipped, same depth, decay, cut-off and visit cap) as a plain FIFO BFS — each node
 * settled by the first path that reaches it above the cut-off, no best-first heap, no ranking.
 */
function plainReverseWalk(g: CodeGraph, start: number, depth: number, kinds: Uint8Array, moduleCode: number): number {
  // Scratch reused across calls and reset by the touched list, as propagate's epoch-stamped arrays are.
  if (walkSignal.length < g.nodeCapacity) walkSignal = new Float32Array(g.nodeCapacity);
  const signal = walkSignal;
  const touched = [start];
  let frontier = [start];
  signal[start] = 1;
  let count = 0;
  for (let d = 0; d < depth && frontier.length && count < 20_000; d++) {
    const next: number[] = [];
    for (const u of frontier) {
      if (u + 1 >= g.inOffsets.length) continue;
      const base = signal[u] * IMPACT_DECAY;
      if (base < IMPACT_THRESHOLD) continue;
      for (let k = g.inOffsets[u]; k < g.inOffsets[u + 1]; k++) {
        const e = g.inEdges[k];
        const v = g.edgeSource[e];
        if (signal[v] > 0) continue;
        const r = g.edgeRelation[e];
        const m = r === CONTAINS && kinds[v] === moduleCode ? 0 : IMPACT_PROFILE[r];
        const w = g.edgeWeight[e] * m;
        const sig = base * (w > 1 ? 1 : w);
        if (sig < IMPACT_THRESHOLD) continue;
        signal[v] = sig;
        touched.push(v);
        next.push(v);
        count++;
      }
    }
    frontier = next;
  }
  for (const v of touched) signal[v] = 0;
  return count;
}
let walkSignal = new Float32Array(0);

/** Plain bidirectional BFS over the undirected view: hop distance or -1. */
function plainBidirectional(g: CodeGraph, s: number, t: number, maxHops: number): number {
  if (s === t) return 0;
  const side = new Int8Array(g.nodeCapacity);
  side[s] = 1;
  side[t] = 2;
  let a = [s];
  let b = [t];
  for (let hops = 1; hops <= maxHops && a.length && b.length; hops++) {
    const forward = a.length <= b.length;
    const [mine, other] = forward ? [1, 2] : [2, 1];
    const next: number[] = [];
    for (const u of forward ? a : b) {
      const visit = (v: number): boolean => {
        if (side[v] === other) return true;
        if (side[v] === 0) {
          side[v] = mine;
          next.push(v);
        }
        return false;
      };
      for (let k = g.outOffsets[u]; k < g.outOffsets[u + 1]; k++) if (visit(g.edgeTarget[g.outEdges[k]])) return hops;
      for (let k = g.inOffsets[u]; k < g.inOffsets[u + 1]; k++) if (visit(g.edgeSource[g.inEdges[k]])) return hops;
    }
    if (forward) a = next;
    else b = next;
  }
  return -1;
}

function timeSync(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const corpusArg = argv.indexOf('--corpus');
  const root = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const storeDir = mkdtempSync(join(tmpdir(), 'm1nd-analysis-bench-'));
  try {
    const engine = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE });
    await engine.open();
    const t0 = performance.now();
    await engine.ingest();
    console.log(`analysis: corpus ${root} (excluded ${EXCLUDE.join(', ')}), ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await engine.close();

    // The graph as the host serves it (loaded from the store).
    const { host, call } = await serveStoredGraph(root, storeDir, EXCLUDE);
    try {
      const service = host.current.services.get('graph')!.impl as GraphService;
      const g = service.engine.graph;
      const { queries, nodes, pairs } = inputs(g);
      console.log(`analysis: graph ${g.nodeCount} nodes, ${g.edgeCount} edges; ${queries.length} queries, ${nodes.length} nodes, ${pairs.length} pairs, ${ROUNDS} rounds`);

      const measure = async (label: string, list: Record<string, unknown>[], verb: string): Promise<number[]> => {
        for (const a of list.slice(0, 20)) await call(verb, a); // warm the JIT and caches
        const times: number[] = [];
        for (let r = 0; r < ROUNDS; r++) for (const a of list) times.push(await call(verb, a));
        return times;
      };
      const report = (label: string, times: number[], base: number[], baseLabel: string, budget: string): void => {
        const ratio = pct(times, 50) / pct(base, 50);
        console.log(
          `analysis: ${label.padEnd(17)} p50 ${fmt(pct(times, 50))} ms  p99 ${fmt(pct(times, 99))} ms  (${budget})   ${baseLabel} p50 ${fmt(pct(base, 50))} ms p99 ${fmt(pct(base, 99))} ms   ratio ${ratio.toFixed(2)}`,
        );
      };
      const kernel = (list: (() => unknown)[]): number[] => {
        for (const fn of list.slice(0, 20)) fn();
        const times: number[] = [];
        for (let r = 0; r < ROUNDS; r++) for (const fn of list) times.push(timeSync(fn));
        return times;
      };

      const activate = await measure('activate', queries.map((query) => ({ query })), 'activate');
      const seek = await measure('seek', queries.map((query) => ({ query })), 'seek');
      report('activate (host)', activate, seek, 'seek (host)', 'target p50 ≤ 10, p99 ≤ 50');
      const activateKernel = kernel(queries.map((query) => () => activateQuery(service, service.engine, { query, agentId: 'bench', dimensions: DIMENSIONS, topK: 20, xlr: true, ghostEdges: true })));
      const seekKernel = kernel(queries.map((query) => () => service.engine.seek(query, { topK: 20 })));
      report('activate (kernel)', activateKernel, seekKernel, 'engine.seek', 'no dispatch');

      const impact = await measure('impact', nodes.map((node_id) => ({ node_id, direction: 'reverse' })), 'impact');
      const bfs: number[] = [];
      const kinds = kindCodes(g);
      for (let r = 0; r < ROUNDS; r++) for (const id of nodes) bfs.push(timeSync(() => plainReverseWalk(g, g.indexOf(id), 5, kinds, KIND_CODE.module)));
      report('impact (host)', impact, bfs, 'same walk as plain BFS', 'target p50 ≤ 10, p99 ≤ 50');
      const impactKernel = kernel(
        nodes.map((id) => () => propagate(g, [{ index: g.indexOf(id), signal: 1 }], { direction: 'in', relations: IMPACT_PROFILE, decay: IMPACT_DECAY, threshold: IMPACT_THRESHOLD, maxDepth: 5, maxVisits: 20_000 })),
      );
      report('impact (kernel)', impactKernel, bfs, 'same walk as plain BFS', 'no dispatch');
      // What an agent pays for one answer: BPE tokens of the whole result text (envelope included).
      const sizes: number[] = [];
      for (const node_id of nodes) {
        const r = await host.call('impact', { agent_id: 'bench', node_id, direction: 'reverse' });
        sizes.push(countTokens((r.content as { text: string }[])[0].text));
      }
      console.log(
        `analysis: impact answer size (BPE tokens, reverse, default parameters, ${nodes.length} nodes) p50 ${pct(sizes, 50)} p90 ${pct(sizes, 90)} max ${Math.max(...sizes)} (target: a typical answer under ~2K)`,
      );

      const why = await measure('why', pairs.map(([source, target]) => ({ source, target })), 'why');
      const bibfs: number[] = [];
      for (let r = 0; r < ROUNDS; r++) for (const [s, t] of pairs) bibfs.push(timeSync(() => plainBidirectional(g, g.indexOf(s), g.indexOf(t), 6)));
      report('why (host)', why, bibfs, 'plain bidirectional BFS', 'target ≤ 20');
      const whyKernel = kernel(pairs.map(([a, b]) => () => explainPaths(g, g.indexOf(a), g.indexOf(b), { maxHops: 6, k: 3 })));
      report('why (kernel)', whyKernel, bibfs, 'plain bidirectional BFS', 'no dispatch');
    } finally {
      await host.close();
    }
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
