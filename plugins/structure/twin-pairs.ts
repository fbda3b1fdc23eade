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
  const seen = new Set<number>();
  const pairs: { a: number; b: number; ast: number }[] = [];
  for (let band = 0; band < BANDS; band++) {
    const buckets = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      let key = '';
      for (let r = 0; r < ROWS; r++) key += `${minhash[i * HASHES + band * ROWS + r]},`;
      const list = buckets.get(key);
      if (!list) buckets.set(key, [i]);
      else if (list.length < MAX_BUCKET) list.push(i);
    }
    for (const list of buckets.values()) {
      for (let x = 0; x < list.length; x++) {
        for (let y = x + 1; y < list.length; y++) {
          const a = list[x];
          const b = list[y];
          const key = a * n + b;
          if (seen.has(key)) continue;
          seen.add(key);
          const ast = jaccard(shapes[a].shingles, shapes[b].shingles);
          if (ast >= threshold) pairs.push({ a, b, ast });
        }
      }
    }
  }
  pairs.sort((p, q) => q.ast - p.ast || p.a - q.a || p.b - q.b);
  return pairs.slice(0, maxPairs);
}
