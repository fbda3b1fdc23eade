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
    add(tokenize(n.label), FIELD_WEIGHT.name);
    addWhole(n.label);
    const q = n.qualifiedName ?? '';
    const dot = q.lastIndexOf('.');
    if (dot > 0) add(tokensOf(q.slice(0, dot)), FIELD_WEIGHT.parent);
    add(tokensOf(n.path.replace(/\.[^./]+$/, '')), FIELD_WEIGHT.symbolPath);
  }
  if (n.doc) add(tokenize(n.doc).slice(0, 60), FIELD_WEIGHT.doc);
  return terms;
}

/** The seek index over one CodeGraph. */
export class LexicalIndex {
  private readonly postings = new Map<string, Postings>();
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

  /** Indexes every live node of the graph from scratch. */
  rebuild(graph: CodeGraph): void {
    this.postings.clear();
    this.versions = new Int32Array(graph.nodeCapacity);
    this.lengths = new Float32Array(graph.nodeCapacity);
    this.indexed = new Array(graph.nodeCapacity).fill(null);
    this.liveDocs = 0;
    this.totalLength = 0;
    this.totalPostings = 0;
    this.stalePostings = 0;
    this.vocabulary = null;
    for (const [i, n] of graph.nodes()) this.addNode(i, n);
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
    this.ensureCapacity(graph.nodeCapacity);
    const changed: number[] = [];
    for (let i = 0; i < graph.nodeCapacity; i++) if (this.indexed[i] !== graph.node(i)) changed.push(i);
    if (changed.length) this.update(graph, changed);
  }

  private ensureCapacity(n: number): void {
    if (this.versions.length >= n) {
      while (this.indexed.length < n) this.indexed.push(null);
      return;
    }
    const cap = Math.max(n, this.versions.length * 2);
    const v = new Int32Array(cap);
    v.set(this.versions);
    const l = new Float32Array(cap);
    l.set(this.lengths);
    this.versions = v;
    this.lengths = l;
    while (this.indexed.length < n) this.indexed.push(null);
  }

  private addNode(i: number, n: GraphNode): void {
    const version = ++this.versions[i];
    let length = 0;
    for (const [t, w] of nodeTerms(n)) {
      let p = this.postings.get(t);
      if (!p) {
        this.postings.set(t, (p = new Postings()));
        this.vocabulary = null;
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
    if (!this.vocabulary) this.vocabulary = [...this.postings.keys()].sort();
    return this.vocabulary;
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
    const topK = options.topK ?? 20;
    const minScore = options.minScore ?? 0.05;
    const kinds = options.kinds && options.kinds.length ? new Set(options.kinds) : null;
    const scope = options.scope ? options.scope.replace(/^\.\/+/, '').replace(/\/+$/, '') : '';
    const queryTokens = [...new Set(tokenize(text))];
    const whole = text.toLowerCase().replace(/[^a-z0-9]+/g, '');
    if (whole.length >= 2 && !queryTokens.includes(whole)) queryTokens.push(whole);
    if (queryTokens.length === 0 || this.liveDocs === 0) return [];

    if (this.scratch.length < graph.nodeCapacity) this.scratch = new Float64Array(graph.nodeCapacity);
    const score = this.scratch;
    const touched: number[] = [];
    const matchedBy = new Map<number, Set<string>>();
    const avgdl = this.totalLength / Math.max(1, this.liveDocs);
    const distinctQuery = new Set(tokenize(text)).size || 1;

    for (const qt of queryTokens) {
      const variants: [string, number][] = [[qt, 1]];
      if (qt.length >= 3) for (const t of this.expand(qt)) variants.push([t, 0.5 * (qt.length / t.length)]);
      for (const [term, qWeight] of variants) {
        const p = this.postings.get(term);
        if (!p) continue;
        const df = Math.max(1, p.length);
        const idf = Math.log(1 + (this.liveDocs - df + 0.5) / (df + 0.5));
        for (let k = 0; k < p.length; k++) {
          const node = p.nodes[k];
          if (p.versions[k] !== this.versions[node]) continue;
          const tf = p.tf[k];
          const dl = this.lengths[node];
          const s = (idf * qWeight * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * dl) / avgdl));
          if (score[node] === 0) touched.push(node);
          score[node] += s;
          let m = matchedBy.get(node);
          if (!m) matchedBy.set(node, (m = new Set()));
          m.add(qt);
        }
      }
    }

    const candidates: { node: number; lex: number }[] = [];
    let best = 0;
    for (const node of touched) {
      const n = graph.node(node);
      const raw = score[node];
      score[node] = 0;
      if (!n) continue;
      if (kinds && !kinds.has(n.kind)) continue;
      if (scope && n.path !== scope && !n.path.startsWith(`${scope}/`)) continue;
      const matched = matchedBy.get(node)!;
      const coverage = Math.min(1, [...matched].filter((t) => t !== whole || distinctQuery === 1).length / distinctQuery);
      let lex = raw * (0.4 + 0.6 * coverage);
      const label = n.label.toLowerCase().replace(/[^a-z0-9]+/g, '');
      if (label === whole) lex *= 1.5; // the query names this node exactly
      candidates.push({ node, lex });
      if (lex > best) best = lex;
    }
    const rerank = options.graphRerank ?? true;
    const hits: SeekHit[] = [];
    for (const c of candidates) {
      const n = graph.node(c.node)!;
      const lexical = best > 0 ? c.lex / best : 0;
      const pr = pagerank ? pagerank[c.node] ?? 0 : 0;
      // log-compress: PageRank is heavy-tailed; this keeps hubs from drowning better text matches.
      const centrality = Math.log1p(pr * 1000) / Math.log1p(1000);
      const final = rerank ? LEXICAL_SHARE * lexical + (1 - LEXICAL_SHARE) * centrality : lexical;
      if (final < minScore) continue;
      hits.push({
        id: n.id,
        kind: n.kind,
        label: n.label,
        path: n.path,
        startLine: n.startLine,
        endLine: n.endLine,
        score: Math.round(final * 1e4) / 1e4,
        lexical: Math.round(lexical * 1e4) / 1e4,
        centrality: Math.round(centrality * 1e4) / 1e4,
        matched: [...matchedBy.get(c.node)!],
        ...(n.doc ? { doc: n.doc } : {}),
      });
    }
    hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    return hits.slice(0, topK);
  }

  /** Index size facts. */
  stats(): { tokens: number; postings: number; stalePostings: number; documents: number } {
    return { tokens: this.postings.size, postings: this.totalPostings, stalePostings: this.stalePostings, documents: this.liveDocs };
  }
}
