/**
 * Candidate twin pairs without comparing every pair: MinHash signatures of the shingle sets and
 * LSH banding (pairs sharing a band bucket are candidates; an oversized bucket is cut, it only holds
 * boilerplate). Candidates are then scored with the exact Jaccard of their shingles.
 */
import { jaccard, type Shape } from './shapes.ts';

const HASHES = 32;
const BANDS = 8;
const ROWS = HASHES / BANDS;
const MAX_BUCKET = 60;

function mix(x: number, seed: number): number {
  let h = (x ^ seed) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

const SEEDS = Array.from({ length: HASHES }, (_, i) => mix(i + 1, 0x9e3779b9));

/** Pairs of indices into `shapes` whose shingle Jaccard is at least `threshold`, best first. */
export function twinPairs(shapes: readonly Shape[], threshold: number, maxPairs: number): { a: number; b: number; ast: number }[] {
  const n = shapes.length;
  const minhash = new Int32Array(n * HASHES);
  for (let i = 0; i < n; i++) {
    const s = shapes[i].shingles;
    for (let h = 0; h < HASHES; h++) {
      let min = 0x7fffffff;
      for (let k = 0; k < s.length; k++) {
        const v = mix(s[k], SEEDS[h]);
        if (v < min) min = v;
      }
      minhash[i * HASHES + h] = min;
    }
  }
  const pairs: { a: number; b: number; ast: number }[] = [];
  // Each band's bucket key as one number (53 bits of two hashes of its rows), then the symbols
  // sorted by key: a bucket is a run of equal keys, in index order — no string or array per symbol.
  // A pair already scored in an earlier band (same key there, both among its bucket's first
  // MAX_BUCKET) is skipped by looking at those bands, not through a set of every pair.
  const keys = new Float64Array(n * BANDS);
  const rank = new Uint16Array(n * BANDS);
  const order = new Uint32Array(n);
  const scoredBefore = (a: number, b: number, band: number): boolean => {
    for (let e = 0; e < band; e++) if (keys[e * n + a] === keys[e * n + b] && rank[e * n + a] < MAX_BUCKET && rank[e * n + b] < MAX_BUCKET) return true;
    return false;
  };
  for (let band = 0; band < BANDS; band++) {
    const base = band * n;
    for (let i = 0; i < n; i++) {
      let h1 = 0x811c9dc5;
      let h2 = 0x01000193;
      for (let r = 0; r < ROWS; r++) {
        const v = minhash[i * HASHES + band * ROWS + r];
        h1 = mix(h1 ^ v, SEEDS[r]);
        h2 = mix(h2 + v, SEEDS[HASHES - 1 - r]);
      }
      keys[base + i] = (h1 >>> 0) * 0x200000 + (h2 >>> 11);
      order[i] = i;
    }
    order.sort((a, b) => keys[base + a] - keys[base + b] || a - b);
    for (let start = 0; start < n; ) {
      let end = start + 1;
      while (end < n && keys[base + order[end]] === keys[base + order[start]]) end++;
      for (let x = start; x < end; x++) rank[base + order[x]] = Math.min(x - start, 0xffff);
      const size = Math.min(end - start, MAX_BUCKET);
      for (let x = start; x < start + size; x++) {
        for (let y = x + 1; y < start + size; y++) {
          const a = order[x];
          const b = order[y];
          if (band > 0 && scoredBefore(a, b, band)) continue;
          const sa = shapes[a].shingles;
          const sb = shapes[b].shingles;
          // Jaccard ≤ smaller ÷ larger set: a pair of very different sizes needs no merge.
          if (Math.min(sa.length, sb.length) < threshold * Math.max(sa.length, sb.length) - 1e-9) continue;
          const ast = jaccard(sa, sb);
          if (ast >= threshold) pairs.push({ a, b, ast });
        }
      }
      start = end;
    }
  }
  pairs.sort((p, q) => q.ast - p.ast || p.a - q.a || p.b - q.b);
  return pairs.slice(0, maxPairs);
}
