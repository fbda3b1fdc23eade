/**
 * Structural signatures, the `fingerprint` kernel. A node's signature is the set of what it does in
 * the graph, named by *label* so that copies in different files match: "calls function `join`",
 * "references class `Path`", "contains method `close`", … Similarity of two nodes of the same kind
 * is 0.8 × Jaccard(signatures) + 0.2 × size ratio. All-pairs search uses MinHash with LSH banding
 * (bounded buckets), a single target uses an inverted index; both only score candidate pairs.
 */
import { RELATION_CODE, RELATIONS, type CodeGraph } from '../engine/graph.ts';
import { CONTAINS, ensureFinal, KIND_CODE, kindCodes } from './graph-facts.ts';
import { runSteps, runStepsPaced } from '../engine/steps.ts';

const FEATURE_RELATIONS = new Uint8Array(16);
for (const r of ['calls', 'references', 'imports', 'inherits', 'implements'] as const) FEATURE_RELATIONS[RELATION_CODE[r]] = 1;
FEATURE_RELATIONS[CONTAINS] = 1;

/** Kinds that can be compared (files and modules are containers, sections are prose). */
export const COMPARABLE_KINDS = ['function', 'method', 'class', 'interface', 'type'] as const;

/**
 * The features of every node in one table (no array per node: a stdlib-sized graph has ~50,000
 * comparable nodes, and as many small arrays would live through every young-generation collection).
 */
export interface SignatureCache {
  version: number;
  /** Node i's features are `values[offsets[i], offsets[i + 1])`, sorted and distinct (none: not comparable, or no feature). */
  offsets: Int32Array;
  values: Int32Array;
  /** feature → nodes having it (built on first single-target query). */
  inverted?: Map<number, number[]>;
  minhash?: Int32Array;
  /** 1 where `minhash` holds the node's signature. */
  hashed?: Uint8Array;
}
const caches = new WeakMap<CodeGraph, SignatureCache>();
const HASHES = 24;
const BANDS = 6;
const ROWS = HASHES / BANDS;
const MAX_BUCKET = 64;

/** Node i's features (a view of the table), or null when it has none. */
export function featuresOf(c: SignatureCache, i: number): Int32Array | null {
  const from = c.offsets[i];
  const to = c.offsets[i + 1];
  return to > from ? c.values.subarray(from, to) : null;
}

/** How many features node i has. */
export function featureCount(c: SignatureCache, i: number): number {
  return c.offsets[i + 1] - c.offsets[i];
}

function strHash(s: string, seed: number): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

function mix(x: number, seed: number): number {
  let h = (x ^ seed) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** Signature features of every comparable node (sorted, deduplicated), cached per graph version. */
export function signatures(g: CodeGraph): SignatureCache {
  ensureFinal(g);
  const hit = caches.get(g);
  if (hit && hit.version === g.version) return hit;
  const build = new FeatureBuild(g);
  build.fill(0, g.nodeCapacity);
  return build.done();
}

/**
 * `signatures` made ahead, a few thousand nodes between two `pace()`s (in one go a stdlib-sized graph
 * holds the loop ~40-90 ms): the caller's next `signatures` or `structuralSimilarity` finds them
 * cached. Gives up when the graph changes meanwhile.
 */
export async function warmSignatures(g: CodeGraph, pace: () => Promise<void>): Promise<void> {
  ensureFinal(g);
  if (caches.get(g)?.version === g.version) return;
  const version = g.version;
  const build = new FeatureBuild(g);
  for (let from = 0; from < g.nodeCapacity; from += WARM_NODES_PER_STEP) {
    build.fill(from, Math.min(g.nodeCapacity, from + WARM_NODES_PER_STEP));
    await pace();
    if (g.version !== version) return;
  }
  build.done();
}

/** Nodes read between two paces of `warmSignatures`. */
const WARM_NODES_PER_STEP = 2_048;

/** The features of a graph's nodes, a range at a time in node order (a plain loop per range: V8 optimises it). */
class FeatureBuild {
  private readonly kinds: Uint8Array;
  private readonly comparable = new Uint8Array(256);
  private readonly labelHash = new Map<string, number>();
  private readonly offsets: Int32Array;
  private values: Int32Array;
  private size = 0;
  /** The next node to fill: ranges come in order. */
  private next = 0;
  private buf = new Int32Array(256);

  constructor(private readonly g: CodeGraph) {
    this.kinds = kindCodes(g);
    for (const k of COMPARABLE_KINDS) this.comparable[KIND_CODE[k]] = 1;
    this.offsets = new Int32Array(g.nodeCapacity + 1);
    this.values = new Int32Array(Math.max(1024, g.nodeCapacity * 2));
  }

  fill(from: number, to: number): void {
    if (from !== this.next) throw new Error(`signature features filled out of order (${from}, expected ${this.next})`);
    const { g, kinds, comparable, labelHash, offsets } = this;
    for (let i = from; i < to; i++) {
      offsets[i] = this.size;
      if (!comparable[kinds[i]] || i + 1 >= g.outOffsets.length) continue;
      const first = g.outOffsets[i];
      const last = g.outOffsets[i + 1];
      if (this.buf.length < last - first) this.buf = new Int32Array(2 * (last - first));
      const buf = this.buf;
      let n = 0;
      for (let k = first; k < last; k++) {
        const e = g.outEdges[k];
        const r = g.edgeRelation[e];
        if (!FEATURE_RELATIONS[r]) continue;
        const t = g.edgeTarget[e];
        const node = g.node(t)!;
        let h = labelHash.get(node.label);
        if (h === undefined) labelHash.set(node.label, (h = strHash(node.label, 0)));
        buf[n++] = mix(h, r * 31 + kinds[t] + 1);
      }
      if (n === 0) continue;
      const sorted = buf.subarray(0, n).sort();
      if (this.values.length < this.size + n) {
        const grown = new Int32Array(Math.max(this.values.length * 2, this.size + n));
        grown.set(this.values.subarray(0, this.size));
        this.values = grown;
      }
      const values = this.values;
      for (let k = 0; k < n; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) values[this.size++] = sorted[k];
    }
    this.next = to;
  }

  /** Caches and returns the features made. */
  done(): SignatureCache {
    this.offsets[this.g.nodeCapacity] = this.size;
    const c: SignatureCache = { version: this.g.version, offsets: this.offsets, values: this.values.slice(0, this.size) };
    caches.set(this.g, c);
    return c;
  }
}

/** Features shared by nodes a and b (both sorted runs of the table). */
function sharedFeatures(c: SignatureCache, a: number, b: number): number {
  const v = c.values;
  let i = c.offsets[a];
  const iEnd = c.offsets[a + 1];
  let k = c.offsets[b];
  const kEnd = c.offsets[b + 1];
  let shared = 0;
  while (i < iEnd && k < kEnd) {
    if (v[i] === v[k]) {
      shared++;
      i++;
      k++;
    } else if (v[i] < v[k]) i++;
    else k++;
  }
  return shared;
}

function loc(g: CodeGraph, i: number): number {
  const n = g.node(i)!;
  return Math.max(1, n.endLine - n.startLine + 1);
}

/** Structural similarity of two nodes in [0,1] (0 for different kinds or too little structure). */
export function structuralSimilarity(g: CodeGraph, a: number, b: number): { similarity: number; jaccard: number; shared: number; sizeRatio: number } {
  const c = signatures(g);
  const kinds = kindCodes(g);
  const na = featureCount(c, a);
  const nb = featureCount(c, b);
  if (na === 0 || nb === 0 || kinds[a] !== kinds[b]) return { similarity: 0, jaccard: 0, shared: 0, sizeRatio: 0 };
  const shared = sharedFeatures(c, a, b);
  const union = na + nb - shared;
  const j = union === 0 ? 0 : shared / union;
  const la = loc(g, a);
  const lb = loc(g, b);
  const sizeRatio = Math.min(la, lb) / Math.max(la, lb);
  return { similarity: 0.8 * j + 0.2 * sizeRatio, jaccard: j, shared, sizeRatio };
}

export interface SimilarPair {
  a: number;
  b: number;
  similarity: number;
  jaccard: number;
  shared: number;
  sizeRatio: number;
}

/** Nodes similar to `target` at or above `threshold`, best first (candidates share ≥ 1 feature). */
export function similarTo(g: CodeGraph, target: number, threshold: number, limit: number, minFeatures = 2): SimilarPair[] {
  const c = signatures(g);
  const f = featuresOf(c, target);
  if (!f || f.length < minFeatures) return [];
  if (!c.inverted) {
    const inv = new Map<number, number[]>();
    for (let i = 0; i + 1 < c.offsets.length; i++) {
      for (let k = c.offsets[i]; k < c.offsets[i + 1]; k++) {
        const x = c.values[k];
        let list = inv.get(x);
        if (!list) inv.set(x, (list = []));
        list.push(i);
      }
    }
    c.inverted = inv;
  }
  const counts = new Map<number, number>();
  for (const x of f) {
    const list = c.inverted.get(x)!;
    if (list.length > 20_000) continue; // a feature everything has says nothing
    for (const i of list) if (i !== target) counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  // similarity ≥ T needs Jaccard ≥ (T − 0.2) / 0.8, hence shared ≥ that × |f| (the union is at least |f|).
  const need = Math.max(1, Math.ceil(Math.max(0, (threshold - 0.2) / 0.8) * f.length - 1e-9));
  const out: SimilarPair[] = [];
  for (const [i, shared] of counts) {
    if (shared < need || featureCount(c, i) < minFeatures) continue;
    const s = structuralSimilarity(g, target, i);
    if (s.similarity >= threshold) out.push({ a: target, b: i, ...s });
  }
  return out.sort((x, y) => y.similarity - x.similarity || x.b - y.b).slice(0, limit);
}

/**
 * Pairs of similar nodes over the graph (or over `restrictTo`), found by MinHash/LSH candidates
 * and scored exactly; `maxPairs` bounds the candidates scored.
 */
export function similarPairs(g: CodeGraph, threshold: number, options: PairOptions): PairsFound {
  return runSteps(pairSteps(g, threshold, options));
}

export interface PairOptions {
  limit: number;
  minFeatures?: number;
  restrictTo?: readonly number[];
  maxCandidates?: number;
}

export interface PairsFound {
  pairs: SimilarPair[];
  candidates: number;
  truncated: boolean;
}

/**
 * `similarPairs` between `pace()`s: the features warmed first, then the bands' bucketing and the
 * candidate comparisons in steps (the whole run held the loop 350-500 ms on the stdlib's graph).
 * A graph changed meanwhile starts it again; after three changes it finishes in one go.
 */
export async function similarPairsPaced(g: CodeGraph, threshold: number, options: PairOptions, pace: () => Promise<void>): Promise<PairsFound> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await warmSignatures(g, pace);
    ensureFinal(g);
    const version = g.version;
    const found = await runStepsPaced(pairSteps(g, threshold, options), pace, () => g.version !== version || g.needsFinalize);
    if (found) return found;
  }
  return similarPairs(g, threshold, options);
}

/** Nodes bucketed, or candidate pairs compared, between two steps of `pairSteps`. */
const PAIR_WORK_PER_STEP = 1_024;

function* pairSteps(g: CodeGraph, threshold: number, options: PairOptions): Generator<void, PairsFound> {
  const c = signatures(g);
  const minFeatures = options.minFeatures ?? 2;
  const maxCandidates = options.maxCandidates ?? 200_000;
  let nodes = options.restrictTo;
  if (!nodes) {
    const all: number[] = [];
    for (let i = 0; i + 1 < c.offsets.length; i++) if (featureCount(c, i) >= Math.max(1, minFeatures)) all.push(i);
    nodes = all;
  }
  c.minhash ??= new Int32Array(g.nodeCapacity * HASHES);
  c.hashed ??= new Uint8Array(g.nodeCapacity);
  const mh = c.minhash;
  const computed = c.hashed;
  const sig = (i: number): void => {
    if (computed[i]) return;
    computed[i] = 1;
    const from = c.offsets[i];
    const to = c.offsets[i + 1];
    for (let h = 0; h < HASHES; h++) {
      let m = 0x7fffffff;
      const seed = 0x9e3779b9 * (h + 1);
      for (let k = from; k < to; k++) {
        const v = mix(c.values[k], seed) & 0x7fffffff;
        if (v < m) m = v;
      }
      mh[i * HASHES + h] = m;
    }
  };
  const seenPairs = new Set<number>();
  const pairs: SimilarPair[] = [];
  let candidates = 0;
  let truncated = false;
  const kinds = kindCodes(g);
  for (let band = 0; band < BANDS && !truncated; band++) {
    const buckets = new Map<number, number[]>();
    let work = 0;
    for (const i of nodes) {
      if (++work % PAIR_WORK_PER_STEP === 0) yield;
      if (featureCount(c, i) < Math.max(1, minFeatures)) continue;
      sig(i);
      let key = band * 7919 + kinds[i];
      for (let r = 0; r < ROWS; r++) key = mix(key, mh[i * HASHES + band * ROWS + r]);
      let b = buckets.get(key);
      if (!b) buckets.set(key, (b = []));
      b.push(i);
    }
    for (const bucket of buckets.values()) {
      if (bucket.length < 2 || bucket.length > MAX_BUCKET) continue;
      for (let x = 0; x < bucket.length && !truncated; x++) {
        for (let y = x + 1; y < bucket.length; y++) {
          if (++work % PAIR_WORK_PER_STEP === 0) yield;
          const a = Math.min(bucket[x], bucket[y]);
          const b = Math.max(bucket[x], bucket[y]);
          const key = a * g.nodeCapacity + b;
          if (seenPairs.has(key)) continue;
          seenPairs.add(key);
          if (++candidates > maxCandidates) {
            truncated = true;
            break;
          }
          const s = structuralSimilarity(g, a, b);
          if (s.similarity >= threshold) pairs.push({ a, b, ...s });
        }
      }
    }
  }
  pairs.sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b);
  return { pairs: pairs.slice(0, options.limit), candidates, truncated };
}

/** Human-readable names of the features two nodes share (at most `max`). */
export function sharedFeatureNames(g: CodeGraph, a: number, b: number, max = 5): string[] {
  const describe = (i: number): Map<string, string> => {
    const m = new Map<string, string>();
    const kinds = kindCodes(g);
    for (let k = g.outOffsets[i]; k < g.outOffsets[i + 1]; k++) {
      const e = g.outEdges[k];
      const r = g.edgeRelation[e];
      if (!FEATURE_RELATIONS[r]) continue;
      const t = g.node(g.edgeTarget[e])!;
      m.set(`${r}:${kinds[g.edgeTarget[e]]}:${t.label}`, `${r === CONTAINS ? 'contains' : relationName(r)} ${t.kind} ${t.label}`);
    }
    return m;
  };
  const da = describe(a);
  const db = describe(b);
  const out: string[] = [];
  for (const [k, text] of da) if (db.has(k) && out.length < max) out.push(text);
  return out;
}

function relationName(code: number): string {
  return RELATIONS[code] ?? String(code);
}
