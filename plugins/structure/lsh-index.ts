/**
 * MinHash/LSH over shape shingle sets, one shape at a time: each shape's band keys go into the band
 * buckets as it is added, and it is compared (exact Jaccard of the shingles) with the shapes already
 * in those buckets. A bucket is cut to its first MAX_BUCKET members (a larger one holds
 * boilerplate), and a pair that shared an earlier band's bucket is not compared again. So the pairs
 * found, and the shapes with a partner, depend only on the shapes and the order they are added in —
 * not on when: a cold `twins` (cold-shapes.ts) adds sketches and shapes as the facts workers return
 * them, in file order, while the main thread would otherwise wait.
 *
 * Two modes: `pairs` keeps every pair of Jaccard ≥ the threshold (twin-pairs.ts scores them);
 * otherwise only whether each shape has a partner is kept (a cold `twins`' candidate pick), which
 * skips the comparisons that could not change that (both ends covered; a covered arrival in a bucket
 * where everyone has a partner).
 */
import { HASHES, minhashOf, mix, SEEDS } from './minhash.ts';
import { jaccardOfRuns, type Shape } from './shapes.ts';

/** Members of a bucket that are compared (a larger bucket holds boilerplate). */
const MAX_BUCKET = 60;

/** A pair of added shapes (indices in the order added, a < b) and their shingle Jaccard. */
export interface LshPair {
  a: number;
  b: number;
  ast: number;
}

/** A table slot's hash of a key. */
function slotHash(hi: number, lo: number, code: number): number {
  return Math.imul(hi ^ Math.imul(lo, 0x9e3779b1) ^ Math.imul(code, 0x85ebca6b), 0x27d4eb2f) >>> 0;
}

/** Growable Int32Array. */
function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size);
  out.set(a);
  return out;
}

/**
 * Band buckets without a JavaScript Map or an array per bucket (most buckets hold one symbol: ~8
 * per symbol, which as Map entries and arrays cost more than the comparisons): an open-addressing
 * table from (band, key) to a bucket number, and each bucket's members as a chain through
 * one slot per (symbol, band).
 */
export class LshIndex {
  private readonly bands: number;
  private readonly rows: number;
  private readonly keepPairs: boolean;
  private readonly found: LshPair[] = [];
  /**
   * The added shapes' shingle sets, without keeping a Shape or a view object per shape (tens of
   * thousands of small objects live through every young-generation collection of a cold `twins`):
   * per shape, the array its set lies in (an index into `arrays`: one entry per array met in a row,
   * so a worker batch's shapes share one), where it starts and how long it is.
   */
  private readonly arrays: Int32Array[] = [];
  private lastArray: Int32Array | null = null;
  private arrayOf = new Int32Array(0);
  private startOf = new Int32Array(0);
  private lengthOf = new Int32Array(0);
  private cover = new Uint8Array(0);
  private count = 0;
  /** The table, four words a slot (one cache line per probe): the key's high and low parts, its band + 1 (0: empty), its bucket. */
  private table = new Int32Array(4 << 14);
  private buckets = 0;
  private bucketSize = new Int32Array(1024);
  /** Last member added to each bucket; a member's slot (index × bands + band) chains to the one before. */
  private bucketLast = new Int32Array(1024);
  /** Members of each bucket without a partner yet: a covered arrival skips a bucket with none. */
  private bucketOpen = new Int32Array(1024);
  private chain = new Int32Array(0);
  /** Per (index, band): its bucket, or −1 when past the bucket's cut. */
  private bucketOf = new Int32Array(0);

  /**
   * `rows`: signature values per band (HASHES / rows bands); `pairs`: keep the pairs found (else only
   * who has a partner); `expected`: shapes likely to be added (the tables start at that size instead
   * of growing to it, rehashing on the way).
   */
  constructor(
    readonly threshold: number,
    options: { rows: number; pairs: boolean; expected?: number },
  ) {
    this.rows = options.rows;
    this.bands = HASHES / options.rows;
    this.keepPairs = options.pairs;
    const expected = Math.min(options.expected ?? 0, 1 << 20);
    if (expected > 1024) {
      const keys = expected * this.bands;
      let slots = 1 << 14;
      while (slots < keys * 2) slots *= 2;
      this.table = new Int32Array(4 * slots);
      this.bucketSize = new Int32Array(keys);
      this.bucketLast = new Int32Array(keys);
      this.bucketOpen = new Int32Array(keys);
      this.grow(expected);
    }
  }

  /** Adds a shape; returns its index and the pair looks it cost (for pacing). Its signature is the shape's own when it has one. */
  add(shape: Shape): { index: number; looks: number } {
    const a = shape.shingles;
    const signature = shape.minhash ?? minhashOf(a);
    const words = a.buffer.byteLength >> 2;
    const last = this.lastArray;
    // Shapes of one batch share their buffer: one whole-buffer array for them all.
    const whole = last && last.buffer === a.buffer && last.byteOffset === 0 && last.length === words ? last : new Int32Array(a.buffer, 0, words);
    return this.addRun(whole, a.byteOffset >> 2, a.length, signature, 0);
  }

  /**
   * Adds the shape whose sorted, distinct shingles are `values[from, from + length)` and whose
   * signature is `signature[at, at + HASHES)` (both may lie in a worker batch's packed array: no view
   * or object is made per shape). Returns its index and the pair looks it cost.
   */
  addRun(values: Int32Array, from: number, length: number, signature: Int32Array, at: number): { index: number; looks: number } {
    if (signature.byteOffset !== 0) {
      at += signature.byteOffset >> 2;
      signature = new Int32Array(signature.buffer, 0, signature.buffer.byteLength >> 2);
    }
    const i = this.count++;
    this.grow(this.count);
    if (values !== this.lastArray) {
      this.lastArray = values;
      this.arrays.push(values);
    }
    this.arrayOf[i] = this.arrays.length - 1;
    this.startOf[i] = from;
    this.lengthOf[i] = length;
    const bands = this.bands;
    let looks = 0;
    for (let band = 0; band < bands; band++) {
      let h1 = 0x811c9dc5;
      let h2 = 0x01000193;
      for (let r = 0; r < this.rows; r++) {
        const v = signature[at + band * this.rows + r];
        h1 = mix(h1 ^ v, SEEDS[r]);
        h2 = mix(h2 + v, SEEDS[HASHES - 1 - r]);
      }
      // The key twin-pairs.ts makes ((h1 >>> 0) × 2²¹ + (h2 >>> 11)), as its two parts.
      const bucket = this.bucketFor(h1 | 0, h2 >>> 11, band + 1);
      const slot = i * bands + band;
      const size = this.bucketSize[bucket];
      if (size >= MAX_BUCKET) {
        this.bucketOf[slot] = -1; // past the bucket's cut: compared with nobody here
        continue;
      }
      const pairs = this.keepPairs;
      // A covered arrival can only cover members without a partner: none here, nothing to compare.
      for (let m = size > 0 && (pairs || !this.cover[i] || this.bucketOpen[bucket] > 0) ? this.bucketLast[bucket] : -1; m >= 0; m = this.chain[m]) {
        const j = (m / bands) | 0;
        looks++;
        if (!pairs && this.cover[i] && this.cover[j]) continue;
        if (band > 0 && this.metBefore(i, j, band)) continue;
        const bLength = this.lengthOf[j];
        // Jaccard ≤ smaller ÷ larger set: a pair of very different sizes needs no merge.
        if (Math.min(length, bLength) < this.threshold * Math.max(length, bLength) - 1e-9) continue;
        const ast = jaccardOfRuns(values, from, length, this.arrays[this.arrayOf[j]], this.startOf[j], bLength, this.threshold); // −1 when under it
        if (ast < this.threshold) continue;
        if (pairs) this.found.push({ a: j, b: i, ast });
        if (!this.cover[i]) this.markCovered(i, band); // its buckets of the bands before this one
        if (!this.cover[j]) this.markCovered(j, bands);
      }
      this.chain[slot] = size > 0 ? this.bucketLast[bucket] : -1;
      this.bucketLast[bucket] = slot;
      this.bucketSize[bucket] = size + 1;
      this.bucketOf[slot] = bucket;
      if (!this.cover[i]) this.bucketOpen[bucket]++;
    }
    return { index: i, looks };
  }

  /** Whether the shape at `index` has a partner. */
  covered(index: number): boolean {
    return this.cover[index] === 1;
  }

  /** The pairs found so far (mode `pairs`), in the order found. */
  pairs(): readonly LshPair[] {
    return this.found;
  }

  /** Marks `i` covered: one member without a partner fewer in each bucket it is in among bands [0, upTo). */
  private markCovered(i: number, upTo: number): void {
    this.cover[i] = 1;
    for (let e = 0; e < upTo; e++) {
      const b = this.bucketOf[i * this.bands + e];
      if (b >= 0) this.bucketOpen[b]--;
    }
  }

  /** Whether `i` (arriving) and `j` were both in one bucket of an earlier band: compared there already. */
  private metBefore(i: number, j: number, band: number): boolean {
    const bands = this.bands;
    for (let e = 0; e < band; e++) {
      const b = this.bucketOf[i * bands + e];
      if (b >= 0 && b === this.bucketOf[j * bands + e]) return true;
    }
    return false;
  }

  /** The bucket of a key (made on first sight). */
  private bucketFor(hi: number, lo: number, code: number): number {
    const table = this.table;
    const mask = (table.length >> 2) - 1;
    let at = (slotHash(hi, lo, code) & mask) << 2;
    for (;;) {
      const c = table[at + 2];
      if (c === 0) break;
      if (c === code && table[at] === hi && table[at + 1] === lo) return table[at + 3];
      at = (at + 4) & (table.length - 1);
    }
    const bucket = this.buckets++;
    if (bucket >= this.bucketSize.length) {
      this.bucketSize = grown(this.bucketSize, this.bucketSize.length * 2);
      this.bucketLast = grown(this.bucketLast, this.bucketLast.length * 2);
      this.bucketOpen = grown(this.bucketOpen, this.bucketOpen.length * 2);
    }
    table[at] = hi;
    table[at + 1] = lo;
    table[at + 2] = code;
    table[at + 3] = bucket;
    if (this.buckets * 2 > table.length >> 2) this.rehash();
    return bucket;
  }

  private rehash(): void {
    const old = this.table;
    const table = new Int32Array(old.length * 2);
    const mask = (table.length >> 2) - 1;
    for (let k = 0; k < old.length; k += 4) {
      const code = old[k + 2];
      if (code === 0) continue;
      let at = (slotHash(old[k], old[k + 1], code) & mask) << 2;
      while (table[at + 2] !== 0) at = (at + 4) & (table.length - 1);
      table[at] = old[k];
      table[at + 1] = old[k + 1];
      table[at + 2] = code;
      table[at + 3] = old[k + 3];
    }
    this.table = table;
  }

  private grow(n: number): void {
    if (n <= this.cover.length) return;
    const size = Math.max(1024, this.cover.length * 2, n);
    this.chain = grown(this.chain, size * this.bands);
    this.bucketOf = grown(this.bucketOf, size * this.bands);
    this.arrayOf = grown(this.arrayOf, size);
    this.startOf = grown(this.startOf, size);
    this.lengthOf = grown(this.lengthOf, size);
    const cover = new Uint8Array(size);
    cover.set(this.cover);
    this.cover = cover;
  }
}
