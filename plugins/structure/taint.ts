/**
 * Taint paths: from each entry (a function, or a file's top-level statement such as an inline
 * request handler), a breadth-first walk along calls (and interface dispatches) to functions whose
 * code reaches a sink. Walked twice: once freely, once stopping at boundary functions (their code
 * validates, sanitises or checks auth, or calls a function that validates its input). A sink
 * reached on the stopped walk is a leak — there is a path with no boundary on it; a sink reached
 * only on the free walk is guarded, and the first boundary on its path is named.
 */
import { ensureFinal, RELATION_CODE, type CodeGraph, type CodeGraphEngine, type GraphNode } from '../graph/api.ts';
import { callPath, walkCalls } from './call-walk.ts';
import type { Deadline } from './deadline.ts';
import { FunctionCode, type Segment } from './function-code.ts';
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

/** Where a trace starts: a function or method node, or one top-level statement of a file node (`path:line`). */
export interface TaintEntry {
  node: GraphNode;
  /** The statement, for a file node's entry. */
  segment?: Segment<CodeFacts>;
}

/** How an entry is named in results: its node id, or `path:line` for a file's statement. */
export function entryLabel(e: TaintEntry): string {
  return e.segment ? `${e.node.path}:${e.segment.startLine}` : e.node.id;
}

/** The classifier of a trace (one cache per boundary pattern set). */
function codeOf(engine: CodeGraphEngine, extraBoundaries: RegExp | null): FunctionCode<CodeFacts> {
  return new FunctionCode<CodeFacts>(engine, `taint ${extraBoundaries?.source ?? ''}`, (code) => codeFacts(code, extraBoundaries));
}

/** The entry's statement calls target `t` by its name (a file node's call edges are the whole file's). */
export function calledIn(segmentCode: string, t: GraphNode): boolean {
  return t.label !== '' && new RegExp(`(?<![\\w$])${t.label.replace(/\$/g, '\\$')}\\s*\\(`).test(segmentCode);
}

/** Leaks and guarded sinks from each entry, for sinks of `sinkTypes`, within the deadline. */
export async function traceTaint(
  engine: CodeGraphEngine,
  entries: readonly TaintEntry[],
  options: { sinkTypes: readonly Exclude<TaintType, 'user_input'>[]; maxDepth: number; minProbability: number; extraBoundaries: RegExp | null; deadline: Deadline },
): Promise<{ leaks: Leak[]; guarded: Guarded[]; entriesDone: number }> {
  const g = engine.graph;
  ensureFinal(g);
  const facts = codeOf(engine, options.extraBoundaries);
  const leaks: Leak[] = [];
  const guarded: Guarded[] = [];
  let entriesDone = 0;
  const sinksIn = (f: CodeFacts | null | undefined) => (f?.sinks ?? []).filter((s) => options.sinkTypes.includes(s));
  // A function is a boundary when its own code is one, or when it calls a function that validates its input.
  const boundaryCode = new Map<number, string | null>();
  const boundaryOf = (v: number): string | null => {
    let b = boundaryCode.get(v);
    if (b === undefined) {
      b = facts.of(v)?.boundary ?? validatorCalled(g, v, facts, () => true);
      boundaryCode.set(v, b);
    }
    return b;
  };
  for (const entry of entries) {
    if (options.deadline.spent()) break;
    await options.deadline.pace();
    const e = g.indexOf(entry.node.id);
    if (e < 0) continue;
    const label = entryLabel(entry);
    const seg = entry.segment;
    const segCode = seg?.code ?? '';
    const firstHop = seg ? (t: number) => calledIn(segCode, g.node(t)!) : undefined;
    // The entry's own facts: its statement's for a file's, else its node's.
    const entryBoundary = seg ? (seg.facts.boundary ?? validatorCalled(g, e, facts, (t) => calledIn(segCode, g.node(t)!))) : boundaryOf(e);
    const isBoundary = (v: number) => (v === e ? entryBoundary !== null : boundaryOf(v) !== null);
    // The entry's own sinks count when its input can reach them (not a sink run before any input is read).
    const ownFacts = seg ? seg.facts : facts.of(e);
    const sinkOf = (v: number) => (v === e ? (ownFacts?.sinksAfterSource ?? []).filter((t) => options.sinkTypes.includes(t)) : sinksIn(facts.of(v)));
    const pathOf = (r: ReturnType<typeof walkCalls>, v: number) => [label, ...callPath(g, r, v).slice(1)];
    const stopped = walkCalls(g, e, options.maxDepth, options.minProbability, isBoundary, firstHop);
    const leaked = new Set<number>();
    for (const v of stopped.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || isBoundary(v)) continue;
      leaked.add(v);
      leaks.push({ entry: label, sink: v === e ? label : g.node(v)!.id, sink_types: sinks, path: pathOf(stopped, v), probability: Math.round(stopped.prob[v] * 1000) / 1000 });
    }
    const free = walkCalls(g, e, options.maxDepth, options.minProbability, () => false, firstHop);
    for (const v of free.order) {
      const sinks = sinkOf(v);
      if (sinks.length === 0 || leaked.has(v)) continue;
      const chain: number[] = [];
      for (let x = v; x >= 0; x = free.prev[x]) chain.push(x);
      const boundary = chain.reverse().find(isBoundary) ?? v;
      guarded.push({ entry: label, sink: v === e ? label : g.node(v)!.id, sink_types: sinks, boundary: boundary === e ? label : g.node(boundary)!.id, boundary_code: (boundary === e ? entryBoundary : boundaryOf(boundary)) ?? '' });
    }
    entriesDone++;
  }
  leaks.sort((a, b) => b.probability - a.probability || a.path.length - b.path.length || a.sink.localeCompare(b.sink));
  return { leaks, guarded, entriesDone };
}

/** `callee(` for the first function `v` calls (among those `include` keeps) that validates its input; null when none. */
function validatorCalled(g: CodeGraph, v: number, facts: FunctionCode<CodeFacts>, include: (t: number) => boolean): string | null {
  let found: string | null = null;
  g.forEachOut(v, (t, _w, relation, edge) => {
    if (found !== null || relation !== RELATION_CODE.calls || !g.isEdgeAlive(edge) || t === v || !include(t)) return;
    if (facts.of(t)?.validator) found = `${g.node(t)!.label}(`;
  });
  return found;
}

/**
 * Taint entries in scope, in graph order (a file, then its symbols): functions whose own code reads
 * untrusted input and files' top-level statements that do (inline handlers, script code), at most
 * `limit`; `capped` when there were more.
 */
export async function findTaintEntries(engine: CodeGraphEngine, inScope: (path: string) => boolean, deadline: Deadline, limit: number, extraBoundaries: RegExp | null): Promise<{ entries: TaintEntry[]; capped: boolean }> {
  const facts = codeOf(engine, extraBoundaries);
  const out: TaintEntry[] = [];
  let capped = false;
  for (const [i, n] of engine.graph.nodes()) {
    if (deadline.spent()) break;
    if ((n.kind !== 'function' && n.kind !== 'method' && n.kind !== 'file') || !inScope(n.path)) continue;
    await deadline.pace(); // a time check: yields only once the slice is spent (a node may read its file)
    const found: TaintEntry[] = n.kind === 'file' ? facts.segments(i).filter((s) => s.facts.source).map((segment) => ({ node: n, segment })) : facts.of(i)?.source ? [{ node: n }] : [];
    for (const e of found) {
      if (out.length === limit) capped = true;
      else out.push(e);
    }
    if (capped) break;
  }
  return { entries: out, capped };
}

/**
 * The entry a caller named: a function or method as is; a file node named with a line (`path:line`)
 * stands for its top-level statement at that line, when there is one.
 */
export function entryFor(engine: CodeGraphEngine, node: GraphNode, ref: string, extraBoundaries: RegExp | null): TaintEntry {
  const line = node.kind === 'file' ? /:(\d+)$/.exec(ref) : null;
  if (!line) return { node };
  const i = engine.graph.indexOf(node.id);
  const at = Number(line[1]);
  const segment = codeOf(engine, extraBoundaries)
    .segments(i)
    .find((s) => s.startLine <= at && at <= s.endLine);
  return segment ? { node, segment } : { node };
}
