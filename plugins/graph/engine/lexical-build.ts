/**
 * The full build of the seek index (lexical-index.ts) as a resumable step sequence: a generator that
 * yields every few nodes (tokenising) and every few thousand rows (packing), so the index can be
 * built in slices between other work on the event loop, or run to the end at once.
 */
import type { GraphNode } from './graph.ts';
import { IntRows, sortStrings, type TextSource } from './lexical-buffers.ts';
import { FieldScanner } from './lexical-fields.ts';
import { clearTextMemos, FIELDS, isTestNode, type FieldName } from './lexical-text.ts';
import { lowerBound } from './sorted-strings.ts';

/** Flag bit per node: the node lives in a test file. */
export const FLAG_TEST = 1;
/** Flag bit per node: a function or method whose body does no work — an accessor or a stub (isAccessorOrStub). */
export const FLAG_ACCESSOR = 2;

export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];
/** Field index in the low bits of a packed row, term id above. */
const FIELD_BITS = 3;
const FIELD_MASK = (1 << FIELD_BITS) - 1;
/**
 * Nodes tokenised between two yields: a symbol's fields take ~5-20 µs once its words are known, but
 * the first nodes of a build meet most words for the first time (each stemmed), and a node with a
 * long text or body takes milliseconds: 8 nodes measured up to ~10 ms of CPU in the view's build.
 */
const NODES_PER_STEP = 2;
/** Nodes whose rows are packed between two yields (512 measured 4-6 ms under load). */
const PACK_NODES_PER_STEP = 128;

/**
 * Postings of a full build, CSR-packed: term id → [offsets[id], offsets[id+1]) into nodes and tf.
 * Terms are found by binary search in the sorted vocabulary (`vocabIds[k]` is the id of
 * `vocabulary[k]`): no Map of every term is kept (hundreds of thousands on a big graph), and a
 * persisted index (lexical-persist.ts) loads without building one.
 */
export interface BaseIndex {
  offsets: Uint32Array;
  nodes: Int32Array;
  tf: Float32Array;
  /** Postings per node slot. */
  postingCounts: Int32Array;
  /** FLAG_* bits per node slot. */
  flags: Uint8Array;
  /** Each slot's `nodeKey` when indexed (null for empty slots); null when loaded from a file (the graph's keys then). */
  indexed: (object | null)[] | null;
  /** Mean length per field over the nodes that have it. */
  averages: Record<FieldName, number>;
  /** Live documents. */
  live: number;
  /** Graph version the build read. */
  version: number;
  /** Every term, sorted (term lookup and prefix expansion search it). */
  vocabulary: string[];
  /** Term id of each vocabulary entry. */
  vocabIds: Uint32Array;
}

/** What a build reads of a graph: its node slots (CodeGraph, or a worker's copy of the nodes). */
export interface NodeSlots {
  readonly version: number;
  readonly nodeCapacity: number;
  node(index: number): GraphNode | null;
  /** What change detection compares (CodeGraph.nodeKey); the node itself when absent. */
  nodeKey?(index: number): object | null;
}

/** Term id of `term` in a base index's sorted vocabulary, or -1. */
export function baseTermId(base: Pick<BaseIndex, 'vocabulary' | 'vocabIds'>, term: string): number {
  const at = lowerBound(base.vocabulary, term);
  return base.vocabulary[at] === term ? base.vocabIds[at] : -1;
}

/** Pass 1's state: the rows of every node indexed so far, and the build's term ids. */
class Rows {
  readonly termField = new IntRows();
  readonly count = new IntRows();
  /** Build term id by the scanner's term number (-1: not in any field yet); ids go by first use in a field. */
  ids = new Int32Array(1024).fill(-1);
  /** Term strings by build id. */
  readonly words: string[] = [];
  readonly sums = new Float64Array(FIELD_NAMES.length);
  readonly present = new Float64Array(FIELD_NAMES.length);

  constructor(
    readonly scanner: FieldScanner,
    readonly fieldLens: Float32Array,
  ) {}

  /** Tokenises one node and appends its rows (term id and field packed, count), field by field. */
  index(i: number, node: GraphNode): void {
    const F = FIELD_NAMES.length;
    const scanner = this.scanner;
    scanner.scanNode(node);
    for (let fi = 0; fi < F; fi++) {
      const m = scanner.fields[fi];
      if (m.length === 0) continue;
      let len = 0;
      for (let k = 0; k < m.length; k++) {
        const term = m.terms[k];
        if (term >= this.ids.length) {
          const b = new Int32Array(Math.max(term + 1, this.ids.length * 2)).fill(-1);
          b.set(this.ids);
          this.ids = b;
        }
        let id = this.ids[term];
        if (id < 0) {
          id = this.ids[term] = this.words.length;
          this.words.push(scanner.termStrings[term]);
        }
        const c = m.counts[k];
        this.termField.push((id << FIELD_BITS) | fi);
        this.count.push(c);
        len += c;
      }
      this.fieldLens[i * F + fi] = len;
      this.sums[fi] += len;
      this.present[fi]++;
    }
  }
}

/** Pass 2's inputs and the CSR postings it counts, then fills. */
interface Packing {
  rowStart: Uint32Array;
  termField: Int32Array[];
  count: Int32Array[];
  fieldLens: Float32Array;
  /** Per field: weight and length normalisation `b`, mean length. */
  weight: Float64Array;
  b: Float64Array;
  avg: Float64Array;
  acc: Float64Array;
  seen: Int32Array;
  offsets: Uint32Array;
  nodes: Int32Array;
  tf: Float32Array;
  postingCounts: Int32Array;
}

/**
 * One node's pass-2 sums: each term's weighted, length-normalised counts summed into one pseudo tf
 * (BM25F) in `acc`, the terms in `seen`; returns how many.
 */
function sumNode(p: Packing, node: number): number {
  const F = FIELD_NAMES.length;
  const { rowStart, termField: TF, count: C, fieldLens, weight, b, avg, acc, seen } = p;
  const SHIFT = IntRows.CHUNK_BITS;
  const MASK = IntRows.CHUNK_MASK;
  const end = rowStart[node + 1];
  let seenCount = 0;
  for (let r = rowStart[node]; r < end; r++) {
    const termField = TF[r >>> SHIFT][r & MASK];
    const fi = termField & FIELD_MASK;
    const id = termField >>> FIELD_BITS;
    const bf = b[fi];
    const norm = 1 - bf + (bf * fieldLens[node * F + fi]) / avg[fi];
    if (acc[id] === 0) seen[seenCount++] = id;
    acc[id] += (weight[fi] * C[r >>> SHIFT][r & MASK]) / norm;
  }
  return seenCount;
}

/** Pass 2a over nodes [from, to): postings per term (plain functions: V8 optimises their loops, not a generator's). */
function countPostings(p: Packing, from: number, to: number): void {
  const { acc, seen, offsets, postingCounts } = p;
  for (let node = from; node < to; node++) {
    const seenCount = sumNode(p, node);
    for (let k = 0; k < seenCount; k++) {
      const t = seen[k];
      offsets[t + 1]++;
      acc[t] = 0;
    }
    if (seenCount) postingCounts[node] = seenCount;
  }
}

/** Pass 2b over nodes [from, to): each posting's node and pseudo tf into the CSR arrays. */
function fillPostings(p: Packing, fill: Uint32Array, from: number, to: number): void {
  const { acc, seen, nodes, tf } = p;
  for (let node = from; node < to; node++) {
    const seenCount = sumNode(p, node);
    for (let k = 0; k < seenCount; k++) {
      const t = seen[k];
      const at = fill[t]++;
      nodes[at] = node;
      tf[at] = acc[t];
      acc[t] = 0;
    }
  }
}

/**
 * Indexes every live node of the graph; yields between slices of work and returns the packed index.
 * The caller must not let the graph change between slices (it restarts when it does).
 */
export function* buildBaseIndex(graph: NodeSlots, textOf: TextSource | null, defaults: Readonly<Record<FieldName, number>>): Generator<void, BaseIndex, void> {
  const version = graph.version;
  const n = graph.nodeCapacity;
  const F = FIELD_NAMES.length;
  const postingCounts = new Int32Array(n);
  const flags = new Uint8Array(n);
  const indexed: (object | null)[] = new Array(n).fill(null);
  const averages = { ...defaults };
  let live = 0;
  // Pass 1: per-field counts of every node as flat rows (term id and field packed, count), a node's
  // rows contiguous from rowStart[node]; and the mean length of each field (BM25F normalises per field).
  const rows = new Rows(new FieldScanner(textOf), new Float32Array(n * F));
  const rowStart = new Uint32Array(n + 1);
  let maxRows = 0;
  for (let i = 0; i < n; i++) {
    const node = graph.node(i);
    if (node) {
      rows.index(i, node);
      flags[i] = (isTestNode(node) ? FLAG_TEST : 0) | (rows.scanner.accessor ? FLAG_ACCESSOR : 0);
      indexed[i] = graph.nodeKey ? graph.nodeKey(i) : node;
      live++;
    }
    rowStart[i + 1] = rows.termField.length;
    maxRows = Math.max(maxRows, rowStart[i + 1] - rowStart[i]);
    if (i % NODES_PER_STEP === NODES_PER_STEP - 1) yield;
  }
  FIELD_NAMES.forEach((f, fi) => {
    if (rows.present[fi] > 0) averages[f] = rows.sums[fi] / rows.present[fi];
  });
  // Pass 2 (twice over the rows: count postings per term, then fill the CSR arrays).
  const terms = rows.words.length;
  const p: Packing = {
    rowStart,
    termField: rows.termField.chunks,
    count: rows.count.chunks,
    fieldLens: rows.fieldLens,
    weight: Float64Array.from(FIELD_NAMES, (f) => FIELDS[f].weight),
    b: Float64Array.from(FIELD_NAMES, (f) => FIELDS[f].b),
    avg: Float64Array.from(FIELD_NAMES, (f) => averages[f]),
    acc: new Float64Array(terms),
    seen: new Int32Array(maxRows),
    offsets: new Uint32Array(terms + 1),
    nodes: new Int32Array(0),
    tf: new Float32Array(0),
    postingCounts,
  };
  for (let from = 0; from < n; from += PACK_NODES_PER_STEP) {
    countPostings(p, from, Math.min(n, from + PACK_NODES_PER_STEP));
    yield;
  }
  const offsets = p.offsets;
  for (let t = 0; t < terms; t++) offsets[t + 1] += offsets[t];
  const fill = offsets.slice(0, terms);
  p.nodes = new Int32Array(offsets[terms]);
  p.tf = new Float32Array(offsets[terms]);
  yield;
  for (let from = 0; from < n; from += PACK_NODES_PER_STEP) {
    fillPostings(p, fill, from, Math.min(n, from + PACK_NODES_PER_STEP));
    yield;
  }
  clearTextMemos();
  // The sorted vocabulary in slices too: one sort of a stdlib-sized vocabulary holds the loop ~50 ms.
  const words = rows.words;
  const vocabulary = yield* sortStrings(words.slice());
  // Each sorted term's id through the scanner's table (its strings' hashes are already computed).
  const vocabIds = new Uint32Array(vocabulary.length);
  for (let k = 0; k < vocabulary.length; k++) {
    vocabIds[k] = rows.ids[rows.scanner.termNumber(vocabulary[k])];
    if (k % 4_096 === 4_095) yield;
  }
  return { offsets: p.offsets, nodes: p.nodes, tf: p.tf, postingCounts, flags, indexed, averages, live, version, vocabulary, vocabIds };
}
