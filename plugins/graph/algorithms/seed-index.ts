/**
 * Lexical seeds for activation with bounded work. Same fields as the engine's seek index (names,
 * whole identifiers, parent names, directories, file path, doc comments) scored BM25-style, but each
 * term's postings are stored strongest first and a query reads at most MAX_POSTINGS of them (and a
 * few prefix expansions, MAX_EXPANSION_POSTINGS each): a word that half the graph contains ("test")
 * costs the same as a rare one, and only its weakest, least informative matches are skipped.
 *
 * Kept per CodeGraph and patched on a version change: nodes whose object changed are re-indexed
 * into a small unsorted tail (their old postings are skipped by a per-node generation); the sorted
 * postings are rebuilt when the tail or the stale entries grow past a fraction of the index.
 */
import type { CodeGraph, GraphNode } from '../engine/graph.ts';
import { tokenize } from '../engine/lexical-index.ts';
import { MaxHeap } from './heap.ts';
import { runStepsPaced } from '../engine/steps.ts';
import { sortSteps } from './sort-steps.ts';

const FIELD = { name: 3, fullName: 3, parent: 1, dir: 1, path: 0.4, doc: 1 } as const;
const K1 = 1.2;
const B = 0.75;
/** Postings read per query term at most (strongest first). */
export const MAX_POSTINGS = 2000;
const MAX_EXPANSIONS = 8;
const MAX_EXPANSION_POSTINGS = 400;
const STOP = new Set('a an and are as at be by for from has have if in into is it its of on or that the this to was were will with not no'.split(' '));

export interface SeedHit {
  index: number;
  /** Score normalised to the best hit (0..1]. */
  score: number;
  /** Query words this node matched. */
  matched: string[];
}

interface Postings {
  nodes: Int32Array;
  tf: Float32Array;
  gen: Uint32Array;
}

interface Tail {
  nodes: number[];
  tf: number[];
  gen: number[];
}

class Index {
  version = -1;
  snapshot: (GraphNode | null)[] = [];
  nodeGen = new Uint32Array(0);
  nodeTerms: (Map<string, number> | null)[] = [];
  lengths = new Float32Array(0);
  main = new Map<string, Postings>();
  tail = new Map<string, Tail>();
  df = new Map<string, number>();
  vocab: string[] = [];
  live = 0;
  totalLength = 0;
  mainSize = 0;
  tailSize = 0;
  stale = 0;
}

const indexes = new WeakMap<CodeGraph, Index>();
let score = new Float64Array(0);
let mask = new Uint32Array(0);
const top = new MaxHeap();

/** tokenize() memoised for strings many nodes share (paths, parent names); reset per build. */
const memo = new Map<string, string[]>();
function tokensOf(text: string): string[] {
  let t = memo.get(text);
  if (!t) {
    if (memo.size > 200_000) memo.clear();
    memo.set(text, (t = tokenize(text)));
  }
  return t;
}

function terms(n: GraphNode): Map<string, number> {
  const out = new Map<string, number>();
  const add = (tokens: string[], w: number): void => {
    for (const t of tokens) if (w >= FIELD.name || !STOP.has(t)) out.set(t, (out.get(t) ?? 0) + w);
  };
  const whole = (name: string): void => {
    const full = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
    if (full.length >= 2) out.set(full, Math.max(out.get(full) ?? 0, FIELD.fullName));
  };
  const slash = n.path.lastIndexOf('/');
  const dir = slash > 0 ? n.path.slice(0, slash) : '';
  if (n.kind === 'file' || n.kind === 'module') {
    const stem = n.kind === 'file' ? n.label.replace(/\.[^.]+$/, '') : n.label;
    add(tokenize(stem), FIELD.name);
    whole(stem);
    add(tokensOf(dir), FIELD.dir);
  } else {
    add(tokensOf(n.label), FIELD.name);
    whole(n.label);
    const q = n.qualifiedName ?? '';
    const dot = q.lastIndexOf('.');
    if (dot > 0) add(tokensOf(q.slice(0, dot)), FIELD.parent);
    add(tokensOf(n.path.replace(/\.[^./]+$/, '')), FIELD.path);
  }
  if (n.doc) add(tokenize(n.doc).slice(0, 60), FIELD.doc);
  return out;
}

function sum(m: Map<string, number>): number {
  let s = 0;
  for (const v of m.values()) s += v;
  return s;
}

function build(g: CodeGraph): Index {
  const steps = buildSteps(g);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/** Nodes, or postings lists, between two steps of the build (a whole stdlib-sized build is ~0.7 s; each step well under a millisecond). */
const NODES_PER_STEP = 256;
const TERMS_PER_STEP = 256;

function* buildSteps(g: CodeGraph): Generator<void, Index> {
  const ix = new Index();
  const n = g.nodeCapacity;
  ix.snapshot = new Array(n).fill(null);
  ix.nodeGen = new Uint32Array(n);
  ix.nodeTerms = new Array(n).fill(null);
  ix.lengths = new Float32Array(n);
  const lists = new Map<string, { nodes: number[]; tf: number[] }>();
  for (let i = 0; i < n; i++) {
    if ((i & (NODES_PER_STEP - 1)) === NODES_PER_STEP - 1) yield;
    const node = g.node(i);
    if (!node) continue;
    const t = terms(node);
    ix.snapshot[i] = node;
    ix.nodeTerms[i] = t;
    const len = sum(t);
    ix.lengths[i] = len;
    ix.totalLength += len;
    ix.live++;
    for (const [term, tf] of t) {
      let l = lists.get(term);
      if (!l) lists.set(term, (l = { nodes: [], tf: [] }));
      l.nodes.push(i);
      l.tf.push(tf);
    }
  }
  const avgdl = ix.totalLength / Math.max(1, ix.live);
  let done = 0;
  for (const [term, l] of lists) {
    if (++done % TERMS_PER_STEP === 0) yield;
    const m = l.nodes.length;
    const p: Postings = { nodes: new Int32Array(m), tf: new Float32Array(m), gen: new Uint32Array(m) };
    if (m === 1) {
      p.nodes[0] = l.nodes[0];
      p.tf[0] = l.tf[0];
    } else {
      // Strongest first: the BM25 term-frequency part, which depends on the node alone.
      const strength = new Float64Array(m);
      for (let k = 0; k < m; k++) {
        const tf = l.tf[k];
        strength[k] = (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * ix.lengths[l.nodes[k]]) / avgdl));
      }
      const order: number[] = new Array(m);
      for (let k = 0; k < m; k++) order[k] = k;
      yield* sortSteps(order, (a, b) => strength[b] - strength[a] || l.nodes[a] - l.nodes[b]);
      for (let k = 0; k < m; k++) {
        p.nodes[k] = l.nodes[order[k]];
        p.tf[k] = l.tf[order[k]];
      }
    }
    ix.main.set(term, p);
    ix.df.set(term, m);
    ix.mainSize += m;
  }
  yield;
  ix.vocab = yield* sortSteps([...lists.keys()], (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  ix.version = g.version;
  return ix;
}

/** Patches the index to the graph's current nodes; returns false when a rebuild is cheaper. */
function patch(ix: Index, g: CodeGraph): boolean {
  const n = g.nodeCapacity;
  if (n > ix.snapshot.length) {
    const gen = new Uint32Array(n);
    gen.set(ix.nodeGen);
    ix.nodeGen = gen;
    const len = new Float32Array(n);
    len.set(ix.lengths);
    ix.lengths = len;
    while (ix.snapshot.length < n) {
      ix.snapshot.push(null);
      ix.nodeTerms.push(null);
    }
  }
  for (let i = 0; i < n; i++) {
    const node = g.node(i);
    if (node === ix.snapshot[i]) continue;
    const old = ix.nodeTerms[i];
    if (old) {
      ix.nodeGen[i]++;
      for (const [t] of old) {
        ix.df.set(t, (ix.df.get(t) ?? 1) - 1);
        ix.stale++;
      }
      ix.totalLength -= ix.lengths[i];
      ix.live--;
    }
    ix.snapshot[i] = node;
    ix.nodeTerms[i] = null;
    if (!node) continue;
    const t = terms(node);
    ix.nodeTerms[i] = t;
    ix.lengths[i] = sum(t);
    ix.totalLength += ix.lengths[i];
    ix.live++;
    for (const [term, tf] of t) {
      let tail = ix.tail.get(term);
      if (!tail) ix.tail.set(term, (tail = { nodes: [], tf: [], gen: [] }));
      tail.nodes.push(i);
      tail.tf.push(tf);
      tail.gen.push(ix.nodeGen[i]);
      ix.df.set(term, (ix.df.get(term) ?? 0) + 1);
      ix.tailSize++;
    }
  }
  ix.version = g.version;
  return ix.tailSize < 0.25 * ix.mainSize + 1000 && ix.stale < 0.3 * ix.mainSize + 1000;
}

function indexFor(g: CodeGraph): Index {
  if (g.needsFinalize) g.finalize();
  let ix = indexes.get(g);
  if (!ix || (ix.version !== g.version && !patch(ix, g))) {
    ix = build(g);
    indexes.set(g, ix);
  }
  return ix;
}

/**
 * Builds the seed index ahead, a step between two `pace()`s, when the graph has none yet (a first activation on the stdlib's graph held the loop ~0.9 s building
 * it); a later `lexicalSeeds` of the same version finds it. Gives up when the graph changes meanwhile.
 */
export async function warmSeedIndex(g: CodeGraph, pace: () => Promise<void>): Promise<void> {
  if (g.needsFinalize) g.finalize();
  if (indexes.has(g)) return; // current, or patched on the next read (a change's nodes only)
  const version = g.version;
  const ix = await runStepsPaced(buildSteps(g), pace, () => g.version !== version);
  if (ix && g.version === version) indexes.set(g, ix);
}

/** Vocabulary words that start with `prefix` (shortest first), from the sorted vocabulary. */
function expansions(ix: Index, prefix: string): string[] {
  let lo = 0;
  let hi = ix.vocab.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ix.vocab[mid] < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let k = lo; k < ix.vocab.length && ix.vocab[k].startsWith(prefix) && out.length < 64; k++) if (ix.vocab[k] !== prefix) out.push(ix.vocab[k]);
  return out.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, MAX_EXPANSIONS);
}

/** Ranked lexical seeds for a query (see the module comment). */
export function lexicalSeeds(g: CodeGraph, text: string, topK: number): SeedHit[] {
  const ix = indexFor(g);
  const words = [...new Set(tokenize(text))].slice(0, 31);
  const whole = text.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const queryTerms: { term: string; bit: number; weight: number; cap: number }[] = [];
  words.forEach((w, bit) => {
    queryTerms.push({ term: w, bit, weight: 1, cap: MAX_POSTINGS });
    if (w.length >= 3) for (const x of expansions(ix, w)) queryTerms.push({ term: x, bit, weight: 0.5 * (w.length / x.length), cap: MAX_EXPANSION_POSTINGS });
  });
  if (whole.length >= 2 && !words.includes(whole)) queryTerms.push({ term: whole, bit: 31, weight: 1, cap: MAX_POSTINGS });
  if (queryTerms.length === 0 || ix.live === 0) return [];
  const n = g.nodeCapacity;
  if (score.length < n) {
    score = new Float64Array(n);
    mask = new Uint32Array(n);
  }
  const touched: number[] = [];
  const avgdl = ix.totalLength / Math.max(1, ix.live);
  const visit = (i: number, tf: number, idf: number, weight: number, bit: number): void => {
    const s = (idf * weight * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * ix.lengths[i]) / avgdl));
    if (score[i] === 0) touched.push(i);
    score[i] += s;
    mask[i] |= 1 << bit;
  };
  for (const q of queryTerms) {
    const df = ix.df.get(q.term) ?? 0;
    if (df <= 0) continue;
    const idf = Math.log(1 + (ix.live - df + 0.5) / (df + 0.5));
    const p = ix.main.get(q.term);
    if (p) {
      let read = 0;
      for (let k = 0; k < p.nodes.length && read < q.cap; k++) {
        const i = p.nodes[k];
        if (p.gen[k] !== ix.nodeGen[i]) continue;
        read++;
        visit(i, p.tf[k], idf, q.weight, q.bit);
      }
    }
    const t = ix.tail.get(q.term);
    if (t) for (let k = 0; k < t.nodes.length; k++) if (t.gen[k] === ix.nodeGen[t.nodes[k]]) visit(t.nodes[k], t.tf[k], idf, q.weight, q.bit);
  }
  const distinct = Math.max(1, words.length);
  let best = 0;
  top.clear();
  const hits: { index: number; raw: number; bits: number }[] = [];
  for (const i of touched) {
    const raw = score[i];
    const bits = mask[i];
    score[i] = 0;
    mask[i] = 0;
    const node = g.node(i);
    if (!node) continue;
    let covered = 0;
    for (let b = 0; b < words.length; b++) if (bits & (1 << b)) covered++;
    let s = raw * (0.4 + (0.6 * Math.min(distinct, covered || (bits >>> 31))) / distinct);
    if (node.label.toLowerCase().replace(/[^a-z0-9]+/g, '') === whole) s *= 1.5; // the query names this node
    if (s > best) best = s;
    // Keep the best topK in a min-heap over slots (keys negated): no sort of every touched node.
    if (hits.length < topK) {
      top.push(-s, hits.length);
      hits.push({ index: i, raw: s, bits });
    } else if (topK > 0 && -top.peekKey() < s) {
      const slot = top.pop();
      hits[slot] = { index: i, raw: s, bits };
      top.push(-s, slot);
    }
  }
  const kept = [...hits].sort((a, b) => b.raw - a.raw || a.index - b.index);
  return kept.slice(0, topK).map((h) => ({
    index: h.index,
    score: best > 0 ? h.raw / best : 0,
    matched: words.filter((_, b) => h.bits & (1 << b)).concat(h.bits >>> 31 && !words.length ? [whole] : []),
  }));
}
