/**
 * The two steps every shape shares, lexical (lexical-shapes.ts) or AST (definition-shapes.ts): the
 * hash of each 5-token window of a token sequence, and a symbol's windows sorted and distinct.
 */

/** Tokens per window. */
export const SHINGLE = 5;

/** The FNV-1a hash of every SHINGLE-token window of tokens[0, count), by start position, in `out` (a larger array when it is too small); returns the array used. */
export function windowHashes(tokens: Int32Array, count: number, out: Int32Array): Int32Array {
  const windows = Math.max(0, count - SHINGLE + 1);
  if (out.length < windows) out = new Int32Array(windows);
  for (let i = 0; i < windows; i++) {
    let h = 0x811c9dc5;
    for (let k = i; k < i + SHINGLE; k++) h = Math.imul(h ^ tokens[k], 0x01000193);
    out[i] = h;
  }
  return out;
}

/** Where `sortDistinct` leaves its result (one array, reused: a thread sorts one symbol at a time). */
export let distinct = new Int32Array(1 << 13);

/** Sorts values[from, from + length) into `distinct` and drops repeats; returns how many are left in `distinct[0, n)`. */
export function sortDistinct(values: Int32Array, from: number, length: number): number {
  if (distinct.length < length) distinct = new Int32Array(length);
  const sorted = distinct.subarray(0, length);
  sorted.set(values.subarray(from, from + length));
  sorted.sort();
  let n = 0;
  for (let i = 0; i < length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return n;
}
