/**
 * Running a seek query over the index's postings (lexical-index.ts): each query term, and the
 * prefixes, abbreviations and synonyms standing in for it, is a *source* (a posting list and a
 * weight); a node's BM25 sum adds its sources' contributions in source order.
 *
 * On a big graph a common word ("run", "0") has tens of thousands of postings, and summing and
 * scoring all of them dominated the query. When the query also has rarer sources, those alone give
 * the candidates; each candidate looks its long lists up (binary search: a base posting list is in
 * node order), so its sum is exactly the one a full pass gives. A node reached only through the
 * long lists can score at most `scoreBound` of their weights; when that is below the k-th kept
 * score, no such node can enter the results and the long lists are never scanned. Otherwise the
 * query falls back to the full pass: the results are the same either way.
 */
import type { CodeGraph } from './graph.ts';
import type { Postings } from './lexical-buffers.ts';
import { scoreBound, scoreCandidates, type SeekHit, type SeekOptions, type SeekQuery } from './seek-scoring.ts';

/** One weighted posting list of a query: base postings [start, end) and the term's delta postings. */
export interface Source {
  bit: number;
  idf: number;
  start: number;
  end: number;
  delta: Postings | null;
}

/** The index arrays a query reads, and its per-node scratch (zero between queries). */
export interface QueryState {
  baseNodes: Int32Array;
  baseTf: Float32Array;
  versions: Int32Array;
  flags: Uint8Array;
  scratch: Float64Array;
  masks: Uint32Array;
  /** Nodes with a sum, in a buffer of the graph's node capacity (no array growing per query: on a big heap, allocation is what costs). */
  touched: Touched;
}

/** A reusable list of node indexes. */
export class Touched {
  list = new Int32Array(0);
  length = 0;
  /** Empties the list, making room for `capacity` nodes. */
  reset(capacity: number): void {
    if (this.list.length < capacity) this.list = new Int32Array(capacity);
    this.length = 0;
  }
  push(node: number): void {
    this.list[this.length++] = node;
  }
}

/** A source longer than `longSource` is looked up per candidate instead of scanned, when rarer sources give the candidates (tests set it to Infinity for the full pass). */
export const queryTuning = { longSource: 4096 };

/** Ranks the nodes the sources reach (see the file comment). */
export function runQuery(graph: CodeGraph, s: QueryState, sources: readonly Source[], q: SeekQuery, pagerank: Float64Array | null, options: SeekOptions, k1: number): SeekHit[] {
  const long = sources.map((src) => src.delta === null && src.end - src.start > queryTuning.longSource);
  const touched = s.touched;
  touched.reset(graph.nodeCapacity);
  if (long.some(Boolean) && !long.every(Boolean)) {
    for (let i = 0; i < sources.length; i++) if (!long[i]) scan(s, sources[i], k1, touched);
    const candidates = touched.list.slice(0, touched.length);
    let longPostings = 0;
    for (let i = 0; i < sources.length; i++) if (long[i]) longPostings += sources[i].end - sources[i].start;
    // Looking every candidate up must cost less than scanning the long lists.
    if (candidates.length * 20 < longPostings) {
      // Re-sum in source order, so every candidate's sum is bit-for-bit the full pass's.
      clear(s, touched);
      touched.reset(graph.nodeCapacity);
      let bits = 0;
      let bound = 0;
      for (let i = 0; i < sources.length; i++) {
        if (long[i]) {
          lookUp(s, sources[i], k1, candidates, touched);
          bits |= 1 << sources[i].bit;
          bound += sources[i].idf * (k1 + 1);
        } else {
          scan(s, sources[i], k1, touched);
        }
      }
      const kept = { threshold: 0 };
      const hits = scoreCandidates(graph, q, touched.list, touched.length, s.scratch, s.masks, s.flags, pagerank, options, k1, kept);
      clear(s, touched);
      if (scoreBound(q, bits, bound, k1) < kept.threshold) return hits;
      touched.reset(graph.nodeCapacity);
    } else {
      clear(s, touched);
      touched.reset(graph.nodeCapacity);
    }
  }
  for (const src of sources) scan(s, src, k1, touched);
  const hits = scoreCandidates(graph, q, touched.list, touched.length, s.scratch, s.masks, s.flags, pagerank, options, k1);
  clear(s, touched);
  return hits;
}

function clear(s: QueryState, touched: Touched): void {
  const { list, length } = touched;
  for (let i = 0; i < length; i++) {
    s.scratch[list[i]] = 0;
    s.masks[list[i]] = 0;
  }
}

/** Adds a source's BM25 contribution (idf × saturated pseudo tf) to every live node it lists. */
function scan(s: QueryState, src: Source, k1: number, touched: Touched): void {
  const { scratch: score, masks, versions, baseNodes: nodes, baseTf: tfs } = s;
  const flag = 1 << src.bit;
  const idf = src.idf;
  for (let k = src.start; k < src.end; k++) {
    const node = nodes[k];
    if (versions[node] !== 1) continue;
    const tf = tfs[k];
    if (score[node] === 0 && masks[node] === 0) touched.push(node);
    score[node] += (idf * tf * (k1 + 1)) / (tf + k1);
    masks[node] |= flag;
  }
  const d = src.delta;
  if (!d) return;
  for (let k = 0; k < d.length; k++) {
    const node = d.nodes[k];
    if (d.versions[k] !== versions[node]) continue;
    const tf = d.tf[k];
    if (score[node] === 0 && masks[node] === 0) touched.push(node);
    score[node] += (idf * tf * (k1 + 1)) / (tf + k1);
    masks[node] |= flag;
  }
}

/** Adds a base-only source's contribution to the candidates it lists (binary search in its node-ordered range). */
function lookUp(s: QueryState, src: Source, k1: number, candidates: Int32Array, touched: Touched): void {
  const { scratch: score, masks, versions, baseNodes: nodes, baseTf: tfs } = s;
  const flag = 1 << src.bit;
  const idf = src.idf;
  for (const node of candidates) {
    if (versions[node] !== 1) continue;
    let lo = src.start;
    let hi = src.end - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = nodes[mid];
      if (v < node) lo = mid + 1;
      else if (v > node) hi = mid - 1;
      else {
        const tf = tfs[mid];
        if (score[node] === 0 && masks[node] === 0) touched.push(node);
        score[node] += (idf * tf * (k1 + 1)) / (tf + k1);
        masks[node] |= flag;
        break;
      }
    }
  }
}
