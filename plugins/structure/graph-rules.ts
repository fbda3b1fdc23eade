/**
 * The scan presets that are graph conditions rather than code shapes: `api_surface` (exported
 * symbols other files use, without documentation: no doc comment and no guide section naming them) and `test_coverage` (exported or depended-on
 * symbols that no test reaches: no `tests` edge to them or their file, no use from a test file).
 */
import { DEPENDENCY_RELATIONS, RELATION_CODE, ensureFinal, fileIndexOf, warmFileIndex, type CodeGraph, type GraphNode } from '../graph/api.ts';
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
    if (presets.has('test_coverage') && (n.exported || dependents > 0) && n.kind !== 'type' && n.kind !== 'interface' && !reachedByTest(g, i, fileOf)) {
      out.push({ preset: 'test_coverage', rule: 'graph.untested_symbol', node: n, dependents, severity: weigh(0.3, dependents), message: `${n.kind} \`${n.label}\` is ${dependents > 0 ? `used from ${dependents} other file(s)` : 'exported'} but no test reaches it` });
    }
  }
  return out;
}
