/**
 * AST shapes for a cold `twins` (no facts for most files yet: right after an ingest, before the
 * background facts job is done, or a new process without the facts table). Parsing every file for
 * its shapes costs several seconds on a large workspace, and only a fraction of the symbols have a
 * twin. So, in the facts workers:
 * 1. `sketch`: every symbol's lexical MinHash sketch, read from the text (no parse);
 * 2. candidates: the symbols whose sketch has an LSH partner of lexical Jaccard ≥ SKETCH_THRESHOLD —
 *    a looser bar than the AST one, so that almost every AST pair has both ends among them (recall
 *    measured by bench/structure-twins-recall.ts);
 * 3. `shapes`: the candidates' AST shapes, parsing their files (a Python file on their line ranges only).
 * `twins` then compares the candidates' AST shapes as it compares the full set's.
 */
import type { GraphNode, GraphService, Language } from '../graph/api.ts';
import { SKETCH_MIN_TOKENS, unpackDefinitions, unpackSketches } from './cold-shapes-work.ts';
import type { Deadline } from './deadline.ts';
import { runJob } from './facts-cache.ts';
import type { FactsTask } from './facts-pool.ts';
import type { Shape } from './file-facts.ts';
import { definitionShapesOf } from './shapes.ts';
import { twinPairs } from './twin-pairs.ts';

/** Least lexical-sketch Jaccard that makes a symbol a candidate. */
export const SKETCH_THRESHOLD = 0.6;
/** LSH rows per band for the sketches (32 hashes: 8 bands). */
const SKETCH_ROWS = 4;
const SKETCH_BATCH_FILES = 24;
const SHAPES_BATCH_FILES = 12;

export interface ColdOutcome {
  /** Files whose symbols were sketched. */
  sketched: number;
  /** Symbols picked as candidates. */
  candidates: number;
  /** Files parsed for the candidates' shapes. */
  parsed: number;
  workers: number;
  /** Missing files left unfinished by the deadline (not sketched, or a candidate's file not parsed). */
  unfinished: number;
}

/** The symbols whose lexical sketch has an LSH partner of the same kind with sketch Jaccard ≥ SKETCH_THRESHOLD. */
export async function pickCandidates(byFile: Iterable<readonly GraphNode[]>, sketches: ReadonlyMap<string, Shape>, pace: () => Promise<void>, threshold = SKETCH_THRESHOLD): Promise<Set<string>> {
  const byKind = new Map<string, GraphNode[]>();
  for (const list of byFile) {
    for (const s of list) {
      if (!sketches.has(s.id)) continue;
      const l = byKind.get(s.kind);
      if (l) l.push(s);
      else byKind.set(s.kind, [s]);
    }
  }
  const candidates = new Set<string>();
  for (const nodes of byKind.values()) {
    const covered = new Uint8Array(nodes.length);
    await twinPairs(nodes.map((s) => sketches.get(s.id)!), threshold, Number.MAX_SAFE_INTEGER, { rows: SKETCH_ROWS, pace, covered });
    for (let i = 0; i < nodes.length; i++) if (covered[i]) candidates.add(nodes[i].id);
    await pace();
  }
  return candidates;
}

function rangesOf(list: readonly GraphNode[]): number[] {
  const out: number[] = [];
  for (const s of list) out.push(s.startLine, s.endLine);
  return out;
}

/**
 * Shapes of the candidate symbols of the `missing` files into `shapes` (which holds the shapes of
 * the other files' symbols already). `byFile`: every compared symbol by file.
 */
export async function coldShapes(graph: GraphService, byFile: ReadonlyMap<string, GraphNode[]>, missing: ReadonlySet<string>, shapes: Map<string, Shape>, deadline: Deadline): Promise<ColdOutcome> {
  // 1. Sketches of every compared symbol (those with a known shape too: they may pair with a missing one).
  const tasks: FactsTask[] = [];
  for (const [path, list] of byFile) tasks.push({ path, language: list[0].language as Language, ranges: rangesOf(list) });
  const sketches = new Map<string, Shape>();
  const sketchedFiles = new Set<string>();
  let sketched = 0;
  const sketchWorkers = await runJob(graph, 'sketch', tasks, SKETCH_BATCH_FILES, deadline, (batch, packed) => {
    const files = unpackSketches(packed);
    for (let k = 0; k < batch.length; k++) {
      const list = files[k];
      sketchedFiles.add(batch[k].path);
      if (!list) continue;
      sketched++;
      const symbols = byFile.get(batch[k].path)!;
      for (let i = 0; i < symbols.length && i < list.length; i++) if (list[i].tokens >= SKETCH_MIN_TOKENS) sketches.set(symbols[i].id, list[i]);
    }
  });
  await deadline.pace();
  // 2. Candidates: a sketch partner of the same kind (twins compares a kind with itself only).
  const candidates = await pickCandidates(byFile.values(), sketches, () => deadline.pace());
  // 3. The candidates' AST shapes, for the files without facts.
  const shapeTasks: FactsTask[] = [];
  const wanted = new Map<string, GraphNode[]>();
  for (const path of missing) {
    const list = (byFile.get(path) ?? []).filter((s) => candidates.has(s.id));
    if (!list.length) continue;
    wanted.set(path, list);
    shapeTasks.push({ path, language: list[0].language as Language, ranges: rangesOf(list) });
  }
  let parsed = 0;
  const parsedFiles = new Set<string>();
  const shapeWorkers = await runJob(graph, 'shapes', shapeTasks, SHAPES_BATCH_FILES, deadline, (batch, packed) => {
    const files = unpackDefinitions(packed);
    for (let k = 0; k < batch.length; k++) {
      parsed++;
      parsedFiles.add(batch[k].path);
      const defs = files[k];
      if (defs) definitionShapesOf(defs, wanted.get(batch[k].path)!, shapes);
    }
  });
  let unfinished = 0;
  for (const path of missing) if (!sketchedFiles.has(path) || (wanted.has(path) && !parsedFiles.has(path))) unfinished++;
  return { sketched, candidates: candidates.size, parsed, workers: Math.max(sketchWorkers, shapeWorkers), unfinished };
}
