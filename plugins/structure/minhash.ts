/** MinHash signatures of shingle sets (twin-pairs.ts's LSH); pure, so the facts workers compute them with the shapes. */

/** Hash functions per signature. */
export const HASHES = 32;

export function mix(x: number, seed: number): number {
  let h = (x ^ seed) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export const SEEDS = Array.from({ length: HASHES }, (_, i) => mix(i + 1, 0x9e3779b9));

/** The MinHash signature of a shingle set: per seed, the least mixed shingle. */
export function minhashOf(shingles: Int32Array): Int32Array {
  const out = new Int32Array(HASHES);
  for (let h = 0; h < HASHES; h++) {
    let min = 0x7fffffff;
    const seed = SEEDS[h];
    for (let k = 0; k < shingles.length; k++) {
      const v = mix(shingles[k], seed);
      if (v < min) min = v;
    }
    out[h] = min;
  }
  return out;
}
