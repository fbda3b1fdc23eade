/**
 * Candidate twin pairs without comparing every pair: MinHash signatures of the shingle sets and
 * LSH banding (pairs sharing a band bucket are candidates; an oversized bucket is cut, it only holds
 * boilerplate). Candidates are then scored with the exact Jaccard of their shingles.
 */
import { structuralSimilarity, warmSignatures, type CodeGraph, type GraphNode } from '../graph/api.ts';
import { HASHES, minhashOf, mix, SEEDS } from './minhash.ts';
import { jaccard, type Shape } from './shapes.ts';

const BANDS = 8;
const ROWS = HASHES / BANDS;
const MAX_BUCKET = 60;

/**
 * Pairs of indices into `shapes` whose shingle Jaccard is at least `threshold`, best first.
 * `covered` (one byte per shape): instead of returning pairs, sets both ends of each pair found and
 * skips the Jaccard of a pair whose ends are both set already (it could only set them again) — the
 * same set of covered shapes for less work, when only who has a partner matters.
 */
export async function twinPairs(shapes: readonly Shape[], threshold: number, maxPairs: number, options: { rows?: number; pace?: () => Promise<void>; covered?: Uint8Array } = {}): Promise<{ a: number; b: number; ast: number }[]> {
  const n = shapes.length;
  const rows = options.rows ?? ROWS;
  const pace = options.pace;
  const covered = options.covered;
  // Yields (pace) between bands and every ~1,000 pair looks (a Jaccard each at most): a large set's LSH takes longer than one turn.
  let looked = 0;
  const bands = HASHES / rows;
  // Signatures made with the shapes (the facts workers) are used as they are.
  const minhash = new Int32Array(n * HASHES);
  for (let i = 0; i < n; i++) {
    minhash.set(shapes[i].minhash ?? minhashOf(shapes[i].shingles), i * HASHES);
    if (pace && (i & 255) === 255) await pace(); // a signature of a long shape is tens of µs
  }
  const pairs: { a: number; b: number; ast: number }[] = [];
  // Each band's bucket key as one number (53 bits of two hashes of its rows), then the symbols
  // grouped by key (a counting sort over the buckets in order of first appearance, not a comparison
  // sort): a bucket is a run of equal keys, in index order — no string or array per symbol. The
  // order buckets are visited in does not change the result (pairs are sorted at the end).
  // A pair already scored in an earlier band (same key there, both among its bucket's first
  // MAX_BUCKET) is skipped by looking at those bands, not through a set of every pair.
  const keys = new Float64Array(n * bands);
  const rank = new Uint16Array(n * bands);
  const order = new Uint32Array(n);
  const bucketOf = new Uint32Array(n);
  const next = new Uint32Array(n + 1);
  const bucketIds = new Map<number, number>();
  const scoredBefore = (a: number, b: number, band: number): boolean => {
    for (let e = 0; e < band; e++) if (keys[e * n + a] === keys[e * n + b] && rank[e * n + a] < MAX_BUCKET && rank[e * n + b] < MAX_BUCKET) return true;
    return false;
  };
  for (let band = 0; band < bands; band++) {
    const base = band * n;
    for (let i = 0; i < n; i++) {
      let h1 = 0x811c9dc5;
      let h2 = 0x01000193;
      for (let r = 0; r < rows; r++) {
        const v = minhash[i * HASHES + band * rows + r];
        h1 = mix(h1 ^ v, SEEDS[r]);
        h2 = mix(h2 + v, SEEDS[HASHES - 1 - r]);
      }
      const key = (h1 >>> 0) * 0x200000 + (h2 >>> 11);
      keys[base + i] = key;
      let id = bucketIds.get(key);
      if (id === undefined) bucketIds.set(key, (id = bucketIds.size));
      bucketOf[i] = id;
      if (pace && (i & 4095) === 4095) await pace();
    }
    // Counting sort: `next` holds each bucket's first slot in `order`, then fills it in index order.
    const buckets = bucketIds.size;
    bucketIds.clear();
    next.fill(0, 0, buckets + 1);
    for (let i = 0; i < n; i++) next[bucketOf[i] + 1]++;
    for (let b = 0; b < buckets; b++) next[b + 1] += next[b];
    for (let i = 0; i < n; i++) order[next[bucketOf[i]]++] = i;
    for (let start = 0; start < n; ) {
      let end = start + 1;
      while (end < n && keys[base + order[end]] === keys[base + order[start]]) end++;
      for (let x = start; x < end; x++) rank[base + order[x]] = Math.min(x - start, 0xffff);
      const size = Math.min(end - start, MAX_BUCKET);
      for (let x = start; x < start + size; x++) {
        for (let y = x + 1; y < start + size; y++) {
          const a = order[x];
          const b = order[y];
          if (covered && covered[a] && covered[b]) continue;
          if (band > 0 && scoredBefore(a, b, band)) continue;
          const sa = shapes[a].shingles;
          const sb = shapes[b].shingles;
          // Jaccard ≤ smaller ÷ larger set: a pair of very different sizes needs no merge.
          if (Math.min(sa.length, sb.length) < threshold * Math.max(sa.length, sb.length) - 1e-9) continue;
          const ast = jaccard(sa, sb);
          if (ast < threshold) continue;
          if (covered) covered[a] = covered[b] = 1;
          else pairs.push({ a, b, ast });
        }
      }
      start = end;
      // A look costs up to a Jaccard merge of two shingle lists: 20,000 of them were a 30-75 ms
      // stretch on the stdlib; every 1,000 the pace checks its clock (it yields once its slice is spent).
      if (pace && (looked += size * size) > 1_000) {
        looked = 0;
        await pace();
      }
    }
    await pace?.();
  }
  pairs.sort((p, q) => q.ast - p.ast || p.a - q.a || p.b - q.b);
  return pairs.slice(0, maxPairs);
}

/** A scored twin pair: `ast` the shape Jaccard, `graph` the graph-signature similarity (null: no features). */
export interface TwinPair {
  a: GraphNode;
  b: GraphNode;
  similarity: number;
  ast: number;
  graph: number | null;
  tokens: [number, number];
}

/**
 * The twin pairs among `symbols` (each kind with its own kind only): shapes of at least `minTokens`
 * tokens, LSH candidates scored by shape Jaccard, then 0.8 × shape + 0.2 × graph signature when
 * the graph has features for the pair; those at or over `threshold`, best first.
 */
export async function scoreTwins(g: CodeGraph, symbols: readonly GraphNode[], shapes: ReadonlyMap<string, Shape>, kinds: ReadonlySet<string>, threshold: number, minTokens: number, pace: () => Promise<void>): Promise<TwinPair[]> {
  const pairs: TwinPair[] = [];
  await warmSignatures(g, pace); // the graph part of the score: every comparable node's features, made paced
  for (const kind of kinds) {
    const nodes = symbols.filter((s) => s.kind === kind && (shapes.get(s.id)?.tokens ?? 0) >= minTokens);
    const list: Shape[] = nodes.map((s) => shapes.get(s.id)!);
    // The AST score must carry most of the threshold on its own: the graph part adds at most 0.2.
    let scored = 0;
    for (const p of await twinPairs(list, Math.max(0.3, threshold - 0.2), 20_000, { pace })) {
      if ((++scored & 511) === 0) await pace();
      const a = nodes[p.a];
      const b = nodes[p.b];
      const s = structuralSimilarity(g, g.indexOf(a.id), g.indexOf(b.id));
      const hasGraph = s.jaccard > 0 || s.shared > 0;
      const similarity = hasGraph ? 0.8 * p.ast + 0.2 * s.similarity : p.ast;
      if (similarity < threshold) continue;
      pairs.push({ a, b, similarity, ast: p.ast, graph: hasGraph ? s.similarity : null, tokens: [list[p.a].tokens, list[p.b].tokens] });
    }
    await pace();
  }
  pairs.sort((x, y) => y.similarity - x.similarity || x.a.id.localeCompare(y.a.id));
  return pairs;
}
