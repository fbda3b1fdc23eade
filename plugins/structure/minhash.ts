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

const EMPTY_BIN = 0x7fffffff;

/**
 * A one-permutation MinHash signature (one hash per shingle instead of HASHES): each shingle's hash
 * picks a bin by its top 5 bits and competes for that bin's least value; an empty bin borrows the
 * next filled bin's value mixed with the distance (densification), so equal sets still give equal
 * signatures and slot agreement still estimates the Jaccard. ~HASHES times cheaper than `minhashOf`.
 */
export function oneHashSignature(shingles: Int32Array): Int32Array {
  const out = new Int32Array(HASHES);
  oneHashSignatureInto(shingles, 0, shingles.length, out, 0);
  return out;
}

/** `oneHashSignature` of values[from, to), written to out[at, at + HASHES). */
export function oneHashSignatureInto(values: Int32Array, from: number, to: number, out: Int32Array, at: number): void {
  out.fill(EMPTY_BIN, at, at + HASHES);
  const seed = SEEDS[0];
  for (let k = from; k < to; k++) {
    const h = mix(values[k], seed);
    const bin = at + (h >>> 27);
    const v = h & 0x07ffffff;
    if (v < out[bin]) out[bin] = v;
  }
  for (let i = 0; i < HASHES; i++) {
    if (out[at + i] !== EMPTY_BIN) continue;
    for (let d = 1; d < HASHES; d++) {
      const v = out[at + ((i + d) % HASHES)];
      if (v !== EMPTY_BIN && v < 0x08000000) {
        out[at + i] = mix(v, d) | 0x08000000; // marked borrowed: never equal to a bin's own value
        break;
      }
    }
  }
}
