/**
 * Taint paths: from each entry function, a breadth-first walk along calls (and interface
 * dispatches) to functions whose code reaches a sink. Walked twice: once freely, once stopping at
 * boundary functions (their code validates, sanitises or checks auth). A sink reached on the
 * stopped walk is a leak — there is a path with no boundary on it; a sink reached only on the free
 * walk is guarded, and the first boundary on its path is named.
 */
import { ensureFinal, type CodeGraphEngine, type GraphNode } from '../graph/api.ts';
import { callPath, walkCalls } from './call-walk.ts';
import type { Deadline } from './deadline.ts';
import { FunctionCode } from './function-code.ts';
import { codeFacts, type CodeFacts, type TaintType } from './taint-kinds.ts';

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

/** Leaks and guarded sinks from each entry, for sinks of `sinkTypes`, within the deadline. */
export async function traceTaint(
  engine: CodeGraphEngine,
  entries: readonly GraphNode[],
  options: { sinkTypes: readonly Exclude<TaintType, 'user_input'>[]; maxDepth: number; minProbability: number; extraBoundaries: RegExp | null; deadline: Deadline },
): Promise<{ leaks: Leak[]; guarded: Guarded[]; entriesDone: number }> {
  const g = engine.graph;
  ensureFinal(g);
  const facts = new FunctionCode<CodeFacts>(engine, `taint ${options.extraBoundaries?.source ?? ''}`, (code) => codeFacts(code, options.extraBoundaries));
  const leaks: Leak[] = [];
  const guarded: Guarded[] = [];
  let entriesDone = 0;
  const sinkOf = (i: number) => (facts.of(i)?.sinks ?? []).filter((s) => options.sinkTypes.includes(s));
  for (const entry of entries) {
    if (options.deadline.spent()) break;
    await options.deadline.pace();
    const e = g.indexOf(entry.id);
    if (e < 0) continue;
    const stopped = walkCalls(g, e, options.maxDepth, options.minProbability, (v) => facts.of(v)?.boundary != null);
    const leaked = new Set<number>();
    for (const v of stopped.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || facts.of(v)?.boundary) continue;
      leaked.add(v);
      leaks.push({ entry: entry.id, sink: g.node(v)!.id, sink_types: sinks, path: callPath(g, stopped, v), probability: Math.round(stopped.prob[v] * 1000) / 1000 });
    }
    const free = walkCalls(g, e, options.maxDepth, options.minProbability, () => false);
    for (const v of free.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || leaked.has(v)) continue;
      let boundary = v;
      for (const x of [...callPath(g, free, v)].map((id) => g.indexOf(id))) if (facts.of(x)?.boundary) {
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
  const facts = new FunctionCode<CodeFacts>(engine, 'taint ', (code) => codeFacts(code, null));
  const out: GraphNode[] = [];
  for (const [i, n] of engine.graph.nodes()) {
    if ((n.kind !== 'function' && n.kind !== 'method') || !inScope(n.path) || deadline.spent()) continue;
    if ((i & 255) === 0) await deadline.pace();
    if (facts.of(i)?.source) out.push(n);
    if (out.length >= limit) break;
  }
  return out;
}
