/**
 * Callers at depth 1, m1nd against the ground truth: each sampled declaration is mapped to its m1nd
 * node by (path, name, line), its callers are read from `impact` (reverse, depth 1) as a user sees
 * them, and compared with the truth's callers by (path, name, line).
 */
import type { CodeGraphEngine } from '../../plugins/graph/engine/engine.ts';
import type { GraphNode } from '../../plugins/graph/engine/graph.ts';
import { RELATIONS } from '../../plugins/graph/engine/graph.ts';
import { addConfusion, bareName, confusion, seededSample, type Confusion } from './scoring.ts';
import type { TruthCaller, TruthDeclaration } from './truth-format.ts';

/** Relations that mean "calls" (today `calls`; a relation added later for calls through an interface is read too). */
export const CALL_RELATIONS = RELATIONS.filter((r) => /call|dispatch|invoke|instantiat|implementation/.test(r));

export type CallVerb = (name: string, args: Record<string, unknown>) => Promise<{ isError: boolean; json: any }>;

/** Per-kind result of the callers comparison. */
export interface CallerScore {
  kind: 'function' | 'method';
  declarations: number;
  unmapped: number;
  withCallers: number;
  /** m1nd callers matched to a true caller they enclose rather than name. */
  enclosing: number;
  /** Missed true callers that have no m1nd node at all (a node-model gap, not a missing edge). */
  missedWithoutNode: number;
  /** True callers that call this declaration by name (not only through an interface/base member), and how many m1nd found. */
  direct: { truth: number; found: number };
  /** True callers a call can reach: direct ones plus dispatch callers marked `reachable` (not siblings), and how many m1nd found. */
  reachable: { truth: number; found: number };
  confusion: Confusion;
}

/** A recall denominator and how many of its callers were found. */
export interface Recalled {
  truth: number;
  found: number;
}

/**
 * How many of the true callers are direct (name the declaration) and how many a call can reach
 * (direct, or dispatch marked `reachable`), and of each how many are in `found` (truth keys).
 */
export function recallSubsets(truth: readonly TruthCaller[], found: ReadonlySet<string>): { direct: Recalled; reachable: Recalled } {
  const direct = { truth: 0, found: 0 };
  const reachable = { truth: 0, found: 0 };
  for (const t of truth) {
    const hit = found.has(callerKey(t)) ? 1 : 0;
    if (!t.dispatch) {
      direct.truth++;
      direct.found += hit;
    }
    if (!t.dispatch || t.reachable) {
      reachable.truth++;
      reachable.found += hit;
    }
  }
  return { direct, reachable };
}

const addRecalled = (a: Recalled, b: Recalled): Recalled => ({ truth: a.truth + b.truth, found: a.found + b.found });

/**
 * Ids of the direct callers in an `impact` answer, whatever its shape: today entries of
 * `blast_radius` at depth 1 with a `<-calls-` relation; a shape that lists direct dependents apart
 * (any array of entries with an id and a relation, without a depth or at depth 1) is read the same way.
 */
export function directCallerIds(impact: unknown): string[] {
  const ids = new Set<string>();
  const isCall = (rel: unknown): boolean => {
    // impact joins the relations of one dependent with '+' (`calls+tests`).
    const names = (Array.isArray(rel) ? rel : [rel]).flatMap((r) => (typeof r === 'string' ? r.split('+') : []));
    return names.some((r) => CALL_RELATIONS.some((c) => r.replace(/[<>-]/g, '') === c));
  };
  const visit = (value: unknown, key: string): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v, key);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const o = value as Record<string, unknown>;
    if (key !== 'node' && typeof o.id === 'string' && (o.depth === undefined || o.depth === 1) && isCall(o.relation ?? o.relations)) ids.add(o.id);
    for (const [k, v] of Object.entries(o)) if (k !== 'chain' && k !== 'node') visit(v, k);
  };
  visit(impact, '');
  return [...ids];
}

/** Direct callers from the graph's in-edges (the fallback when the verb errs). */
function graphCallerIds(engine: CodeGraphEngine, id: string): string[] {
  const g = engine.graph;
  const target = g.indexOf(id);
  if (target === undefined || target < 0) return [];
  const codes = new Set(CALL_RELATIONS.map((r) => RELATIONS.indexOf(r)));
  const out: string[] = [];
  g.forEachIn(target, (source, _w, rel) => {
    if (codes.has(rel)) out.push(g.node(source)!.id);
  });
  return out;
}

/** Nodes of each file, for mapping by path. */
function nodesByPath(engine: CodeGraphEngine): Map<string, GraphNode[]> {
  const byPath = new Map<string, GraphNode[]>();
  for (const [, n] of engine.graph.nodes()) {
    if (n.kind === 'module' || n.kind === 'section') continue;
    let list = byPath.get(n.path);
    if (!list) byPath.set(n.path, (list = []));
    list.push(n);
  }
  return byPath;
}

const span = (n: GraphNode): number => n.endLine - n.startLine;
const labelOf = (n: GraphNode): string => bareName(n.qualifiedName ?? n.label);

/** The m1nd node of a ground-truth declaration: same path and name, its span holding the name's line (else the only one of that name). */
export function mapDeclaration(byPath: Map<string, GraphNode[]>, d: TruthDeclaration): GraphNode | null {
  const nodes = byPath.get(d.path) ?? [];
  let same = nodes.filter((n) => (n.kind === 'function' || n.kind === 'method') && labelOf(n) === bareName(d.name));
  // A JavaScript constructor function (`function Ruler() {…}` given prototype methods) is a class node in m1nd.
  if (same.length === 0 && d.kind === 'function') same = nodes.filter((n) => n.kind === 'class' && labelOf(n) === bareName(d.name) && n.startLine <= d.line && d.line <= n.endLine);
  const holding = same.filter((n) => n.startLine <= d.line && d.line <= n.endLine).sort((a, b) => span(a) - span(b));
  if (holding.length) return holding[0];
  return same.length === 1 ? same[0] : null;
}

const callerKey = (c: TruthCaller): string => `${c.path}:${c.line}`;

/** Whether m1nd has a node a true caller could be: its file, or a symbol of its name (or a constructor) spanning its line. */
function callerHasNode(byPath: Map<string, GraphNode[]>, c: TruthCaller): boolean {
  const nodes = byPath.get(c.path) ?? [];
  if (c.name === null) return nodes.some((n) => n.kind === 'file');
  const name = bareName(c.name);
  return nodes.some((n) => n.kind !== 'file' && (labelOf(n) === name || labelOf(n) === 'constructor') && n.startLine <= c.line && c.line <= n.endLine);
}

/**
 * The truth key an m1nd caller node stands for, or its own id when it matches no true caller. A
 * node that is not the true caller but encloses it (a method holding the named arrow function the
 * checker reports) stands for it too, counted apart as `enclosing`.
 */
export function predictedKey(n: GraphNode, truth: readonly TruthCaller[], counts = { enclosing: 0 }): string {
  if (n.kind === 'file') return `${n.path}:0`;
  const label = labelOf(n);
  const match = truth.find((c) => c.name !== null && c.path === n.path && bareName(c.name) === label && n.startLine <= c.line && c.line <= n.endLine);
  if (match) return callerKey(match);
  // The TypeScript call hierarchy reports code in a constructor as the class itself: the same caller.
  const owner = (n.qualifiedName ?? '').split('.').slice(-2, -1)[0];
  if (label === 'constructor' && owner) {
    const cls = truth.filter((c) => c.name !== null && c.path === n.path && bareName(c.name) === owner && c.line <= n.startLine).sort((a, b) => b.line - a.line)[0];
    if (cls) return callerKey(cls);
  }
  // pyright's call hierarchy reports code in a Python class body (decorators, class attributes) as
  // the function the class is defined in, or the module: m1nd's class caller is that caller.
  if (n.kind === 'class' && n.path.endsWith('.py')) {
    const outer = (n.qualifiedName ?? '').split('.').slice(-2, -1)[0];
    const fn = outer ? truth.filter((c) => c.name !== null && c.path === n.path && bareName(c.name) === outer && c.line <= n.startLine).sort((a, b) => b.line - a.line)[0] : truth.find((c) => c.name === null && c.path === n.path);
    if (fn) return callerKey(fn);
  }
  // A function named by the variable holding it (`const res = function action() {…}`: m1nd's `res`, the checker's `action`).
  const same = n.kind === 'function' ? truth.find((c) => c.name !== null && c.path === n.path && c.line === n.startLine) : undefined;
  if (same) return callerKey(same);
  const inner = truth.find((c) => c.name !== null && c.path === n.path && n.startLine < c.line && c.line <= n.endLine);
  if (inner && (n.kind === 'function' || n.kind === 'method')) {
    counts.enclosing++;
    return callerKey(inner);
  }
  return `m1nd:${n.id}`;
}

/** Test files by the usual conventions (Go `_test.go`, Python `test_*.py`/`conftest.py`, test directories, `*.test.*`/`*.spec.*`). */
export function isTestPath(p: string): boolean {
  return /(^|\/)(tests?|__tests__|testing)\//.test(p) || /_test\.go$/.test(p) || /(^|\/)(test_[^/]*|[^/]*_test|conftest)\.py$/.test(p) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(p);
}

/**
 * Stratified seeded sample of declarations outside test files (tests are callers, rarely callees):
 * up to `perKind` functions and `perKind` methods, topped up from the other kind.
 */
export function sampleDeclarations(decls: readonly TruthDeclaration[], perKind: number, seed: number): TruthDeclaration[] {
  const fns = decls.filter((d) => d.kind === 'function' && !isTestPath(d.path));
  const methods = decls.filter((d) => d.kind === 'method' && !isTestPath(d.path));
  const nf = Math.min(fns.length, Math.max(perKind, 2 * perKind - methods.length));
  const nm = Math.min(methods.length, Math.max(perKind, 2 * perKind - fns.length));
  return [...seededSample(fns, nf, seed), ...seededSample(methods, nm, seed + 1)];
}

/** Compares m1nd's direct callers with the truth for every sampled declaration. */
export async function scoreCallers(call: CallVerb, engine: CodeGraphEngine, sample: readonly TruthDeclaration[]): Promise<{ scores: CallerScore[]; fallbacks: number; verbGraphDisagreements: number; misses: unknown[] }> {
  const byPath = nodesByPath(engine);
  const scores = new Map<string, CallerScore>();
  let fallbacks = 0;
  let verbGraphDisagreements = 0;
  const misses: unknown[] = [];
  for (const d of sample) {
    const s = scores.get(d.kind) ?? { kind: d.kind, declarations: 0, unmapped: 0, withCallers: 0, enclosing: 0, missedWithoutNode: 0, direct: { truth: 0, found: 0 }, reachable: { truth: 0, found: 0 }, confusion: { tp: 0, fp: 0, fn: 0 } };
    scores.set(d.kind, s);
    // A recursive call is the declaration calling itself: not a dependent, and the graph drops self-loops.
    const truth = d.callers.filter((c) => !(c.path === d.path && c.line === d.line));
    s.declarations++;
    if (truth.length) s.withCallers++;
    const node = mapDeclaration(byPath, d);
    if (!node) {
      s.unmapped++;
      const sub = recallSubsets(truth, new Set());
      s.direct = addRecalled(s.direct, sub.direct);
      s.reachable = addRecalled(s.reachable, sub.reachable);
      s.confusion = addConfusion(s.confusion, confusion([], truth.map(callerKey)));
      continue;
    }
    const answer = await call('impact', { node_id: node.id, direction: 'reverse', max_depth: 1, top_k: 500, detail: 'full', include_causal_chains: false });
    let ids: string[];
    const fromGraph = graphCallerIds(engine, node.id);
    if (answer.isError) {
      fallbacks++;
      ids = fromGraph;
    } else ids = directCallerIds(answer.json);
    // The verb may hide edges the graph holds (a confidence cut, a top_k): counted, so a change shows.
    const c0 = confusion(ids.filter((id) => id !== node.id), fromGraph.filter((id) => id !== node.id));
    if (c0.fp || c0.fn) verbGraphDisagreements++;
    const predicted = ids
      .filter((id) => id !== node.id)
      .map((id) => engine.getNode(id))
      .filter((n): n is GraphNode => n !== null)
      .map((n) => predictedKey(n, truth, s));
    const c = confusion(predicted, truth.map(callerKey));
    s.confusion = addConfusion(s.confusion, c);
    const got = new Set(predicted);
    const sub = recallSubsets(truth, got);
    s.direct = addRecalled(s.direct, sub.direct);
    s.reachable = addRecalled(s.reachable, sub.reachable);
    for (const t of truth) if (!got.has(callerKey(t)) && !callerHasNode(byPath, t)) s.missedWithoutNode++;
    if ((c.fp || c.fn) && misses.length < 400) {
      const t = new Set(truth.map(callerKey));
      const p = new Set(predicted);
      misses.push({ declaration: `${d.path}:${d.line} ${d.name}`, node: node.id, missing: truth.filter((x) => !p.has(callerKey(x))).map((x) => `${x.path}:${x.line} ${x.name ?? '(file)'}`), extra: predicted.filter((k) => !t.has(k)) });
    }
  }
  return { scores: [...scores.values()], fallbacks, verbGraphDisagreements, misses };
}
