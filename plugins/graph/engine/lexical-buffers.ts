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
