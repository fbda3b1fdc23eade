/**
 * Normalised AST shapes for `twins` and shape antibodies: a symbol's subtree read in pre-order as
 * node types (names and literal values drop out, operators stay), cut into 5-token shingles hashed
 * to integers. Two copies of a function with renamed variables have the same shingles. Shapes come
 * from the file facts (facts-cache.ts: every definition's shape from one parse per file content).
 */
import type { GraphNode, GraphService, Language } from '../graph/api.ts';
import type { Deadline } from './deadline.ts';
import { coldShapes } from './cold-shapes.ts';
import { asVerbWork, factsOf, POOL_MIN_FILES } from './facts-cache.ts';
import type { DefinitionShape, Shape } from './definition-shapes.ts';

export type { Shape };

/** The definition of `s` among a file's definitions: the graph's range may start at a decorator or doc comment, so the first fitting definition within 8 lines. */
function definitionOf(byRow: Map<number, DefinitionShape[]>, s: GraphNode): DefinitionShape | null {
  for (let row = s.startLine - 1; row < Math.min(s.endLine, s.startLine + 8); row++) {
    const hit = (byRow.get(row) ?? []).find((d) => d.endRow + 1 <= s.endLine);
    if (hit) return hit;
  }
  return null;
}

function rowsOf(defs: readonly DefinitionShape[]): Map<number, DefinitionShape[]> {
  const out = new Map<number, DefinitionShape[]>();
  for (const d of defs) {
    const list = out.get(d.row);
    if (list) list.push(d);
    else out.set(d.row, [d]);
  }
  return out;
}

/** The shapes of `list` (symbols of one file) among the file's definitions, into `into`. */
export function definitionShapesOf(defs: readonly DefinitionShape[], list: readonly GraphNode[], into: Map<string, Shape>): void {
  const byRow = rowsOf(defs);
  for (const s of list) {
    const d = definitionOf(byRow, s);
    if (d) into.set(s.id, d); // a DefinitionShape is a Shape: no copy per symbol
  }
}

/** What `collectShapes` did. */
export interface ShapesOutcome {
  shapes: Map<string, Shape>;
  filesDone: number;
  filesTotal: number;
  workers: number;
  fromStore: number;
  /** Files parsed (for their facts, or for their candidates' shapes on a cold call). */
  parsed: number;
  /** A cold call (cold-shapes.ts): files sketched and candidate symbols; absent otherwise. */
  cold?: { sketched: number; candidates: number };
}

/**
 * Shapes of every symbol given (any files), within the deadline: the missing files' facts are
 * computed. With `cold` (twins), when many files have no facts yet (at least the pool's threshold),
 * only the candidate symbols' shapes are made instead (cold-shapes.ts), and `onFile` is called with
 * each file's symbols, in a fixed order, as soon as that file's shapes are in (the outcome's `cold`
 * says it was; otherwise it is not called).
 */
export async function collectShapes(graph: GraphService, symbols: readonly GraphNode[], deadline: Deadline, options: { cold?: boolean; onFile?: (list: readonly GraphNode[], shapes: ReadonlyMap<string, Shape>) => Promise<void> } = {}): Promise<ShapesOutcome> {
  const byFile = new Map<string, GraphNode[]>();
  for (const s of symbols) {
    if (!s.language) continue;
    const list = byFile.get(s.path);
    if (list) list.push(s);
    else byFile.set(s.path, [s]);
  }
  const files = [...byFile].map(([path, list]) => ({ path, language: list[0].language as Language }));
  const known = await factsOf(graph, files, deadline, { lookupOnly: true });
  const missing = known.missing ?? [];
  const coldCall = options.cold === true && missing.length >= POOL_MIN_FILES;
  const outcome = coldCall ? known : await factsOf(graph, missing, deadline);
  const shapes = new Map<string, Shape>();
  let filesDone = 0;
  for (const facts of [known.facts, coldCall ? null : outcome.facts]) {
    for (const [path, f] of facts ?? []) {
      filesDone++;
      definitionShapesOf(f.defs, byFile.get(path)!, shapes);
      await deadline.pace(); // a file's shapes can take a few ms (the stdlib's largest test files)
    }
  }
  if (coldCall) {
    // As verb work: the background facts job starts no slice meanwhile (its workers would be the same).
    const cold = await asVerbWork(() => coldShapes(graph, byFile, new Set(missing.map((m) => m.path)), shapes, deadline, options.onFile));
    return { shapes, filesDone: byFile.size - cold.unfinished, filesTotal: byFile.size, workers: cold.workers, fromStore: known.fromStore, parsed: cold.parsed, cold: { sketched: cold.sketched, candidates: cold.candidates } };
  }
  return { shapes, filesDone, filesTotal: byFile.size, workers: outcome.workers, fromStore: known.fromStore, parsed: outcome.computed };
}

/** Jaccard of two sorted shingle sets (`jaccardAtLeast` with no threshold: the whole merge). */
export function jaccard(a: Int32Array, b: Int32Array): number {
  return jaccardAtLeast(a, b, 0);
}

/**
 * Jaccard of two sorted shingle sets when it is at least `least`, else −1, read only as far as it
 * takes to know: J ≥ t exactly when the shared count is ≥ t(|a| + |b|)/(1 + t), so the merge stops
 * once either set has more unmatched members than that allows (most compared pairs of an LSH bucket
 * fall short early). The bound is lowered by 1e-6 so a pair at the threshold is never cut.
 */
export function jaccardAtLeast(a: Int32Array, b: Int32Array, least: number): number {
  return jaccardOfRuns(a, 0, a.length, b, 0, b.length, least);
}

/** `jaccardAtLeast` of the sets a[aFrom, aFrom + aLength) and b[bFrom, bFrom + bLength) (sets kept in shared arrays). */
export function jaccardOfRuns(a: Int32Array, aFrom: number, aLength: number, b: Int32Array, bFrom: number, bLength: number, least: number): number {
  const need = (least * (aLength + bLength)) / (1 + least) - 1e-6;
  const spareA = aLength - need;
  const spareB = bLength - need;
  const aEnd = aFrom + aLength;
  const bEnd = bFrom + bLength;
  let i = aFrom;
  let j = bFrom;
  let both = 0;
  let missA = 0;
  let missB = 0;
  while (i < aEnd && j < bEnd) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      both++;
      i++;
      j++;
    } else if (x < y) {
      i++;
      if (++missA > spareA) return -1;
    } else {
      j++;
      if (++missB > spareB) return -1;
    }
  }
  if (missA + aEnd - i > spareA || missB + bEnd - j > spareB) return -1;
  const union = aLength + bLength - both;
  const exact = union === 0 ? 0 : both / union;
  return exact >= least ? exact : -1;
}
