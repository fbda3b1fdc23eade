/** Growable typed buffers and a line reader used while building the seek index (lexical-index.ts). */

/** Reads a workspace file's text (the engine's content cache); null when unavailable. */
export type TextSource = (path: string) => string | null;

/** A growable posting list: node index, BM25F pseudo term frequency, node version at indexing time. */
export class Postings {
  nodes = new Int32Array(4);
  tf = new Float32Array(4);
  versions = new Int32Array(4);
  length = 0;

  push(node: number, tf: number, version: number): void {
    if (this.length === this.nodes.length) {
      const grow = this.length * 2;
      const n = new Int32Array(grow);
      n.set(this.nodes);
      const t = new Float32Array(grow);
      t.set(this.tf);
      const v = new Int32Array(grow);
      v.set(this.versions);
      this.nodes = n;
      this.tf = t;
      this.versions = v;
    }
    this.nodes[this.length] = node;
    this.tf[this.length] = tf;
    this.versions[this.length] = version;
    this.length++;
  }
}

/**
 * A growable Int32 buffer in fixed chunks (build-time rows: 4 bytes an entry instead of a JS array's
 * 8). Chunks instead of doubling: a doubling buffer of N entries peaks at 3N (the old copy and the
 * new one) and leaves the copies' memory to the allocator, which keeps it resident after the build.
 */
export class IntRows {
  static readonly CHUNK_BITS = 14;
  static readonly CHUNK_MASK = (1 << IntRows.CHUNK_BITS) - 1;
  readonly chunks: Int32Array[] = [];
  length = 0;
  push(x: number): void {
    const at = this.length & IntRows.CHUNK_MASK;
    if (at === 0) this.chunks.push(new Int32Array(1 << IntRows.CHUNK_BITS));
    this.chunks[this.chunks.length - 1][at] = x;
    this.length++;
  }
  get(i: number): number {
    return this.chunks[i >>> IntRows.CHUNK_BITS][i & IntRows.CHUNK_MASK];
  }
}

/** Lines of files, memoised for one indexing pass (nodes of a file come together). */
export class LineReader {
  private path = '';
  private lines: string[] | null = null;
  constructor(private readonly source: TextSource | null) {}
  of(path: string): string[] | null {
    if (!this.source) return null;
    if (path !== this.path) {
      this.path = path;
      const text = this.source(path);
      this.lines = text === null ? null : text.split('\n');
    }
    return this.lines;
  }
}

/**
 * Sorts strings in code-unit order (as `Array.prototype.sort` without a comparator) as a step
 * sequence: runs of `run` strings sorted at once, then merged pairwise, yielding every `run`
 * strings, so a vocabulary of 100K terms (~50 ms in one sort) sorts between other work.
 */
export function* sortStrings(items: string[], run = 2048): Generator<void, string[], void> {
  let a = items;
  const n = a.length;
  for (let i = 0; i < n; i += run) {
    const part = a.slice(i, i + run).sort();
    for (let k = 0; k < part.length; k++) a[i + k] = part[k];
    yield;
  }
  let b: string[] = new Array<string>(n);
  let work = 0;
  for (let width = run; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        b[k] = i < mid && (j >= hi || a[i] <= a[j]) ? a[i++] : a[j++];
        if (++work % run === 0) yield;
      }
    }
    [a, b] = [b, a];
  }
  return a;
}
