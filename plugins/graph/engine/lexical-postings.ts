/**
 * What the seek index holds and how it is read and patched: the postings of the last full build,
 * CSR-packed (lexical-build.ts), plus per-term delta lists for nodes re-indexed since; term lookup,
 * prefix expansion, idf, and the query (scoring in seek-scoring.ts and lexical-query.ts). When and
 * where a full build runs, and its file, are LexicalIndex's (lexical-index.ts). Postings are
 * append-only: a node whose indexed text changes gets a new version and its old postings are skipped
 * at query time, so an incremental ingest re-indexes only the nodes of changed files.
 */
import type { CodeGraph, GraphNode } from './graph.ts';
import { FIELDS, fieldLength, isTestNode, nodeFields, type FieldName, type NodeFields } from './lexical-text.ts';
import { LineReader, Postings, type TextSource } from './lexical-buffers.ts';
import { baseTermId, FIELD_NAMES, FLAG_ACCESSOR, FLAG_TEST, type BaseIndex } from './lexical-build.ts';
import { analyzeQuery, type SeekHit, type SeekOptions } from './seek-scoring.ts';
import { runQuery, Touched, type Source } from './lexical-query.ts';
import { boundedEdits } from './near-names.ts';
import { lowerBound } from './sorted-strings.ts';

/** BM25 saturation constant. */
export const K1 = 1.2;
const MAX_PREFIX_EXPANSIONS = 12;
/** A synonym's share of its own idf when it stands in for a query word. */
const SYNONYM_WEIGHT = 0.5;
/** A word the index has never seen stands for the index's words a slip away from it (`clinet` → client), at this weight. */
const CORRECTION_WEIGHT = 0.8;
const MAX_CORRECTIONS = 3;

/** The postings of one graph's nodes: a full build's, patched node by node. */
export abstract class IndexedPostings {
  /**
   * Postings from the last full build, CSR-packed: term id → [offsets[id], offsets[id+1]) into
   * one array each of node and pseudo tf; a posting counts while its node's version is 1 (the
   * build's). Nodes indexed later go to `delta`.
   */
  private base: Pick<BaseIndex, 'vocabulary' | 'vocabIds'> = { vocabulary: [], vocabIds: new Uint32Array(0) };
  private offsets: Uint32Array = new Uint32Array(1);
  private baseNodes: Int32Array = new Int32Array(0);
  private baseTf: Float32Array = new Float32Array(0);
  private readonly delta = new Map<string, Postings>();
  private versions: Int32Array = new Int32Array(0);
  /** Postings each node slot holds now (to count stale ones on removal). */
  private postingCounts: Int32Array = new Int32Array(0);
  /** FLAG_* bits per node slot. */
  flags: Uint8Array = new Uint8Array(0);
  /** What each node slot was indexed from, its `nodeKey` (to detect changes cheaply). */
  protected indexed: (object | null)[] = [];
  /** Mean length per field over the nodes that have it, from the last full build. */
  protected averages: Record<FieldName, number> = { name: 2, qualified: 2, signature: 4, doc: 12, body: 30, path: 4 };
  private live = 0;
  private totalPostings = 0;
  private stalePostings = 0;
  private vocabulary: string[] | null = null;
  private scratch = new Float64Array(0);
  private masks = new Uint32Array(0);
  private readonly touched = new Touched();

  constructor(protected readonly textOf: TextSource | null) {}

  /** Live documents (nodes) in the index. */
  get liveDocs(): number {
    return this.live;
  }

  /** Brings the index up to date with the graph (a full build when it has none for it). */
  abstract ensure(graph: CodeGraph): void;

  /** A full build over the whole graph, at once; called when stale postings dominate. */
  protected abstract rebuild(graph: CodeGraph): void;

  /** Drops the postings. */
  protected clearPostings(): void {
    this.base = { vocabulary: [], vocabIds: new Uint32Array(0) };
    this.offsets = new Uint32Array(1);
    this.baseNodes = new Int32Array(0);
    this.baseTf = new Float32Array(0);
    this.delta.clear();
    this.indexed = [];
    this.vocabulary = null;
  }

  /** Takes a full build as the postings of `graph` (its nodes when the build holds none: read from a file or a worker). */
  protected install(graph: CodeGraph, base: BaseIndex): void {
    this.base = { vocabulary: base.vocabulary, vocabIds: base.vocabIds };
    this.offsets = base.offsets;
    this.baseNodes = base.nodes;
    this.baseTf = base.tf;
    this.postingCounts = base.postingCounts;
    this.flags = base.flags;
    // Built elsewhere: for exactly this graph's nodes (the file is keyed by their layout, a worker's build by the graph version).
    this.indexed = base.indexed ?? Array.from({ length: graph.nodeCapacity }, (_, i) => graph.nodeKey(i));
    this.averages = base.averages;
    this.live = base.live;
    this.stalePostings = 0;
    this.totalPostings = base.offsets[base.offsets.length - 1];
    // A node's base postings count while its version is 1: re-indexing bumps it and orphans them.
    this.versions = new Int32Array(graph.nodeCapacity);
    for (let i = 0; i < this.indexed.length; i++) if (this.indexed[i]) this.versions[i] = 1;
    this.delta.clear();
    this.vocabulary = base.vocabulary;
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
      const key = graph.nodeKey(i);
      if (this.indexed[i] === key) continue;
      // A re-parsed file gives new node objects even when a symbol's text did not change; its body
      // may have, so every changed slot is re-indexed (only nodes of changed files get here).
      if (this.indexed[i]) this.removeNode(i);
      const n = graph.node(i);
      if (n && key) this.addNode(i, n, key, reader);
    }
    if (this.stalePostings > 50_000 && this.stalePostings > this.totalPostings / 3) this.rebuild(graph);
  }

  /** Node slots whose node differs from what the index holds for them. */
  protected changedSlots(graph: CodeGraph): number[] {
    this.ensureCapacity(graph.nodeCapacity);
    const changed: number[] = [];
    for (let i = 0; i < graph.nodeCapacity; i++) if (this.indexed[i] !== graph.nodeKey(i)) changed.push(i);
    return changed;
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

  private addNode(i: number, n: GraphNode, key: object, reader: LineReader): void {
    const version = ++this.versions[i];
    let postings = 0;
    const fields = nodeFields(n, reader.of(n.path));
    for (const [t, tf] of this.pseudoFrequencies(fields)) {
      let p = this.delta.get(t);
      if (!p) {
        this.delta.set(t, (p = new Postings()));
        if (baseTermId(this.base, t) < 0) this.vocabulary = null;
      }
      p.push(i, tf, version);
      postings++;
    }
    this.totalPostings += postings;
    this.postingCounts[i] = postings;
    this.flags[i] = (isTestNode(n) ? FLAG_TEST : 0) | (fields.accessor ? FLAG_ACCESSOR : 0);
    this.indexed[i] = key;
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
    if (!this.vocabulary) this.vocabulary = [...new Set([...this.base.vocabulary, ...this.delta.keys()])].sort();
    return this.vocabulary;
  }

  /** Number of postings of a term (live and stale: an approximation of document frequency). */
  documentFrequency(term: string): number {
    const id = baseTermId(this.base, term);
    return (id < 0 ? 0 : this.offsets[id + 1] - this.offsets[id]) + (this.delta.get(term)?.length ?? 0);
  }

  /** BM25 inverse document frequency of a term (0 when absent). */
  idf(term: string): number {
    const df = this.documentFrequency(term);
    return df === 0 ? 0 : Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  /** Vocabulary terms starting with `prefix` (not equal to it), shortest first, capped. */
  expand(prefix: string): string[] {
    const vocab = this.sortedVocabulary();
    const lo = lowerBound(vocab, prefix);
    const out: string[] = [];
    for (let k = lo; k < vocab.length && vocab[k].startsWith(prefix); k++) if (vocab[k] !== prefix) out.push(vocab[k]);
    out.sort((a, b) => a.length - b.length);
    return out.slice(0, MAX_PREFIX_EXPANSIONS);
  }

  /**
   * Vocabulary terms a slip away from a term of ≥ 5 letters the index has never seen (`clinet` →
   * client, `asyncclinet` → asyncclient): one edit up to 8 letters, two beyond (a swap of neighbours
   * is one), the first letter the same (where slips are rarest, and it keeps the scan to one stretch
   * of the sorted vocabulary). Nearest first, then the commoner; at most MAX_CORRECTIONS.
   */
  corrections(term: string): string[] {
    if (term.length < 5) return [];
    const cap = term.length <= 8 ? 1 : 2;
    const vocab = this.sortedVocabulary();
    const first = term[0];
    const lo = lowerBound(vocab, first);
    const found: { term: string; edits: number; df: number }[] = [];
    for (let k = lo; k < vocab.length && vocab[k][0] === first; k++) {
      const t = vocab[k];
      if (Math.abs(t.length - term.length) > cap) continue;
      const edits = boundedEdits(t, term, cap, false);
      if (edits <= cap) found.push({ term: t, edits, df: this.documentFrequency(t) });
    }
    found.sort((a, b) => a.edits - b.edits || b.df - a.df || (a.term < b.term ? -1 : 1));
    return found.slice(0, MAX_CORRECTIONS).map((f) => f.term);
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
    const sources: Source[] = [];
    const add = (term: string, bit: number, idf: number): void => {
      if (idf <= 0) return;
      const id = baseTermId(this.base, term);
      const start = id >= 0 ? this.offsets[id] : 0;
      const end = id >= 0 ? this.offsets[id + 1] : 0;
      const delta = this.delta.get(term) ?? null;
      if (end > start || delta) sources.push({ bit, idf, start, end, delta });
    };
    q.terms.forEach((term, bit) => {
      // A slip (`HTTPTrasnport`): the word counts as its corrections do, in coverage too. Not the start of
      // known words, nor a one-word query's whole identifier (`handle` is its word's: `handl`, not `handler`).
      const oneWord = term.whole && q.terms.some((t) => !t.whole && t.word === term.word);
      const expansions = term.expand ? this.expand(term.term) : [];
      if (q.idf[bit] === 0 && !oneWord && expansions.length === 0) {
        const fixes = this.corrections(term.term);
        for (const t of fixes) {
          const idf = this.idf(t) * CORRECTION_WEIGHT;
          add(t, bit, idf);
          if (idf > q.idf[bit]) q.idf[bit] = idf;
        }
        if (fixes.length) return;
      }
      if (q.idf[bit] === 0 && !term.expand && term.synonyms.length === 0) return;
      add(term.term, bit, q.idf[bit]);
      // Prefixes reach what stemming does not (`conn` → `connect`), at a fraction of the weight.
      if (term.expand) {
        for (const t of expansions) add(t, bit, this.idf(t) * 0.4 * (term.term.length / t.length));
        // ...and abbreviations reach the long word (`func`, `param`, `config` for function, parameters, configuration).
        for (const t of this.abbreviations(term.term)) add(t, bit, this.idf(t) * 0.4 * (t.length / term.term.length));
      }
      // Synonyms count for the word they stand in for, at half weight.
      for (const t of term.synonyms) add(t, bit, this.idf(t) * SYNONYM_WEIGHT);
    });
    const state = { baseNodes: this.baseNodes, baseTf: this.baseTf, versions: this.versions, flags: this.flags, scratch: this.scratch, masks: this.masks, touched: this.touched };
    return runQuery(graph, state, sources, q, pagerank, options, K1);
  }

  /** Size facts: vocabulary, postings (live and stale), documents. */
  protected sizes(): { tokens: number; postings: number; stalePostings: number; documents: number } {
    return { tokens: this.sortedVocabulary().length, postings: this.totalPostings, stalePostings: this.stalePostings, documents: this.live };
  }
}
