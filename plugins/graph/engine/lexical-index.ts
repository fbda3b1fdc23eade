/**
 * The lexical index behind `seek`: BM25F over per-node fields (identifier parts and the whole
 * identifier, qualified name, signature, doc comment, body tokens, path; see lexical-text.ts), with
 * stop words dropped and Porter stems on both sides. Scoring (kind priors, coverage, PageRank) is in
 * seek-scoring.ts. Postings are global and append-only; a node whose indexed text changes gets a new
 * version and its old postings are skipped at query time, so an incremental ingest re-indexes only
 * the nodes of changed files. The index rebuilds itself when stale postings dominate.
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import { clearTextMemos, FIELDS, fieldLength, isTestNode, nodeFields, type FieldName, type NodeFields } from './lexical-text.ts';
import { IntRows, LineReader, Postings, type TextSource } from './lexical-buffers.ts';
import { analyzeQuery, scoreCandidates, type SeekHit, type SeekOptions } from './seek-scoring.ts';

export { tokenize } from './lexical-text.ts';
export type { SeekHit, SeekOptions } from './seek-scoring.ts';
export type { TextSource } from './lexical-buffers.ts';

/** BM25 saturation constant. */
export const K1 = 1.2;
const MAX_PREFIX_EXPANSIONS = 12;
/** A synonym's share of its own idf when it stands in for a query word. */
const SYNONYM_WEIGHT = 0.5;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** Flag bit per node: the node lives in a test file. */
export const FLAG_TEST = 1;

/** The seek index over one CodeGraph. */
export class LexicalIndex {
  /**
   * Postings from the last full build, CSR-packed: term id → [offsets[id], offsets[id+1]) into
   * one array each of node, pseudo tf and node version. Nodes indexed later go to `delta`.
   */
  private termIds = new Map<string, number>();
  private offsets = new Uint32Array(1);
  private baseNodes = new Int32Array(0);
  private baseTf = new Float32Array(0);
  private baseVersions = new Int32Array(0);
  private readonly delta = new Map<string, Postings>();
  private versions = new Int32Array(0);
  /** Postings each node slot holds now (to count stale ones on removal). */
  private postingCounts = new Int32Array(0);
  /** FLAG_* bits per node slot. */
  flags = new Uint8Array(0);
  /** What each node slot was indexed from (to detect changes cheaply). */
  private indexed: (GraphNode | null)[] = [];
  /** Mean length per field over the nodes that have it, from the last full build. */
  private averages: Record<FieldName, number> = { name: 2, qualified: 2, signature: 4, doc: 12, body: 30, path: 4 };
  private live = 0;
  private totalPostings = 0;
  private stalePostings = 0;
  private vocabulary: string[] | null = null;
  private scratch = new Float64Array(0);
  private masks = new Uint32Array(0);
  /** The graph the index was built for, and the graph version it last caught up with. */
  private builtFor: CodeGraph | null = null;
  private syncedVersion = -1;

  /** `textOf` gives file contents for signature and body fields; without it only names, docs and paths are indexed. */
  constructor(private readonly textOf: TextSource | null = null) {}

  /** Live documents (nodes) in the index. */
  get liveDocs(): number {
    return this.live;
  }

  /**
   * Brings the index up to date with the graph, lazily: a full build the first time it is queried
   * for a graph, then only the changed node slots. Ingest never pays for an index nobody queries.
   */
  ensure(graph: CodeGraph): void {
    if (this.builtFor !== graph) {
      this.rebuild(graph);
    } else if (this.syncedVersion !== graph.version) {
      this.sync(graph);
    }
  }

  /** Drops everything (the next query rebuilds); releases the graph it was built for. */
  reset(): void {
    this.builtFor = null;
    this.syncedVersion = -1;
    this.termIds = new Map();
    this.offsets = new Uint32Array(1);
    this.baseNodes = new Int32Array(0);
    this.baseTf = new Float32Array(0);
    this.baseVersions = new Int32Array(0);
    this.delta.clear();
    this.indexed = [];
    this.vocabulary = null;
  }

  /** Indexes every live node of the graph from scratch. */
  rebuild(graph: CodeGraph): void {
    this.reset();
    this.builtFor = graph;
    this.syncedVersion = graph.version;
    const n = graph.nodeCapacity;
    this.versions = new Int32Array(n);
    this.postingCounts = new Int32Array(n);
    this.flags = new Uint8Array(n);
    this.indexed = new Array(n).fill(null);
    this.live = 0;
    this.stalePostings = 0;
    // Pass 1: per-field counts of every node as flat (term, node, field, count) rows, and the mean
    // length of each field (BM25F normalises per field). Flat rows keep the garbage collector idle.
    const reader = new LineReader(this.textOf);
    const F = FIELD_NAMES.length;
    const fieldLens = new Float32Array(n * F);
    const rowTerm = new IntRows();
    const rowNode = new IntRows();
    // field index in the low 4 bits, count above
    const rowFieldCount = new IntRows();
    const sums = new Float64Array(F);
    const present = new Float64Array(F);
    for (const [i, node] of graph.nodes()) {
      const fields = nodeFields(node, reader.of(node.path));
      FIELD_NAMES.forEach((f, fi) => {
        const m = fields[f];
        if (m.size === 0) return;
        let len = 0;
        for (const [t, c] of m) {
          let id = this.termIds.get(t);
          if (id === undefined) this.termIds.set(t, (id = this.termIds.size));
          rowTerm.push(id);
          rowNode.push(i);
          rowFieldCount.push((c << 4) | fi);
          len += c;
        }
        fieldLens[i * F + fi] = len;
        sums[fi] += len;
        present[fi]++;
      });
      this.versions[i] = 1;
      this.flags[i] = isTestNode(node) ? FLAG_TEST : 0;
      this.indexed[i] = node;
      this.live++;
    }
    FIELD_NAMES.forEach((f, fi) => {
      if (present[fi] > 0) this.averages[f] = sums[fi] / present[fi];
    });
    // Pass 2 (twice over the rows: count postings per term, then fill the CSR arrays). Rows of one
    // node are contiguous; each term's weighted, length-normalised counts are summed (BM25F).
    const norms = FIELD_NAMES.map((f) => FIELDS[f]);
    const terms = this.termIds.size;
    const acc = new Float64Array(terms);
    const seen: number[] = [];
    const offsets = new Uint32Array(terms + 1);
    let fill: Uint32Array | null = null;
    const rows = rowTerm.length;
    const T = rowTerm.data;
    const N = rowNode.data;
    const FC = rowFieldCount.data;
    for (let pass = 0; pass < 2; pass++) {
      for (let r = 0; r < rows; r++) {
        const node = N[r];
        const fi = FC[r] & 15;
        const { weight, b } = norms[fi];
        const norm = 1 - b + (b * fieldLens[node * F + fi]) / this.averages[FIELD_NAMES[fi]];
        const id = T[r];
        if (acc[id] === 0) seen.push(id);
        acc[id] += (weight * (FC[r] >> 4)) / norm;
        if (r + 1 < rows && N[r + 1] === node) continue;
        for (const t of seen) {
          if (fill) {
            const at = fill[t]++;
            this.baseNodes[at] = node;
            this.baseTf[at] = acc[t];
          } else {
            offsets[t + 1]++;
          }
          acc[t] = 0;
        }
        this.postingCounts[node] = seen.length;
        seen.length = 0;
      }
      if (pass === 0) {
        for (let t = 0; t < terms; t++) offsets[t + 1] += offsets[t];
        fill = offsets.slice(0, terms);
        this.baseNodes = new Int32Array(offsets[terms]);
        this.baseTf = new Float32Array(offsets[terms]);
        this.baseVersions = new Int32Array(offsets[terms]).fill(1);
      }
    }
    const total = offsets[terms];
    this.offsets = offsets;
    this.totalPostings = total;
    clearTextMemos();
  }

  /** BM25F: per-field counts, length-normalised per field and weighted, summed into one tf per term. */
  private pseudoFrequencies(fields: NodeFields): Map<string, number> {
    const out = new Map<string, number>();
    for (const f of FIELD_NAMES) {
      const m = fields[f];
      if (m.size === 0) continue;
      const { weight, b } = FIELDS[f];
      const norm = 1 - b + (b * fieldLength(m)) / this.averages[f];
      for (const [t, c] of m) out.set(t, (out.get(t) ?? 0) + (weight * c) / norm);
    }
    return out;
  }

  /** Re-indexes the given node slots (changed, added or emptied). */
  update(graph: CodeGraph, slots: Iterable<number>): void {
    this.ensureCapacity(graph.nodeCapacity);
    const reader = new LineReader(this.textOf);
    for (const i of slots) {
      const n = graph.node(i);
      if (this.indexed[i] === n) continue;
      // A re-parsed file gives new node objects even when a symbol's text did not change; its body
      // may have, so every changed slot is re-indexed (only nodes of changed files get here).
      if (this.indexed[i]) this.removeNode(i);
      if (n) this.addNode(i, n, reader);
    }
    if (this.stalePostings > 50_000 && this.stalePostings > this.totalPostings / 3) this.rebuild(graph);
  }

  /** Re-indexes whatever differs between the graph and the index (O(nodes), no tokenising of unchanged nodes). */
  sync(graph: CodeGraph): void {
    this.syncedVersion = graph.version;
    this.ensureCapacity(graph.nodeCapacity);
    const changed: number[] = [];
    for (let i = 0; i < graph.nodeCapacity; i++) if (this.indexed[i] !== graph.node(i)) changed.push(i);
    if (changed.length) this.update(graph, changed);
  }

  private ensureCapacity(n: number): void {
    if (this.versions.length < n) {
      const cap = Math.max(n, this.versions.length * 2);
      const v = new Int32Array(cap);
      v.set(this.versions);
      const c = new Int32Array(cap);
      c.set(this.postingCounts);
      const f = new Uint8Array(cap);
      f.set(this.flags);
      this.versions = v;
      this.postingCounts = c;
      this.flags = f;
    }
    while (this.indexed.length < n) this.indexed.push(null);
  }

  private addNode(i: number, n: GraphNode, reader: LineReader): void {
    const version = ++this.versions[i];
    let postings = 0;
    for (const [t, tf] of this.pseudoFrequencies(nodeFields(n, reader.of(n.path)))) {
      let p = this.delta.get(t);
      if (!p) {
        this.delta.set(t, (p = new Postings()));
        if (!this.termIds.has(t)) this.vocabulary = null;
      }
      p.push(i, tf, version);
      postings++;
    }
    this.totalPostings += postings;
    this.postingCounts[i] = postings;
    this.flags[i] = isTestNode(n) ? FLAG_TEST : 0;
    this.indexed[i] = n;
    this.live++;
  }

  private removeNode(i: number): void {
    this.stalePostings += this.postingCounts[i];
    this.postingCounts[i] = 0;
    this.versions[i]++; // orphan the old postings
    this.live--;
    this.indexed[i] = null;
  }

  private sortedVocabulary(): string[] {
    if (!this.vocabulary) this.vocabulary = [...new Set([...this.termIds.keys(), ...this.delta.keys()])].sort();
    return this.vocabulary;
  }

  /** Number of postings of a term (live and stale: an approximation of document frequency). */
  documentFrequency(term: string): number {
    const id = this.termIds.get(term);
    return (id === undefined ? 0 : this.offsets[id + 1] - this.offsets[id]) + (this.delta.get(term)?.length ?? 0);
  }

  /** BM25 inverse document frequency of a term (0 when absent). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return df === 0 ? 0 : Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  /** Vocabulary terms starting with `prefix` (not equal to it), shortest first, capped. */
  expand(prefix: string): string[] {
    const vocab = this.sortedVocabulary();
    let lo = 0;
    let hi = vocab.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vocab[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let k = lo; k < vocab.length && vocab[k].startsWith(prefix); k++) if (vocab[k] !== prefix) out.push(vocab[k]);
    out.sort((a, b) => a.length - b.length);
    return out.slice(0, MAX_PREFIX_EXPANSIONS);
  }

  /** Vocabulary terms of ≥ 4 letters that are proper prefixes of a term of ≥ 6 (its abbreviations). */
  abbreviations(term: string): string[] {
    const out: string[] = [];
    if (term.length < 6) return out;
    for (let len = 4; len < term.length - 1; len++) {
      const p = term.slice(0, len);
      if (this.documentFrequency(p) > 0) out.push(p);
    }
    return out;
  }

  /** Ranks nodes for a free-text query. `pagerank` is indexed by node (max-normalised). */
  query(graph: CodeGraph, text: string, pagerank: Float64Array | null, options: SeekOptions = {}): SeekHit[] {
    this.ensure(graph);
    const q = analyzeQuery(text, this);
    if (q.terms.length === 0 || this.live === 0) return [];
    if (this.scratch.length < graph.nodeCapacity) {
      this.scratch = new Float64Array(graph.nodeCapacity);
      this.masks = new Uint32Array(graph.nodeCapacity);
    }
    const touched: number[] = [];
    q.terms.forEach((term, bit) => {
      if (q.idf[bit] === 0 && !term.expand && term.synonyms.length === 0) return;
      this.accumulate(term.term, bit, q.idf[bit], touched);
      // Prefixes reach what stemming does not (`conn` → `connect`), at a fraction of the weight.
      if (term.expand) {
        for (const t of this.expand(term.term)) this.accumulate(t, bit, this.idf(t) * 0.4 * (term.term.length / t.length), touched);
        // ...and abbreviations reach the long word (`func`, `param`, `config` for function, parameters, configuration).
        for (const t of this.abbreviations(term.term)) this.accumulate(t, bit, this.idf(t) * 0.4 * (t.length / term.term.length), touched);
      }
      // Synonyms count for the word they stand in for, at half weight.
      for (const t of term.synonyms) this.accumulate(t, bit, this.idf(t) * SYNONYM_WEIGHT, touched);
    });
    const hits = scoreCandidates(graph, q, touched, this.scratch, this.masks, this.flags, pagerank, options, K1);
    for (const node of touched) {
      this.scratch[node] = 0;
      this.masks[node] = 0;
    }
    return hits;
  }

  /** Adds one term's BM25 contribution (idf × saturated pseudo tf) to every live node it occurs in. */
  private accumulate(term: string, bit: number, idf: number, touched: number[]): void {
    if (idf <= 0) return;
    const score = this.scratch;
    const masks = this.masks;
    const versions = this.versions;
    const flag = 1 << bit;
    const add = (node: number, tf: number): void => {
      if (score[node] === 0 && masks[node] === 0) touched.push(node);
      score[node] += (idf * tf * (K1 + 1)) / (tf + K1);
      masks[node] |= flag;
    };
    const id = this.termIds.get(term);
    if (id !== undefined) {
      const nodes = this.baseNodes;
      const tfs = this.baseTf;
      const vs = this.baseVersions;
      for (let k = this.offsets[id], end = this.offsets[id + 1]; k < end; k++) {
        const node = nodes[k];
        if (vs[k] === versions[node]) add(node, tfs[k]);
      }
    }
    const d = this.delta.get(term);
    if (d) for (let k = 0; k < d.length; k++) if (d.versions[k] === versions[d.nodes[k]]) add(d.nodes[k], d.tf[k]);
  }

  /** Index size facts. */
  stats(): { tokens: number; postings: number; stalePostings: number; documents: number } {
    return { tokens: this.sortedVocabulary().length, postings: this.totalPostings, stalePostings: this.stalePostings, documents: this.live };
  }
}

/** Re-exported for callers that filter by kind. */
export type { NodeKind };
