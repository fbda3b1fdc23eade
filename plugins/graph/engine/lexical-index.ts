/**
 * The lexical index behind `seek`: BM25F over per-node fields (identifier parts and the whole
 * identifier, qualified name, signature, doc comment, body tokens, path; see lexical-text.ts), with
 * stop words dropped and Porter stems on both sides. Scoring (kind priors, coverage, PageRank) is in
 * seek-scoring.ts. Postings are global and append-only; a node whose indexed text changes gets a new
 * version and its old postings are skipped at query time, so an incremental ingest re-indexes only
 * the nodes of changed files. The index rebuilds itself when stale postings dominate.
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import { FIELDS, fieldLength, isTestNode, nodeFields, type FieldName, type NodeFields } from './lexical-text.ts';
import { LineReader, Postings, type TextSource } from './lexical-buffers.ts';
import { baseTermId, buildBaseIndex, FIELD_NAMES, FLAG_TEST, type BaseIndex } from './lexical-build.ts';
import { readIndexFile, saveIndexFile, type IndexFileOptions } from './lexical-persist.ts';
import { analyzeQuery, type SeekHit, type SeekOptions } from './seek-scoring.ts';
import { runQuery, Touched, type Source } from './lexical-query.ts';
import { SliceClock } from './steps.ts';

export { tokenize } from './lexical-text.ts';
export type { SeekHit, SeekOptions } from './seek-scoring.ts';
export type { TextSource } from './lexical-buffers.ts';
export type { IndexFileOptions } from './lexical-persist.ts';

/** BM25 saturation constant. */
export const K1 = 1.2;
const MAX_PREFIX_EXPANSIONS = 12;
/** A synonym's share of its own idf when it stands in for a query word. */
const SYNONYM_WEIGHT = 0.5;
export { FLAG_TEST } from './lexical-build.ts';

/** Nodes re-indexed between two looks at the slice clock (`syncSliced`). */
const SYNC_CHUNK = 16;

/** The seek index over one CodeGraph. */
export class LexicalIndex {
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
  private readonly touched = new Touched();
  /** The graph the index was built for, and the graph version it last caught up with. */
  private builtFor: CodeGraph | null = null;
  private syncedVersion = -1;
  /** A sliced full build under way (ensureAsync), with the graph version it reads. */
  private building: { graph: CodeGraph; version: number; steps: Generator<void, Built, void> } | null = null;
  /** Full builds read from the index file / written to it (tests and benches read these). */
  readonly fileStats = { loads: 0, builds: 0, writes: 0 };
  /** The last index file write under way (tests await it). */
  fileWrite: Promise<void> | null = null;

  /**
   * `textOf` gives file contents for signature and body fields; without it only names, docs and
   * paths are indexed. With `file`, a full build is read from and written to an index file.
   */
  constructor(
    private readonly textOf: TextSource | null = null,
    private readonly file: IndexFileOptions | null = null,
  ) {}

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
      const build = this.building;
      if (build?.graph === graph && build.version === graph.version) {
        // A sliced build is under way: finish it now.
        this.building = null;
        let r = build.steps.next();
        while (!r.done) r = build.steps.next();
        this.installBuilt(graph, r.value);
      } else {
        this.reset();
        const steps = this.fullBuild(graph, true);
        let r = steps.next();
        while (!r.done) r = steps.next();
        this.installBuilt(graph, r.value);
      }
    } else if (this.syncedVersion !== graph.version) {
      this.sync(graph);
    }
  }

  /** Drops everything (the next query rebuilds); releases the graph it was built for. */
  reset(): void {
    this.building = null;
    this.builtFor = null;
    this.syncedVersion = -1;
    this.base = { vocabulary: [], vocabIds: new Uint32Array(0) };
    this.offsets = new Uint32Array(1);
    this.baseNodes = new Int32Array(0);
    this.baseTf = new Float32Array(0);
    this.delta.clear();
    this.indexed = [];
    this.vocabulary = null;
  }

  /** Indexes every live node of the graph from scratch, at once (never from the index file). */
  rebuild(graph: CodeGraph): void {
    this.reset();
    const steps = this.fullBuild(graph, false);
    let r = steps.next();
    while (!r.done) r = steps.next();
    this.installBuilt(graph, r.value);
  }

  /** The index file's build when it holds for this graph, else a new build (and the key to write it under). */
  private *fullBuild(graph: CodeGraph, useFile: boolean): Generator<void, Built, void> {
    const key = this.file?.key() ?? null;
    if (useFile && key !== null) {
      const loaded = yield* readIndexFile(this.file!.path(), key, graph);
      if (loaded) return { base: { ...loaded, version: graph.version }, key: null };
    }
    return { base: yield* buildBaseIndex(graph, this.textOf, this.averages), key };
  }

  private installBuilt(graph: CodeGraph, built: Built): void {
    this.install(graph, built.base);
    if (built.base.indexed === null) this.fileStats.loads++;
    else this.fileStats.builds++;
    if (built.key !== null && this.file!.writable()) {
      const counts = built.base.postingCounts.slice();
      const flags = built.base.flags.slice();
      // Written only while it still holds: the graph unchanged and this index still built for it.
      const holds = (): boolean => graph.version === built.base.version && this.builtFor === graph;
      this.fileWrite = saveIndexFile(this.file!, graph, built.key, { ...built.base, postingCounts: counts, flags }, holds).then(
        (written) => void (written && this.fileStats.writes++),
        () => undefined,
      );
    }
  }

  /**
   * Brings the index up to date like `ensure`, but builds a missing index in slices of about
   * `sliceMs` with the event loop free in between (a stdlib-sized build takes ~1 s of CPU). Callers
   * awaiting the same build share it; a query arriving meanwhile finishes it at once.
   */
  async ensureAsync(graph: CodeGraph, sliceMs = 20): Promise<void> {
    for (;;) {
      if (this.builtFor === graph) {
        if (this.syncedVersion !== graph.version) await this.syncSliced(graph, sliceMs);
        if (this.builtFor !== graph || this.syncedVersion === graph.version) return;
        continue; // the graph changed during a yield: sync again
      }
      // Not started, or the graph changed since it started: (re)start from the current graph.
      if (this.building?.graph !== graph || this.building.version !== graph.version) this.startBuild(graph);
      const build = this.building!;
      const clock = new SliceClock(sliceMs);
      do {
        const r = build.steps.next();
        if (r.done) {
          this.building = null;
          this.installBuilt(graph, r.value);
          return;
        }
      } while (!clock.spent());
      await clock.yield();
      // Reset meanwhile (the graph was replaced): nobody wants this graph's index any more.
      if (this.builtFor !== graph && this.building === null) return;
    }
  }

  /** True while a sliced build is under way. */
  get buildInProgress(): boolean {
    return this.building !== null;
  }

  private startBuild(graph: CodeGraph): void {
    this.reset();
    this.building = { graph, version: graph.version, steps: this.fullBuild(graph, true) };
  }

  private install(graph: CodeGraph, base: BaseIndex): void {
    this.builtFor = graph;
    this.syncedVersion = base.version;
    this.base = { vocabulary: base.vocabulary, vocabIds: base.vocabIds };
    this.offsets = base.offsets;
    this.baseNodes = base.nodes;
    this.baseTf = base.tf;
    this.postingCounts = base.postingCounts;
    this.flags = base.flags;
    // Loaded from the index file: built for exactly this graph's nodes (the file is keyed by their layout).
    this.indexed = base.indexed ?? Array.from({ length: graph.nodeCapacity }, (_, i) => graph.node(i));
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
      const n = graph.node(i);
      if (this.indexed[i] === n) continue;
      // A re-parsed file gives new node objects even when a symbol's text did not change; its body
      // may have, so every changed slot is re-indexed (only nodes of changed files get here).
      if (this.indexed[i]) this.removeNode(i);
      if (n) this.addNode(i, n, reader);
    }
    if (this.stalePostings > 50_000 && this.stalePostings > this.totalPostings / 3) this.rebuild(graph);
  }

  /**
   * `sync` in slices of about `sliceMs`: re-indexing the nodes of a burst of re-ingested files (a few
   * hundred files, thousands of nodes) tokenises each one, ~10-40 ms in one piece. Returns early,
   * unsynced, when the graph changed or the index was reset during a yield (the caller looks again).
   */
  private async syncSliced(graph: CodeGraph, sliceMs: number): Promise<void> {
    const version = graph.version;
    this.ensureCapacity(graph.nodeCapacity);
    const changed: number[] = [];
    for (let i = 0; i < graph.nodeCapacity; i++) if (this.indexed[i] !== graph.node(i)) changed.push(i);
    const clock = new SliceClock(sliceMs);
    for (let k = 0; k < changed.length; k += SYNC_CHUNK) {
      if (k > 0 && clock.spent()) {
        await clock.yield();
        if (graph.version !== version || this.builtFor !== graph) return;
      }
      this.update(graph, changed.slice(k, k + SYNC_CHUNK));
    }
    this.syncedVersion = version;
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
        if (baseTermId(this.base, t) < 0) this.vocabulary = null;
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
      if (q.idf[bit] === 0 && !term.expand && term.synonyms.length === 0) return;
      add(term.term, bit, q.idf[bit]);
      // Prefixes reach what stemming does not (`conn` → `connect`), at a fraction of the weight.
      if (term.expand) {
        for (const t of this.expand(term.term)) add(t, bit, this.idf(t) * 0.4 * (term.term.length / t.length));
        // ...and abbreviations reach the long word (`func`, `param`, `config` for function, parameters, configuration).
        for (const t of this.abbreviations(term.term)) add(t, bit, this.idf(t) * 0.4 * (t.length / term.term.length));
      }
      // Synonyms count for the word they stand in for, at half weight.
      for (const t of term.synonyms) add(t, bit, this.idf(t) * SYNONYM_WEIGHT);
    });
    const state = { baseNodes: this.baseNodes, baseTf: this.baseTf, versions: this.versions, flags: this.flags, scratch: this.scratch, masks: this.masks, touched: this.touched };
    return runQuery(graph, state, sources, q, pagerank, options, K1);
  }

  /** Index size facts. */
  stats(): { tokens: number; postings: number; stalePostings: number; documents: number; builds: number; fileLoads: number; fileWrites: number } {
    const { builds, loads, writes } = this.fileStats;
    return { tokens: this.sortedVocabulary().length, postings: this.totalPostings, stalePostings: this.stalePostings, documents: this.live, builds, fileLoads: loads, fileWrites: writes };
  }
}

/** A full build and, when it was built rather than read from the index file, the key to write it under. */
interface Built {
  base: BaseIndex;
  key: string | null;
}

/** Re-exported for callers that filter by kind. */
export type { NodeKind };
