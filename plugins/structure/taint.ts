/**
 * Taint paths: from each entry function, a breadth-first walk along calls (and interface
 * dispatches) to functions whose code reaches a sink. Walked twice: once freely, once stopping at
 * boundary functions (their code validates, sanitises or checks auth). A sink reached on the
 * stopped walk is a leak — there is a path with no boundary on it; a sink reached only on the free
 * walk is guarded, and the first boundary on its path is named.
 */
import { edgeConfidence, ensureFinal, RELATION_CODE, type CodeGraph, type CodeGraphEngine, type GraphNode } from '../graph/api.ts';
import type { Deadline } from './deadline.ts';
import { codeFacts, codeOnly, type CodeFacts, type TaintType } from './taint-kinds.ts';

const FOLLOW = new Uint8Array(32);
FOLLOW[RELATION_CODE.calls] = 1;
FOLLOW[RELATION_CODE.dispatches] = 1;
const CODE_KINDS = new Set(['function', 'method']);

const factCache = new WeakMap<CodeGraph, { version: number; key: string; facts: Map<number, CodeFacts> }>();

/** Reads functions' code once per call and keeps their facts per graph version. */
export class FunctionFacts {
  private readonly files = new Map<string, string[]>();
  private readonly facts: Map<number, CodeFacts>;

  constructor(
    private readonly engine: CodeGraphEngine,
    private readonly extraBoundaries: RegExp | null,
  ) {
    const g = engine.graph;
    const key = extraBoundaries?.source ?? '';
    let c = factCache.get(g);
    if (!c || c.version !== g.version || c.key !== key) factCache.set(g, (c = { version: g.version, key, facts: new Map() }));
    this.facts = c.facts;
  }

  /** The facts of node `i` (none for non-code nodes). */
  of(i: number): CodeFacts | null {
    const hit = this.facts.get(i);
    if (hit) return hit;
    const n = this.engine.graph.node(i);
    if (!n || !CODE_KINDS.has(n.kind)) return null;
    let lines = this.files.get(n.path);
    if (!lines) {
      try {
        lines = this.engine.readFile(n.path).content.split('\n');
      } catch {
        lines = [];
      }
      this.files.set(n.path, lines);
    }
    const facts = codeFacts(codeOnly(lines.slice(n.startLine - 1, n.endLine).join('\n')), this.extraBoundaries);
    this.facts.set(i, facts);
    return facts;
  }
}

export interface Leak {
  entry: string;
  sink: string;
  sink_types: string[];
  path: string[];
  probability: number;
}

export interface Guarded {
  entry: string;
  sink: string;
  sink_types: string[];
  boundary: string;
  boundary_code: string;
}

interface Reached {
  prev: Int32Array;
  prob: Float64Array;
  order: number[];
}

function walk(g: CodeGraph, entry: number, facts: FunctionFacts, maxDepth: number, minProbability: number, stopAtBoundary: boolean): Reached {
  const prev = new Int32Array(g.nodeCapacity).fill(-2);
  const prob = new Float64Array(g.nodeCapacity);
  const depth = new Map<number, number>([[entry, 0]]);
  prev[entry] = -1;
  prob[entry] = 1;
  const order = [entry];
  for (let q = 0; q < order.length; q++) {
    const v = order[q];
    if (depth.get(v)! >= maxDepth) continue;
    if (stopAtBoundary && facts.of(v)?.boundary) continue;
    for (let k = g.outOffsets[v]; k < g.outOffsets[v + 1]; k++) {
      const e = g.outEdges[k];
      if (!g.edgeAlive[e] || !FOLLOW[g.edgeRelation[e]]) continue;
      const w = g.edgeTarget[e];
      if (prev[w] !== -2) continue;
      const p = prob[v] * edgeConfidence(g, e);
      if (p < minProbability) continue;
      prev[w] = v;
      prob[w] = p;
      depth.set(w, depth.get(v)! + 1);
      order.push(w);
    }
  }
  return { prev, prob, order };
}

function pathTo(g: CodeGraph, r: Reached, v: number): string[] {
  const out: string[] = [];
  for (let x = v; x >= 0; x = r.prev[x]) out.push(g.node(x)!.id);
  return out.reverse();
}

/** Leaks and guarded sinks from each entry, for sinks of `sinkTypes`, within the deadline. */
export async function traceTaint(
  engine: CodeGraphEngine,
  entries: readonly GraphNode[],
  options: { sinkTypes: readonly Exclude<TaintType, 'user_input'>[]; maxDepth: number; minProbability: number; extraBoundaries: RegExp | null; deadline: Deadline },
): Promise<{ leaks: Leak[]; guarded: Guarded[]; entriesDone: number }> {
  const g = engine.graph;
  ensureFinal(g);
  const facts = new FunctionFacts(engine, options.extraBoundaries);
  const leaks: Leak[] = [];
  const guarded: Guarded[] = [];
  let entriesDone = 0;
  const sinkOf = (i: number) => (facts.of(i)?.sinks ?? []).filter((s) => options.sinkTypes.includes(s));
  for (const entry of entries) {
    if (options.deadline.spent()) break;
    await options.deadline.pace();
    const e = g.indexOf(entry.id);
    if (e < 0) continue;
    const stopped = walk(g, e, facts, options.maxDepth, options.minProbability, true);
    const leaked = new Set<number>();
    for (const v of stopped.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || facts.of(v)?.boundary) continue;
      leaked.add(v);
      leaks.push({ entry: entry.id, sink: g.node(v)!.id, sink_types: sinks, path: pathTo(g, stopped, v), probability: Math.round(stopped.prob[v] * 1000) / 1000 });
    }
    const free = walk(g, e, facts, options.maxDepth, options.minProbability, false);
    for (const v of free.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || leaked.has(v)) continue;
      let boundary = v;
      for (const x of [...pathTo(g, free, v)].map((id) => g.indexOf(id))) if (facts.of(x)?.boundary) {
        boundary = x;
        break;
      }
      guarded.push({ entry: entry.id, sink: g.node(v)!.id, sink_types: sinks, boundary: g.node(boundary)!.id, boundary_code: facts.of(boundary)?.boundary ?? '' });
    }
    entriesDone++;
  }
  leaks.sort((a, b) => b.probability - a.probability || a.path.length - b.path.length || a.sink.localeCompare(b.sink));
  return { leaks, guarded, entriesDone };
}

/** Functions in scope whose own code reads untrusted input (request fields, argv, env, input()). */
export async function findEntries(engine: CodeGraphEngine, inScope: (path: string) => boolean, deadline: Deadline, limit: number): Promise<GraphNode[]> {
  const facts = new FunctionFacts(engine, null);
  const out: GraphNode[] = [];
  for (const [i, n] of engine.graph.nodes()) {
    if (!CODE_KINDS.has(n.kind) || !inScope(n.path) || deadline.spent()) continue;
    if ((i & 255) === 0) await deadline.pace();
    if (facts.of(i)?.source) out.push(n);
    if (out.length >= limit) break;
  }
  return out;
}
