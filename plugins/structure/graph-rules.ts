/**
 * The scan presets that are graph conditions rather than code shapes: `api_surface` (exported
 * symbols other files use, without documentation: no doc comment and no guide section naming them) and `test_coverage` (exported or depended-on
 * symbols that no test reaches: no chain of calls, references or inheritance from test code to them).
 */
import { DEPENDENCY_RELATIONS, RELATION_CODE, containerOf, edgeConfidence, ensureFinal, fileIndexOf, isConstructorOf, warmFileIndex, type CodeGraph, type GraphNode } from '../graph/api.ts';
import type { PresetName } from './code-rules.ts';

const USE = new Uint8Array(32);
for (const r of DEPENDENCY_RELATIONS) USE[RELATION_CODE[r]] = 1;
const TESTS = RELATION_CODE.tests;
const SYMBOLS = new Set(['function', 'method', 'class', 'interface', 'type']);

/** A graph-rule finding before the file's code is read. */
export interface GraphFinding {
  preset: PresetName;
  rule: string;
  node: GraphNode;
  severity: number;
  message: string;
  dependents: number;
}

/** Distinct other files whose code uses node `i`. */
export function dependentFiles(g: CodeGraph, i: number, fileOf: Int32Array): number {
  const files = new Set<number>();
  for (let k = g.inOffsets[i]; k < g.inOffsets[i + 1]; k++) {
    const e = g.inEdges[k];
    if (!g.edgeAlive[e] || !USE[g.edgeRelation[e]]) continue;
    const f = fileOf[g.edgeSource[e]];
    if (f >= 0 && f !== fileOf[i]) files.add(f);
  }
  return files.size;
}

/** True when a test reaches node `i` (a `tests` edge to it or its file, or a use from a test file). */
export function reachedByTest(g: CodeGraph, i: number, fileOf: Int32Array): boolean {
  for (const target of [i, fileOf[i]]) {
    if (target < 0) continue;
    for (let k = g.inOffsets[target]; k < g.inOffsets[target + 1]; k++) {
      const e = g.inEdges[k];
      if (!g.edgeAlive[e]) continue;
      if (g.edgeRelation[e] === TESTS) return true;
      if (target === i && USE[g.edgeRelation[e]]) {
        const f = fileOf[g.edgeSource[e]];
        if (f >= 0 && g.node(f)?.isTest) return true;
      }
    }
  }
  return false;
}

/** Edges a test's run follows: uses of code, trait/interface dispatch, and the graph's test links. */
const RUNS = new Uint8Array(32);
for (const r of [...DEPENDENCY_RELATIONS, 'dispatches', 'tests'] as const) RUNS[RELATION_CODE[r]] = 1;
const IMPORTS = RELATION_CODE.imports;
const CALLS = RELATION_CODE.calls;
const INHERITS = RELATION_CODE.inherits;
const IMPLEMENTS = RELATION_CODE.implements;
const CONTAINS_CODE = RELATION_CODE.contains;
/** Links resolved below this confidence (name guesses) do not carry a test's reach past its own uses. */
const MIN_REACH_CONFIDENCE = 0.5;
const FILE_KINDS = new Set(['file', 'module']);

/**
 * The nodes test code reaches: every node of a test file, then along calls, references,
 * inheritance, dispatches and test links, transitively (past test code's own uses, links resolved
 * with confidence ≥ 0.5); a call of a
 * class reaches its constructor, a call of a method its overrides in subclasses. An import
 * reaches a file (its top-level code runs) but none of its symbols: a test importing a module, or a
 * Go test its whole package, says nothing about which functions it runs.
 */
export async function testReach(g: CodeGraph, fileOf: Int32Array, pace: () => Promise<void>): Promise<Uint8Array> {
  const reached = new Uint8Array(g.nodeCapacity);
  const queue: number[] = [];
  let k = 0;
  for (const [i] of g.nodes()) {
    if ((++k & 1023) === 0) await pace();
    const f = fileOf[i];
    if (f >= 0 && g.node(f)?.isTest) {
      reached[i] = 1;
      queue.push(i);
    }
  }
  // Test code's own uses count at any confidence (what a test names, it runs); the hops beyond need ≥ 0.5.
  const seeds = queue.length;
  const reach = (t: number) => {
    if (reached[t]) return;
    reached[t] = 1;
    queue.push(t);
  };
  // A call of a class runs its constructor (__init__, constructor, a same-named method).
  const built = new Uint8Array(g.nodeCapacity);
  const construct = (cls: number, node: GraphNode) => {
    if (built[cls]) return;
    built[cls] = 1;
    g.forEachOut(cls, (m, _w, relation, edge) => {
      const member = relation === CONTAINS_CODE && g.isEdgeAlive(edge) ? g.node(m) : null;
      if (member?.kind === 'method' && isConstructorOf(member, node)) reach(m);
    });
  };
  // A call of a method may run an override of it: the same-named method of a class inheriting or implementing its class.
  const overrides = (cls: number, label: string, seen: Set<number>) => {
    for (let k = g.inOffsets[cls]; k < g.inOffsets[cls + 1]; k++) {
      const e = g.inEdges[k];
      const sub = g.edgeSource[e];
      if (!g.edgeAlive[e] || (g.edgeRelation[e] !== INHERITS && g.edgeRelation[e] !== IMPLEMENTS) || seen.has(sub)) continue;
      seen.add(sub);
      let own = -1;
      g.forEachOut(sub, (m, _w, relation, edge) => {
        if (own < 0 && relation === CONTAINS_CODE && g.isEdgeAlive(edge) && g.node(m)?.kind === 'method' && g.node(m)!.label === label) own = m;
      });
      if (own >= 0) reach(own);
      else overrides(sub, label, seen);
    }
  };
  for (let q = 0; q < queue.length; q++) {
    if ((q & 1023) === 1023) await pace();
    const v = queue[q];
    const node = g.node(v);
    if (node?.kind === 'method') {
      const cls = containerOf(g, v);
      if (cls >= 0) overrides(cls, node.label, new Set([cls]));
    }
    const fromTest = q < seeds;
    g.forEachOut(v, (t, _w, relation, edge) => {
      if (!RUNS[relation] || !g.isEdgeAlive(edge) || (!fromTest && edgeConfidence(g, edge) < MIN_REACH_CONFIDENCE)) return;
      const target = g.node(t);
      if (!target || (relation === IMPORTS) !== FILE_KINDS.has(target.kind)) return;
      if (relation === CALLS && target.kind === 'class') construct(t, target);
      reach(t);
    });
  }
  return reached;
}

/** Whether any code calls, references or dispatches to node `i` (a link the graph resolved). */
function hasStaticCaller(g: CodeGraph, i: number): boolean {
  for (let k = g.inOffsets[i]; k < g.inOffsets[i + 1]; k++) {
    const e = g.inEdges[k];
    if (g.edgeAlive[e] && RUNS[g.edgeRelation[e]] && g.edgeRelation[e] !== IMPORTS && g.edgeRelation[e] !== TESTS) return true;
  }
  return false;
}

/**
 * Whether test code reaches node `i`: itself, or for a class or interface one of its members. A
 * method no code calls by a link the graph resolved (run by the language — `len(x)`, `with`, an
 * operator —, through an interface, as a callback or framework hook: the graph cannot see the call)
 * counts as reached when test code reaches its class or a test is linked to its file.
 */
function testedBy(g: CodeGraph, reached: Uint8Array, i: number, fileOf: Int32Array): boolean {
  if (reached[i]) return true;
  const kind = g.node(i)?.kind;
  if (kind === 'method') {
    if (hasStaticCaller(g, i)) return false;
    const cls = containerOf(g, i);
    return (cls >= 0 && reached[cls] === 1) || reachedByTest(g, fileOf[i], fileOf);
  }
  if (kind !== 'class' && kind !== 'interface') return false;
  let member = false;
  g.forEachOut(i, (t, _w, relation, edge) => {
    if (!member && relation === CONTAINS_CODE && g.isEdgeAlive(edge) && reached[t]) member = true;
  });
  return member;
}

const DOCUMENTS = RELATION_CODE.documents;
/** Release notes name symbols to say they changed, not to document them. */
const RELEASE_NOTES = /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_ ]?NOTES)[^/]*$/i;

/** True when a Markdown section documents node `i` (a `documents` edge from a guide or API page, not from release notes). */
export function documentedInDocs(g: CodeGraph, i: number): boolean {
  for (let k = g.inOffsets[i]; k < g.inOffsets[i + 1]; k++) {
    const e = g.inEdges[k];
    if (!g.edgeAlive[e] || g.edgeRelation[e] !== DOCUMENTS) continue;
    const from = g.node(g.edgeSource[e]);
    if (from && !RELEASE_NOTES.test(from.path)) return true;
  }
  return false;
}

const weigh = (base: number, dependents: number) => Math.min(0.9, base + 0.1 * Math.log2(1 + dependents));

/** Findings of the graph presets among `presets`, for symbols whose path is in scope. */
export async function graphFindings(g: CodeGraph, presets: ReadonlySet<PresetName>, inScope: (path: string) => boolean, pace: () => Promise<void>): Promise<GraphFinding[]> {
  if (!presets.has('api_surface') && !presets.has('test_coverage')) return [];
  ensureFinal(g);
  await warmFileIndex(g, pace);
  const fileOf = fileIndexOf(g);
  const reached = presets.has('test_coverage') ? await testReach(g, fileOf, pace) : null;
  const out: GraphFinding[] = [];
  let k = 0;
  for (const [i, n] of g.nodes()) {
    // Each symbol walks its dependents and the tests reaching it: a stdlib-sized graph is ~60 ms in all.
    if ((++k & 255) === 0) await pace();
    if (!SYMBOLS.has(n.kind) || !inScope(n.path)) continue;
    const file = fileOf[i] >= 0 ? g.node(fileOf[i]) : null;
    if (!file || file.isTest || file.language === 'markdown') continue;
    const dependents = dependentFiles(g, i, fileOf);
    if (presets.has('api_surface') && n.exported && !n.doc && dependents > 0 && !documentedInDocs(g, i)) {
      out.push({ preset: 'api_surface', rule: 'graph.undocumented_export', node: n, dependents, severity: weigh(0.3, dependents), message: `exported ${n.kind} \`${n.label}\` is used from ${dependents} other file(s) but has no documentation` });
    }
    if (presets.has('test_coverage') && (n.exported || dependents > 0) && n.kind !== 'type' && n.kind !== 'interface' && reached && !testedBy(g, reached, i, fileOf)) {
      out.push({ preset: 'test_coverage', rule: 'graph.untested_symbol', node: n, dependents, severity: weigh(0.3, dependents), message: `${n.kind} \`${n.label}\` is ${dependents > 0 ? `used from ${dependents} other file(s)` : 'exported'} but no test reaches it` });
    }
  }
  return out;
}
