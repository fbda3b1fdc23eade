/**
 * The full build of the seek index (lexical-index.ts) as a resumable step sequence: a generator that
 * yields every few nodes (tokenising) and every few thousand rows (packing), so the index can be
 * built in slices between other work on the event loop, or run to the end at once.
 */
import type { GraphNode } from './graph.ts';
import { IntRows, LineReader, sortStrings, type TextSource } from './lexical-buffers.ts';
import { clearTextMemos, FIELDS, isTestNode, nodeFields, type FieldName } from './lexical-text.ts';

/** Flag bit per node: the node lives in a test file. */
export const FLAG_TEST = 1;

export const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];
/** Field index in the low bits of a packed row, term id above. */
const FIELD_BITS = 3;
/**
 * Nodes tokenised between two yields: a symbol's fields take ~10-50 µs, but a file node's whole
 * text (or a collection on a loaded machine) can take milliseconds, and 64 nodes measured 50-85 ms.
 */
const NODES_PER_STEP = 8;
/** Node row groups packed between two yields. */
const PACK_NODES_PER_STEP = 512;

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
  /** The node object each slot was indexed from (null for empty slots); null when loaded from a file (the graph's nodes then). */
  indexed: (GraphNode | null)[] | null;
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
}

/** Term id of `term` in a base index's sorted vocabulary, or -1. */
export function baseTermId(base: Pick<BaseIndex, 'vocabulary' | 'vocabIds'>, term: string): number {
  const vocab = base.vocabulary;
  let lo = 0;
  let hi = vocab.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = vocab[mid];
    if (v < term) lo = mid + 1;
    else if (v > term) hi = mid - 1;
    else return base.vocabIds[mid];
  }
  return -1;
}

/**
 * Indexes every live node of the graph; yields between slices of work and returns the packed index.
 * The caller must not let the graph change between slices (it restarts when it does).
 */
export function* buildBaseIndex(graph: NodeSlots, textOf: TextSource | null, defaults: Readonly<Record<FieldName, number>>): Generator<void, BaseIndex, void> {
  const version = graph.version;
  const n = graph.nodeCapacity;
  const F = FIELD_NAMES.length;
  const termIds = new Map<string, number>();
  const postingCounts = new Int32Array(n);
  const flags = new Uint8Array(n);
  const indexed: (GraphNode | null)[] = new Array(n).fill(null);
  const averages = { ...defaults };
  let live = 0;
  // Pass 1: per-field counts of every node as flat rows (term id and field packed, count), a node's
  // rows contiguous from rowStart[node]; and the mean length of each field (BM25F normalises per field).
  const reader = new LineReader(textOf);
  const fieldLens = new Float32Array(n * F);
  const rowTermField = new IntRows();
  const rowCount = new IntRows();
  const rowStart = new Uint32Array(n + 1);
  const sums = new Float64Array(F);
  const present = new Float64Array(F);
  for (let i = 0; i < n; i++) {
    const node = graph.node(i);
    if (node) {
      const fields = nodeFields(node, reader.of(node.path));
      for (let fi = 0; fi < F; fi++) {
        const m = fields[FIELD_NAMES[fi]];
        if (m.size === 0) continue;
        let len = 0;
        for (const [t, c] of m) {
          let id = termIds.get(t);
          if (id === undefined) termIds.set(t, (id = termIds.size));
          rowTermField.push((id << FIELD_BITS) | fi);
          rowCount.push(c);
          len += c;
        }
        fieldLens[i * F + fi] = len;
        sums[fi] += len;
        present[fi]++;
      }
      flags[i] = isTestNode(node) ? FLAG_TEST : 0;
      indexed[i] = node;
      live++;
    }
    rowStart[i + 1] = rowTermField.length;
    if (i % NODES_PER_STEP === NODES_PER_STEP - 1) yield;
  }
  FIELD_NAMES.forEach((f, fi) => {
    if (present[fi] > 0) averages[f] = sums[fi] / present[fi];
  });
  // Pass 2 (twice over the rows: count postings per term, then fill the CSR arrays). Each term's
  // weighted, length-normalised counts of one node are summed into one pseudo tf (BM25F).
  const norms = FIELD_NAMES.map((f) => FIELDS[f]);
  const avg = FIELD_NAMES.map((f) => averages[f]);
  const terms = termIds.size;
  const acc = new Float64Array(terms);
  const seen: number[] = [];
  const offsets = new Uint32Array(terms + 1);
  let fill: Uint32Array | null = null;
  let nodes = new Int32Array(0);
  let tf = new Float32Array(0);
  const TF = rowTermField.chunks;
  const C = rowCount.chunks;
  const SHIFT = IntRows.CHUNK_BITS;
  const MASK = IntRows.CHUNK_MASK;
  for (let pass = 0; pass < 2; pass++) {
    for (let node = 0; node < n; node++) {
      const end = rowStart[node + 1];
      for (let r = rowStart[node]; r < end; r++) {
        const termField = TF[r >>> SHIFT][r & MASK];
        const fi = termField & ((1 << FIELD_BITS) - 1);
        const id = termField >>> FIELD_BITS;
        const { weight, b } = norms[fi];
        const norm = 1 - b + (b * fieldLens[node * F + fi]) / avg[fi];
        if (acc[id] === 0) seen.push(id);
        acc[id] += (weight * C[r >>> SHIFT][r & MASK]) / norm;
      }
      for (const t of seen) {
        if (fill) {
          const at = fill[t]++;
          nodes[at] = node;
          tf[at] = acc[t];
        } else {
          offsets[t + 1]++;
        }
        acc[t] = 0;
      }
      if (seen.length) postingCounts[node] = seen.length;
      seen.length = 0;
      if (node % PACK_NODES_PER_STEP === PACK_NODES_PER_STEP - 1) yield;
    }
    if (pass === 0) {
      for (let t = 0; t < terms; t++) offsets[t + 1] += offsets[t];
      fill = offsets.slice(0, terms);
      nodes = new Int32Array(offsets[terms]);
      tf = new Float32Array(offsets[terms]);
    }
  }
  clearTextMemos();
  // The sorted vocabulary in slices too: one sort of a stdlib-sized vocabulary holds the loop ~50 ms.
  const words: string[] = new Array<string>(termIds.size);
  let w = 0;
  for (const word of termIds.keys()) {
    words[w++] = word;
    if (w % 16_384 === 0) yield;
  }
  const vocabulary = yield* sortStrings(words);
  const vocabIds = new Uint32Array(vocabulary.length);
  for (let k = 0; k < vocabulary.length; k++) {
    vocabIds[k] = termIds.get(vocabulary[k])!;
    if (k % 16_384 === 16_383) yield;
  }
  return { offsets, nodes, tf, postingCounts, flags, indexed, averages, live, version, vocabulary, vocabIds };
}
