/**
 * From BM25F sums to seek scores: query analysis (content terms, the whole identifier, test
 * intent), idf-weighted coverage, kind priors, and the PageRank blend. docs/graph-model.md
 * ("Seek and search") gives the formula.
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import { FLAG_ACCESSOR, FLAG_TEST } from './lexical-build.ts';
import { FIELDS } from './lexical-text.ts';
import { phrasalCompounds, stem, STOP_WORDS, synonymsOf, tokenize, wholeTerm } from './lexical-words.ts';
import { CONSTRUCTION, membersBeforeTheirTypes, TYPE_KINDS } from './seek-members.ts';

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

/** A seek or activation `scope` as the path prefix it compares: no leading `./`, no trailing `/` ('' for none). */
export function scopePrefix(scope: string | undefined): string {
  return scope ? scope.replace(/^\.\/+/, '').replace(/\/+$/, '').replace(/^\.$/, '') : '';
}

/** Whether `path` is the `scopePrefix` `prefix` or under it ('' takes every path; a federated view's `<repo>::` takes that repository's paths). */
export function inScope(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(prefix.endsWith('::') ? prefix : `${prefix}/`);
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
  /** Text relevance in [0,1] (BM25F over the ideal match, coverage, kind prior). */
  lexical: number;
  /** PageRank normalised to the graph's maximum (log-compressed). */
  centrality: number;
  /** The kind prior applied (1 for functions and methods). */
  prior: number;
  /** Query words this node matched. */
  matched: string[];
  doc?: string;
}

/** One query term and what it may do. */
export interface QueryTerm {
  /** Index term (a stem, or a whole identifier). */
  term: string;
  /** The query word it came from (shown in `matched`). */
  word: string;
  /** Also match vocabulary terms starting with it. */
  expand: boolean;
  /** The whole query as one identifier (`parse header` → `parseheader`): not counted for coverage. */
  whole: boolean;
  /** Stems meaning the same in code (`delay` for `wait`). */
  synonyms: readonly string[];
}

/** An analysed query. */
export interface SeekQuery {
  terms: QueryTerm[];
  /** idf per term (0 when the index has never seen it). */
  idf: number[];
  /** The whole-identifier term, when the query is short enough to be one. */
  whole: string;
  /** The query asks for tests ("test", "spec"): test code comes first. */
  wantsTests: boolean;
  /**
   * The query starts with an action ("parse a header", "look up a key"): that word's stem and its
   * synonyms; a function or method whose name starts with one of them is what the query asks for.
   */
  lead: readonly string[];
}

const TEST_WORDS = /\b(tests?|testing|tested|specs?|unittests?|fixtures?)\b/i;
/** Bits in a 32-bit mask per node; the whole-identifier term takes one. */
const MAX_TERMS = 31;
const LEXICAL_SHARE = 0.85;

/** Splits a query into terms (stop words dropped, stemmed), with their idf and the query's intent. */
export function analyzeQuery(text: string, index: { idf(term: string): number }): SeekQuery {
  const tokens = phrasalCompounds(tokenize(text));
  const words = tokens.filter((w) => !STOP_WORDS.has(w));
  // Index terms: a word's halves too (`utf8` → utf8, utf, 8), as the index holds them.
  const termWords = phrasalCompounds(tokenize(text, true)).filter((w) => !STOP_WORDS.has(w));
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  for (const word of termWords) {
    const term = stem(word);
    if (seen.has(term) || terms.length >= MAX_TERMS - 1) continue;
    seen.add(term);
    terms.push({ term, word, expand: term.length >= 4, whole: false, synonyms: synonymsOf(term).filter((x) => !seen.has(x)) });
  }
  // Short queries may name an identifier (`parse header`, `retryRequest`): match it whole too.
  const whole = words.length >= 1 && words.length <= 3 ? wholeTerm(words.join('')) : '';
  if (whole && !seen.has(whole)) terms.push({ term: whole, word: words.join(''), expand: false, whole: true, synonyms: [] });
  const first = tokens.length >= 2 && !STOP_WORDS.has(tokens[0]) && !/^\d/.test(tokens[0]) ? stem(tokens[0]) : '';
  // "check whether …" asks for a predicate too: `isAllowed`, `has_key`, `canDraft`.
  const lead = first ? [first, ...synonymsOf(first), ...(first === 'check' ? PREDICATE_HEADS : [])] : [];
  return { terms, idf: terms.map((t) => index.idf(t.term)), whole, wantsTests: TEST_WORDS.test(text), lead };
}

/** First words of predicates' names: what "check whether …" leads to besides check and its synonyms. */
const PREDICATE_HEADS = ['is', 'has', 'can'].map(stem);

/**
 * The prior of a function or method whose name starts with the query's leading action (`parse a
 * header` → `parseHeader`, not `HeaderParser.reset`): code is named verb first.
 */
const LEAD_ACTION = 1.15;

/** The largest prior a node can get for `q` (a function; ×1.4 in a test file when the query asks for tests; the leading action). */
function largestPrior(q: Pick<SeekQuery, 'wantsTests' | 'lead'>): number {
  return (q.wantsTests ? 1.4 : 1) * (q.lead.length ? LEAD_ACTION : 1);
}

/** Whether a function's or method's name starts with one of `lead`'s stems (memoised per label in `memo`). */
function startsWithLead(label: string, lead: readonly string[], memo: Map<string, boolean>): boolean {
  let hit = memo.get(label);
  if (hit === undefined) {
    const head = tokenize(label.replace(/^.*\./, ''))[0];
    hit = head !== undefined && lead.includes(stem(head));
    memo.set(label, hit);
  }
  return hit;
}

/**
 * How much a kind of hit is worth before its text is compared: the function doing the work first;
 * classes just behind; types and interfaces (the words without the work) further; Markdown sections
 * behind code, however the query is phrased ("where is X parsed" or "parse X"); files and directories
 * only as a fallback. Code in test files steps
 * back unless the query asks for tests, and then comes first.
 */
export function kindPrior(kind: NodeKind, isTest: boolean, q: Pick<SeekQuery, 'wantsTests'>): number {
  let p: number;
  switch (kind) {
    case 'function':
    case 'method':
      p = 1;
      break;
    case 'class':
      p = 0.85;
      break;
    case 'interface':
    case 'type':
      p = 0.65;
      break;
    case 'section':
      p = 0.5;
      break;
    default:
      p = 0.55;
  }
  if (isTest) p *= q.wantsTests ? 1.4 : 0.4;
  return p;
}

/** Kinds whose prior steps back for words, not for their own name (kindPrior). */
const NAMED_AS_CALLABLE: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);

/** One scored candidate. */
interface Scored {
  node: number;
  final: number;
  lexical: number;
  centrality: number;
  prior: number;
  mask: number;
}

/**
 * Scores BM25F sums into ranked hits. `touched` lists the nodes with a sum (its first `count`); `sums` and `masks` hold
 * each one's sum and matched-term bits. Only the best `topK` are kept (a bounded heap: a common
 * word touches tens of thousands of nodes, and sorting them all would dominate the query).
 */
export function scoreCandidates(
  graph: CodeGraph,
  q: SeekQuery,
  touched: Int32Array,
  count: number,
  sums: Float64Array,
  masks: Uint32Array,
  flags: Uint8Array,
  pagerank: Float64Array | null,
  options: SeekOptions,
  k1: number,
  kept?: { threshold: number },
): SeekHit[] {
  const topK = options.topK ?? 20;
  const minScore = options.minScore ?? 0.05;
  const kinds = options.kinds && options.kinds.length ? new Set(options.kinds) : null;
  const scope = scopePrefix(options.scope);
  // The ideal: every content term matched once in the name. A score of 1 means "named for the query".
  const nameSat = (FIELDS.name.weight * (k1 + 1)) / (FIELDS.name.weight + k1);
  let ideal = 0;
  let idfMass = 0;
  let contentBits = 0;
  q.terms.forEach((t, i) => {
    if (t.whole) return;
    ideal += q.idf[i] * nameSat;
    idfMass += q.idf[i];
    contentBits |= 1 << i;
  });
  if (ideal === 0) ideal = 1;
  const wholeBit = q.terms.findIndex((t) => t.whole);
  const rerank = options.graphRerank ?? true;
  const heap: Scored[] = [];
  const worse = (a: Scored, b: Scored): boolean => a.final < b.final || (a.final === b.final && graph.node(a.node)!.id > graph.node(b.node)!.id);
  // The largest prior; centrality's factor is ≤ 1.
  const priorMax = largestPrior(q);
  const leads = new Map<string, boolean>();
  const wholeFlag = wholeBit >= 0 ? 1 << wholeBit : 0;
  for (let t = 0; t < count; t++) {
    const node = touched[t];
    const mask = masks[node];
    // idf-weighted coverage: matching the rare words of the query matters more than the common ones.
    let covered = 0;
    for (let m = mask & contentBits; m !== 0; m &= m - 1) covered += q.idf[31 - Math.clz32(m & -m)];
    const wholeHit = (mask & wholeFlag) !== 0;
    const coverage = idfMass > 0 ? covered / idfMass : wholeHit ? 1 : 0;
    // 1 − e^(−1.6·x): monotonic (strong matches keep their order instead of tying at 1), 0.8 at the ideal.
    let text = (1 - Math.exp((-1.6 * sums[node]) / ideal)) * (0.5 + 0.5 * coverage);
    // The most this node can score (whatever its kind and centrality): below the worst kept, it cannot enter.
    // (1e-9 above it: the centrality factor 0.85 + 0.15·c can round a hair above 1.)
    const bound = Math.min(1, (wholeHit ? Math.min(1, text * 1.25 + 0.1) : text) * priorMax) * (1 + 1e-9);
    if (bound < minScore || (heap.length >= topK && bound < heap[0].final)) continue;
    const n = graph.node(node);
    if (!n) continue;
    if (kinds && !kinds.has(n.kind)) continue;
    if (!inScope(n.path, scope)) continue;
    const named = wholeHit && wholeTerm(n.label.replace(/\.[^.]+$/, '')) === q.whole;
    if (named) text = Math.min(1, text * 1.25 + 0.1); // the query names this node
    const callable = n.kind === 'function' || n.kind === 'method';
    // A class or type the query names is weighed as a function: what is asked for by name comes first.
    const prior =
      kindPrior(named && NAMED_AS_CALLABLE.has(n.kind) ? 'function' : n.kind, (flags[node] & FLAG_TEST) !== 0, q) *
      (n.kind === 'method' && declaredOnly(graph, n) ? INTERFACE_MEMBER : 1) *
      ((flags[node] & FLAG_ACCESSOR) !== 0 ? ACCESSOR : 1) *
      (callable && q.lead.length && startsWithLead(n.label, q.lead, leads) ? LEAD_ACTION : 1);
    const lexical = text * prior;
    const pr = pagerank ? (pagerank[node] ?? 0) : 0;
    // log-compress: PageRank is heavy-tailed; it separates near-ties and never lifts a weak match far.
    const centrality = Math.log1p(pr * 1000) / Math.log1p(1000);
    const final = Math.min(1, rerank ? lexical * (LEXICAL_SHARE + (1 - LEXICAL_SHARE) * centrality) : lexical);
    if (final < minScore) continue;
    const c: Scored = { node, final, lexical, centrality, prior, mask };
    if (heap.length < topK) heapPush(heap, c, worse);
    else if (worse(heap[0], c)) heapReplaceTop(heap, c, worse);
  }
  // What a node not scored here would have to beat to enter the results.
  if (kept) kept.threshold = heap.length >= topK ? heap[0].final : minScore;
  const round = (x: number): number => Math.round(x * 1e4) / 1e4;
  heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  membersBeforeTheirType(graph, heap, q);
  return heap.map((r) => {
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
      prior: round(r.prior),
      matched: [...new Set(q.terms.filter((_t, i) => (r.mask & (1 << i)) !== 0).map((t) => t.word))],
    };
    if (n.doc) hit.doc = n.doc;
    return hit;
  });
}

/** The prior of an accessor (a body that only reads or sets a value): it names the thing, the code using it does the work. */
const ACCESSOR = 0.7;
/** The prior of an interface's method, as of an interface: the words of a contract, the work done by its implementations. */
const INTERFACE_MEMBER = 0.65;

/** Whether a method is a member of an interface (TS/Java): a signature its implementations fulfil. */
function declaredOnly(graph: CodeGraph, n: GraphNode): boolean {
  const q = n.qualifiedName ?? '';
  const dot = q.lastIndexOf('.');
  return dot > 0 && graph.get(`interface:${n.path}#${q.slice(0, dot)}`) !== null;
}
/** Seek's pass: a type the query does not name, or a constructor it does not ask about, goes right after its class's best-ranked method. */
function membersBeforeTheirType(graph: CodeGraph, ranked: Scored[], q: SeekQuery): void {
  const wholeBit = q.terms.findIndex((t) => t.whole);
  const construction = q.terms.some((t) => CONSTRUCTION.has(t.word));
  membersBeforeTheirTypes(
    graph,
    ranked,
    (r) => r.node,
    (r, t) => (TYPE_KINDS.has(t.kind) ? wholeBit >= 0 && (r.mask & (1 << wholeBit)) !== 0 && wholeTerm(t.label) === q.whole : construction),
    (r) => r.final,
    (r, final) => ({ ...r, final }),
  );
}

/**
 * The highest final score a node can reach with matched-term bits within `bits` and a BM25 sum of at
 * most `sum` (whatever its kind, test flag and centrality): `scoreCandidates`'s formula at its maximum.
 */
export function scoreBound(q: SeekQuery, bits: number, sum: number, k1: number): number {
  const nameSat = (FIELDS.name.weight * (k1 + 1)) / (FIELDS.name.weight + k1);
  let ideal = 0;
  let idfMass = 0;
  let covered = 0;
  let wholeHit = false;
  q.terms.forEach((t, i) => {
    if (t.whole) {
      if ((bits & (1 << i)) !== 0) wholeHit = true;
      return;
    }
    ideal += q.idf[i] * nameSat;
    idfMass += q.idf[i];
    if ((bits & (1 << i)) !== 0) covered += q.idf[i];
  });
  if (ideal === 0) ideal = 1;
  const coverage = idfMass > 0 ? covered / idfMass : wholeHit ? 1 : 0;
  let text = (1 - Math.exp((-1.6 * sum) / ideal)) * (0.5 + 0.5 * coverage);
  if (wholeHit) text = Math.min(1, text * 1.25 + 0.1);
  // The largest prior; centrality's factor is ≤ 1.
  return Math.min(1, text * largestPrior(q)) * (1 + 1e-9);
}

/** Min-heap push (the root is the worst kept candidate). */
function heapPush<T>(heap: T[], x: T, worse: (a: T, b: T) => boolean): void {
  heap.push(x);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(heap[i], heap[parent])) break;
    [heap[i], heap[parent]] = [heap[parent], heap[i]];
    i = parent;
  }
}

/** Replaces the root (the worst kept) and sifts down. */
function heapReplaceTop<T>(heap: T[], x: T, worse: (a: T, b: T) => boolean): void {
  heap[0] = x;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let w = i;
    if (l < heap.length && worse(heap[l], heap[w])) w = l;
    if (r < heap.length && worse(heap[r], heap[w])) w = r;
    if (w === i) break;
    [heap[i], heap[w]] = [heap[w], heap[i]];
    i = w;
  }
}
