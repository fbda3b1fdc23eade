/**
 * The lexical index behind `seek`: tokens from node names (camelCase / snake_case split, plus the
 * whole name), qualified-name parents, paths and doc comments, scored with BM25 over weighted fields,
 * then re-ranked by PageRank. Postings are global and append-only; a node whose indexed text changes
 * gets a new version and its old postings are skipped at query time, so an incremental ingest
 * updates only the nodes of changed files. The index rebuilds itself when stale postings dominate.
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';

/** Query options for seek. */
export interface SeekOptions {
  /** Results to return (default 20). */
  topK?: number;
  /** Only these node kinds. */
  kinds?: readonly NodeKind[];
  /** Only nodes under this path prefix (a directory or a file). */
  scope?: string;
  /** Drop results scoring below this (0..1, default 0.05). */
  minScore?: number;
  /** Blend in PageRank (default true). */
  graphRerank?: boolean;
}

/** One seek hit with its score breakdown. */
export interface SeekHit {
  id: string;
  kind: NodeKind;
  label: string;
  path: string;
  startLine: number;
  endLine: number;
  /** Final score in [0,1]. */
  score: number;
  /** BM25 score normalised to the best hit. */
  lexical: number;
  /** PageRank normalised to the graph's maximum (log-compressed). */
  centrality: number;
  /** Query tokens this node matched. */
  matched: string[];
  doc?: string;
}

const FIELD_WEIGHT = { name: 3, fullName: 3, parent: 1, dir: 1, symbolPath: 0.4, doc: 1 } as const;
const K1 = 1.2;
const B = 0.75;
const LEXICAL_SHARE = 0.85;
const MAX_PREFIX_EXPANSIONS = 24;
const STOPWORDS = new Set(
  'a an and are as at be by for from has have if in into is it its of on or that the this to was were will with not no return returns self none true false'.split(' '),
);

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

/** Splits identifiers, paths and prose into lowercase tokens: `parseHTTPRequest_v2` → parse, http, request, v2. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    const parts = word.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+/g);
    if (!parts) continue;
    for (const p of parts) if (p.length >= 2 || /\d/.test(p)) out.push(p.toLowerCase());
  }
  return out;
}

/** A growable posting list: node index, weighted term frequency, node version at indexing time. */
class Postings {
  nodes = new Int32Array(4);
  tf = new Float32Array(4);
  versions = new Int32Array(4);
  length = 0;

  push(node: number, tf: number, version: number): void {
    if (this.length === this.nodes.length) {
      const grow = this.length * 2;
      const n = new Int32Array(grow);
      n.set(this.nodes);
      const t = new Float32Array(grow);
      t.set(this.tf);
      const v = new Int32Array(grow);
      v.set(this.versions);
      this.nodes = n;
      this.tf = t;
      this.versions = v;
    }
    this.nodes[this.length] = node;
    this.tf[this.length] = tf;
    this.versions[this.length] = version;
    this.length++;
  }
}

const tokenMemo = new Map<string, string[]>();

/** tokenize() memoised for strings that repeat across nodes (paths, parent names). */
function tokensOf(text: string): string[] {
  let t = tokenMemo.get(text);
  if (!t) {
    if (tokenMemo.size > 100_000) tokenMemo.clear();
    tokenMemo.set(text, (t = tokenize(text)));
  }
  return t;
}

const pathMemo = new Map<string, string[]>();

/** Tokens of a file path without its extension (memoised: every symbol of a file shares them). */
function pathTokens(path: string): string[] {
  let t = pathMemo.get(path);
  if (!t) {
    if (pathMemo.size > 100_000) pathMemo.clear();
    pathMemo.set(path, (t = tokenize(path.replace(/\.[^./]+$/, ''))));
  }
  return t;
}

/** Weighted term frequencies of one node. */
function nodeTerms(n: GraphNode): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (tokens: string[], w: number): void => {
    for (const t of tokens) if (w >= FIELD_WEIGHT.name || !STOPWORDS.has(t)) terms.set(t, (terms.get(t) ?? 0) + w);
  };
  const addWhole = (name: string): void => {
    // The whole identifier as one token, so `getattr` finds `getattr` and `get_attr` alike.
    const full = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
    if (full.length >= 2) terms.set(full, Math.max(terms.get(full) ?? 0, FIELD_WEIGHT.fullName));
  };
  const slash = n.path.lastIndexOf('/');
  const dir = slash > 0 ? n.path.slice(0, slash) : '';
  if (n.kind === 'file') {
    const stem = n.label.replace(/\.[^.]+$/, '');
    add(tokenize(stem), FIELD_WEIGHT.name);
    addWhole(stem);
    add(tokenize(dir), FIELD_WEIGHT.dir);
  } else if (n.kind === 'module') {
    add(tokenize(n.label), FIELD_WEIGHT.name);
    addWhole(n.label);
    add(tokenize(dir), FIELD_WEIGHT.dir);
  } else {
    add(tokensOf(n.label), FIELD_WEIGHT.name);
    addWhole(n.label);
    const q = n.qualifiedName ?? '';
    const dot = q.lastIndexOf('.');
    if (dot > 0) add(tokensOf(q.slice(0, dot)), FIELD_WEIGHT.parent);
    add(pathTokens(n.path), FIELD_WEIGHT.symbolPath);
  }
  if (n.doc) add(tokenize(n.doc).slice(0, 60), FIELD_WEIGHT.doc);
  return terms;
}

/** The seek index over one CodeGraph. */
export class LexicalIndex {
  /**
   * Postings from the last full build, CSR-packed: term id → [offsets[id], offsets[id+1]) into
   * one array each of node, weighted tf and node version. Nodes indexed later go to `delta`.
   */
  private termIds = new Map<string, number>();
  private offsets = new Uint32Array(1);
  private baseNodes = new Int32Array(0);
  private baseTf = new Float32Array(0);
  private baseVersions = new Int32Array(0);
  private readonly delta = new Map<string, Postings>();
  private versions = new Int32Array(0);
  private lengths = new Float32Array(0);
  /** What each node slot was indexed from (to detect changes cheaply). */
  private indexed: (GraphNode | null)[] = [];
  private liveDocs = 0;
  private totalLength = 0;
  private totalPostings = 0;
  private stalePostings = 0;
  private vocabulary: string[] | null = null;
  private scratch = new Float64Array(0);
  private masks = new Uint32Array(0);
  /** The graph the index was built for, and the graph version it last caught up with. */
  private builtFor: CodeGraph | null = null;
  private syncedVersion = -1;

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
    this.lengths = new Float32Array(n);
    this.indexed = new Array(n).fill(null);
    this.liveDocs = 0;
    this.totalLength = 0;
    this.stalePostings = 0;
    // One pass collecting (term, node, tf), then a counting sort into the CSR arrays.
    const termOf: number[] = [];
    const nodeOf: number[] = [];
    const tfOf: number[] = [];
    for (const [i, node] of graph.nodes()) {
      this.versions[i] = 1;
      let length = 0;
      for (const [t, w] of nodeTerms(node)) {
        let id = this.termIds.get(t);
        if (id === undefined) this.termIds.set(t, (id = this.termIds.size));
        termOf.push(id);
        nodeOf.push(i);
        tfOf.push(w);
        length += w;
      }
      this.lengths[i] = length;
      this.indexed[i] = node;
      this.liveDocs++;
      this.totalLength += length;
    }
    const terms = this.termIds.size;
    const offsets = new Uint32Array(terms + 1);
    for (const id of termOf) offsets[id + 1]++;
    for (let t = 0; t < terms; t++) offsets[t + 1] += offsets[t];
    const fill = offsets.slice(0, terms);
    const total = termOf.length;
    this.baseNodes = new Int32Array(total);
    this.baseTf = new Float32Array(total);
    this.baseVersions = new Int32Array(total).fill(1);
    for (let k = 0; k < total; k++) {
      const at = fill[termOf[k]]++;
      this.baseNodes[at] = nodeOf[k];
      this.baseTf[at] = tfOf[k];
    }
    this.offsets = offsets;
    this.totalPostings = total;
    // The memos only speed up one build; do not keep them alive between builds.
    tokenMemo.clear();
    pathMemo.clear();
  }

  /** Re-indexes the given node slots (changed, added or emptied). */
  update(graph: CodeGraph, slots: Iterable<number>): void {
    this.ensureCapacity(graph.nodeCapacity);
    for (const i of slots) {
      const n = graph.node(i);
      const old = this.indexed[i];
      if (old === n) continue;
      if (old && n && old.id === n.id && old.doc === n.doc && old.label === n.label) {
        this.indexed[i] = n;
        continue;
      }
      if (old) this.removeNode(i);
      if (n) this.addNode(i, n);
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
      const l = new Float32Array(cap);
      l.set(this.lengths);
      this.versions = v;
      this.lengths = l;
    }
    while (this.indexed.length < n) this.indexed.push(null);
  }

  private addNode(i: number, n: GraphNode): void {
    const version = ++this.versions[i];
    let length = 0;
    for (const [t, w] of nodeTerms(n)) {
      let p = this.delta.get(t);
      if (!p) {
        this.delta.set(t, (p = new Postings()));
        if (!this.termIds.has(t)) this.vocabulary = null;
      }
      p.push(i, w, version);
      length += w;
      this.totalPostings++;
    }
    this.lengths[i] = length;
    this.indexed[i] = n;
    this.liveDocs++;
    this.totalLength += length;
  }

  private removeNode(i: number): void {
    const old = this.indexed[i]!;
    this.stalePostings += nodeTerms(old).size;
    this.versions[i]++; // orphan the old postings
    this.liveDocs--;
    this.totalLength -= this.lengths[i];
    this.lengths[i] = 0;
    this.indexed[i] = null;
  }

  private sortedVocabulary(): string[] {
    if (!this.vocabulary) this.vocabulary = [...new Set([...this.termIds.keys(), ...this.delta.keys()])].sort();
    return this.vocabulary;
  }

  /** Number of postings of a term (live and stale: an approximation of document frequency). */
  private documentFrequency(term: string): number {
    const id = this.termIds.get(term);
    return (id === undefined ? 0 : this.offsets[id + 1] - this.offsets[id]) + (this.delta.get(term)?.length ?? 0);
  }

  /** Vocabulary tokens starting with `prefix` (not equal to it), shortest first, capped. */
  private expand(prefix: string): string[] {
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

  /** Ranks nodes for a free-text query. `pagerank` is indexed by node (max-normalised). */
  query(graph: CodeGraph, text: string, pagerank: Float64Array | null, options: SeekOptions = {}): SeekHit[] {
    this.ensure(graph);
    const topK = options.topK ?? 20;
    const minScore = options.minScore ?? 0.05;
    const kinds = options.kinds && options.kinds.length ? new Set(options.kinds) : null;
    const scope = options.scope ? options.scope.replace(/^\.\/+/, '').replace(/\/+$/, '') : '';
    const distinct = [...new Set(tokenize(text))];
    // Query tokens are tracked per node in a 32-bit mask; the whole query as one identifier is the last.
    const queryTokens = distinct.slice(0, 31);
    const whole = text.toLowerCase().replace(/[^a-z0-9]+/g, '');
    const wholeBit = whole.length >= 2 && !queryTokens.includes(whole) ? queryTokens.push(whole) - 1 : -1;
    if (queryTokens.length === 0 || this.liveDocs === 0) return [];

    if (this.scratch.length < graph.nodeCapacity) {
      this.scratch = new Float64Array(graph.nodeCapacity);
      this.masks = new Uint32Array(graph.nodeCapacity);
    }
    const touched: number[] = [];
    const avgdl = this.totalLength / Math.max(1, this.liveDocs);
    queryTokens.forEach((qt, qi) => {
      this.accumulate(qt, qi, 1, avgdl, touched);
      if (qt.length >= 3) for (const t of this.expand(qt)) this.accumulate(t, qi, 0.5 * (qt.length / t.length), avgdl, touched);
    });

    const score = this.scratch;
    const masks = this.masks;
    const counted = Math.max(1, queryTokens.length - (wholeBit >= 0 ? 1 : 0));
    const candidates: { node: number; lex: number; mask: number }[] = [];
    let best = 0;
    for (const node of touched) {
      const n = graph.node(node);
      const raw = score[node];
      const mask = masks[node];
      score[node] = 0;
      masks[node] = 0;
      if (!n) continue;
      if (kinds && !kinds.has(n.kind)) continue;
      if (scope && n.path !== scope && !n.path.startsWith(`${scope}/`)) continue;
      // Nodes matching more of the query's tokens rank higher than nodes repeating one of them.
      const coverage = Math.min(1, popcount(wholeBit >= 0 ? mask & ~(1 << wholeBit) : mask) / counted);
      let lex = raw * (0.4 + 0.6 * (wholeBit >= 0 && (mask & (1 << wholeBit)) !== 0 && counted === 1 ? 1 : coverage));
      if (n.label.toLowerCase().replace(/[^a-z0-9]+/g, '') === whole) lex *= 1.5; // the query names this node exactly
      candidates.push({ node, lex, mask });
      if (lex > best) best = lex;
    }
    const rerank = options.graphRerank ?? true;
    const ranked: { node: number; final: number; lexical: number; centrality: number; mask: number }[] = [];
    for (const c of candidates) {
      const lexical = best > 0 ? c.lex / best : 0;
      const pr = pagerank ? (pagerank[c.node] ?? 0) : 0;
      // log-compress: PageRank is heavy-tailed; this keeps hubs from drowning better text matches.
      const centrality = Math.log1p(pr * 1000) / Math.log1p(1000);
      const final = rerank ? LEXICAL_SHARE * lexical + (1 - LEXICAL_SHARE) * centrality : lexical;
      if (final >= minScore) ranked.push({ node: c.node, final, lexical, centrality, mask: c.mask });
    }
    const round = (x: number): number => Math.round(x * 1e4) / 1e4;
    ranked.sort((a, b) => b.final - a.final || (graph.node(a.node)!.id < graph.node(b.node)!.id ? -1 : 1));
    return ranked.slice(0, topK).map((r) => {
      const n = graph.node(r.node)!;
      const hit: SeekHit = {
        id: n.id,
        kind: n.kind,
        label: n.label,
        path: n.path,
        startLine: n.startLine,
        endLine: n.endLine,
        score: round(r.final),
        lexical: round(r.lexical),
        centrality: round(r.centrality),
        matched: queryTokens.filter((_t, i) => (r.mask & (1 << i)) !== 0),
      };
      if (n.doc) hit.doc = n.doc;
      return hit;
    });
  }

  /** Adds one term's BM25 contribution to every live node it occurs in. */
  private accumulate(term: string, bit: number, queryWeight: number, avgdl: number, touched: number[]): void {
    const df = this.documentFrequency(term);
    if (df === 0) return;
    const idf = Math.log(1 + (this.liveDocs - df + 0.5) / (df + 0.5)) * queryWeight;
    const score = this.scratch;
    const masks = this.masks;
    const lengths = this.lengths;
    const versions = this.versions;
    const flag = 1 << bit;
    const add = (node: number, tf: number): void => {
      const s = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[node]) / avgdl));
      if (score[node] === 0 && masks[node] === 0) touched.push(node);
      score[node] += s;
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
    return { tokens: this.sortedVocabulary().length, postings: this.totalPostings, stalePostings: this.stalePostings, documents: this.liveDocs };
  }
}
