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
import { unpackDefinitions } from './cold-shapes-work.ts';
import { SketchReader } from './lexical-shapes.ts';
import type { Deadline } from './deadline.ts';
import { runJob } from './facts-cache.ts';
import type { FactsTask } from './facts-pool.ts';
import type { Shape } from './definition-shapes.ts';
import { definitionShapesOf } from './shapes.ts';
import { LshIndex } from './lsh-index.ts';

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

/** Pair looks (a Jaccard each at most) between two paces of the candidate pick. */
const LOOKS_PER_PACE = 2_000;

/** Candidate pick from the sketches in a fixed order: files in `byFile` order, each file's symbols in order; a kind pairs with its own kind only. */
class CandidatePick {
  private readonly byKind = new Map<string, { index: LshIndex; ids: string[] }>();
  private looks = 0;

  /** `expected`: symbols of each kind that may be added (sizes the indexes). */
  constructor(
    private readonly threshold: number,
    private readonly expected: ReadonlyMap<string, number> = new Map(),
  ) {}

  /** Adds one file's sketched symbols (those with a sketch), pacing as the looks add up. */
  async addFile(symbols: readonly GraphNode[], sketches: readonly (Shape | undefined)[], pace: () => Promise<void>): Promise<void> {
    for (let i = 0; i < symbols.length; i++) {
      const sketch = sketches[i];
      if (sketch && this.added(symbols[i], this.kind(symbols[i]).index.add(sketch))) await pace();
    }
  }

  /** `addFile` from a worker batch's packed sketches (the file's record after its count, read with `SketchReader`), with no object per sketch. */
  async addPacked(symbols: readonly GraphNode[], packed: Int32Array, at: number, pace: () => Promise<void>): Promise<void> {
    const sketch = new SketchReader(packed, at);
    for (let i = 0; i < symbols.length; i++) {
      sketch.next();
      if (sketch.signed && this.added(symbols[i], this.kind(symbols[i]).index.addRun(packed, sketch.shinglesAt, sketch.length, packed, sketch.shinglesAt + sketch.length))) await pace();
    }
  }

  private kind(symbol: GraphNode): { index: LshIndex; ids: string[] } {
    let kind = this.byKind.get(symbol.kind);
    if (!kind) this.byKind.set(symbol.kind, (kind = { index: new LshIndex(this.threshold, { rows: SKETCH_ROWS, pairs: false, expected: this.expected.get(symbol.kind) }), ids: [] }));
    return kind;
  }

  /** Records the symbol at its index; true when the looks since the last pace call for one. */
  private added(symbol: GraphNode, { index, looks }: { index: number; looks: number }): boolean {
    this.byKind.get(symbol.kind)!.ids[index] = symbol.id;
    if ((this.looks += looks + 1) < LOOKS_PER_PACE) return false;
    this.looks = 0;
    return true;
  }

  /** The ids of the symbols with a partner. */
  done(): Set<string> {
    const out = new Set<string>();
    for (const { index, ids } of this.byKind.values()) for (let i = 0; i < ids.length; i++) if (index.covered(i)) out.add(ids[i]);
    return out;
  }
}

/** The symbols whose lexical sketch has an LSH partner of the same kind with sketch Jaccard ≥ SKETCH_THRESHOLD. */
export async function pickCandidates(byFile: Iterable<readonly GraphNode[]>, sketches: ReadonlyMap<string, Shape>, pace: () => Promise<void>, threshold = SKETCH_THRESHOLD): Promise<Set<string>> {
  const pick = new CandidatePick(threshold);
  for (const list of byFile) await pick.addFile(list, list.map((s) => sketches.get(s.id)), pace);
  return pick.done();
}

/**
 * Steps run one after another as callbacks that cannot wait queue them (a batch landing); `done()`
 * waits for the last and rethrows the first failure. A failure is held, never left as a rejection
 * nobody handles until `done()` (which would stop the process), and the steps after it are skipped.
 */
function inOrder(): { queue(step: () => Promise<void>): void; done(): Promise<void> } {
  let tail: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  return {
    queue(step) {
      tail = tail.then(() => (failure ? undefined : step())).catch((error: unknown) => {
        failure ??= { error };
      });
    },
    async done() {
      await tail;
      if (failure) throw failure.error;
    },
  };
}

function rangesOf(list: readonly GraphNode[]): number[] {
  const out: number[] = [];
  for (const s of list) out.push(s.startLine, s.endLine);
  return out;
}

/**
 * Shapes of the candidate symbols of the `missing` files into `shapes` (which holds the shapes of
 * the other files' symbols already). `byFile`: every compared symbol by file. `onFile`, when given,
 * is called for every file of `byFile`, in that order, as soon as its shapes are all in (while the
 * workers parse the files after it).
 */
export async function coldShapes(graph: GraphService, byFile: ReadonlyMap<string, GraphNode[]>, missing: ReadonlySet<string>, shapes: Map<string, Shape>, deadline: Deadline, onFile?: (list: readonly GraphNode[], shapes: ReadonlyMap<string, Shape>) => Promise<void>): Promise<ColdOutcome> {
  // 1. Sketches of every compared symbol (those with a known shape too: they may pair with a missing
  // one), 2. picked as they land (the main thread is idle meanwhile), in task order: a file's
  // sketches wait for those of the files before it, so the pick never depends on which batch came first.
  const tasks: FactsTask[] = [];
  for (const [path, list] of byFile) tasks.push({ path, language: list[0].language as Language, ranges: rangesOf(list) });
  const order = new Map(tasks.map((t, k) => [t, k]));
  /** Per task: its file's sketches in a batch's packed array (after the count), null once picked or unreadable, undefined until landed. */
  const landed: ({ packed: Int32Array; at: number } | null | undefined)[] = new Array(tasks.length);
  const kinds = new Map<string, number>();
  for (const list of byFile.values()) for (const s of list) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
  const pick = new CandidatePick(SKETCH_THRESHOLD, kinds);
  let next = 0;
  let sketched = 0;
  const picking = inOrder();
  const drain = async (skipMissing: boolean) => {
    while (next < tasks.length && (landed[next] !== undefined || skipMissing)) {
      const k = next++;
      const sketches = landed[k];
      landed[k] = null; // done with (the views on the batch's buffer go with it)
      if (sketches) await pick.addPacked(byFile.get(tasks[k].path)!, sketches.packed, sketches.at, () => deadline.pace());
    }
  };
  const sketchWorkers = await runJob(graph, 'sketch', tasks, SKETCH_BATCH_FILES, deadline, (batch, packed) => {
    let at = 0;
    for (let k = 0; k < batch.length; k++) {
      const count = packed[at++];
      if (count < 0) {
        landed[order.get(batch[k])!] = null; // unreadable: nothing to pick from
        continue;
      }
      sketched++;
      landed[order.get(batch[k])!] = { packed, at };
      const past = new SketchReader(packed, at);
      for (let i = 0; i < count; i++) past.next();
      at = past.at;
    }
    picking.queue(() => drain(false));
  });
  const sketchedFiles = new Set(tasks.filter((_, k) => landed[k] !== undefined).map((t) => t.path));
  picking.queue(() => drain(true)); // the files left by the deadline are skipped
  await picking.done();
  const candidates = pick.done();
  // 3. The candidates' AST shapes, for the files without facts; `onFile` gets every file, in order, once its shapes are in.
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
  const files = [...byFile];
  let nextFile = 0;
  const feeding = inOrder();
  const feed = async (skipMissing: boolean) => {
    while (onFile && nextFile < files.length) {
      const [path, list] = files[nextFile];
      if (!skipMissing && wanted.has(path) && !parsedFiles.has(path)) return;
      nextFile++;
      await onFile(list, shapes);
    }
  };
  const shapeWorkers = await runJob(graph, 'shapes', shapeTasks, SHAPES_BATCH_FILES, deadline, (batch, packed) => {
    const defsOf = unpackDefinitions(packed);
    for (let k = 0; k < batch.length; k++) {
      parsed++;
      parsedFiles.add(batch[k].path);
      const defs = defsOf[k];
      if (defs) definitionShapesOf(defs, wanted.get(batch[k].path)!, shapes);
    }
    feeding.queue(() => feed(false));
  });
  feeding.queue(() => feed(true)); // files left by the deadline: without their candidates' shapes
  await feeding.done();
  let unfinished = 0;
  for (const path of missing) if (!sketchedFiles.has(path) || (wanted.has(path) && !parsedFiles.has(path))) unfinished++;
  return { sketched, candidates: candidates.size, parsed, workers: Math.max(sketchWorkers, shapeWorkers), unfinished };
}
