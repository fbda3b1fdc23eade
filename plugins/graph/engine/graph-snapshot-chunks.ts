/**
 * The graph snapshot's bytes emitted in order through one reused buffer of a chunk's size
 * (graph-snapshot-encode.ts drives it): each full chunk is handed out as a step of the encoder (a
 * view valid until the encoder resumes: the store copies it into its row at once), so a write never
 * holds the whole snapshot. The checksum (CRC-32 of everything after the first 12 bytes, at byte 8)
 * is computed over the chunks as they go; chunk 0, which carries it, is kept and handed out last
 * with the checksum filled in.
 */
import { crc32 } from 'node:zlib';
import { align8 } from './graph-snapshot.ts';

/** One chunk of a snapshot: chunk `seq` covers bytes [seq × chunk size, …). */
export interface SnapshotChunk {
  seq: number;
  data: Uint8Array;
}

/**
 * Elements made by one `put` of `elements` at most (a pause between): a chunk's 32,768 string
 * references in one piece held the loop 11 ms in a profile of a background snapshot write.
 */
const ELEMENTS_PER_PUT = 4096;

/** What a chunked encoder emits at a step: a chunk to store now, or nothing (a pause). */
export type ChunkStep = SnapshotChunk | undefined;

/** A finished snapshot's size: its bytes and number of chunks. */
export interface SnapshotSize {
  bytes: number;
  chunks: number;
}

/** The snapshot's bytes, a chunk at a time. */
export class ChunkWriter {
  private readonly buf: Buffer;
  /** Element views over the buffer (sections are 8-byte aligned and the chunk size a multiple of 8, so elements never straddle chunks). */
  readonly u8: Uint8Array;
  readonly u16: Uint16Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  private fill = 0;
  private seq = 0;
  private flushed = 0;
  private crc = 0;
  private first: Uint8Array | null = null;

  constructor(readonly chunkBytes: number) {
    if (chunkBytes < 64 || chunkBytes % 8 !== 0) throw new Error(`graph snapshot: a chunk of ${chunkBytes} bytes (a multiple of 8, at least 64)`);
    const ab = new ArrayBuffer(chunkBytes);
    this.buf = Buffer.from(ab);
    this.u8 = new Uint8Array(ab);
    this.u16 = new Uint16Array(ab);
    this.u32 = new Uint32Array(ab);
    this.f32 = new Float32Array(ab);
    this.f64 = new Float64Array(ab);
  }

  /** Bytes emitted so far (flushed and buffered). */
  get position(): number {
    return this.flushed + this.fill;
  }

  /** Hands out the buffered bytes as the next chunk; chunk 0 is kept (it carries the checksum) and nothing is handed out. */
  private take(): ChunkStep {
    const seq = this.seq++;
    const data = this.u8.subarray(0, this.fill);
    this.crc = crc32(seq === 0 ? data.subarray(12) : data, this.crc);
    this.flushed += this.fill;
    this.fill = 0;
    if (seq === 0) {
      this.first = data.slice();
      return undefined;
    }
    return { seq, data };
  }

  /** Appends raw bytes. */
  *bytes(src: Uint8Array): Generator<ChunkStep, void> {
    for (let at = 0; at < src.length; ) {
      const n = Math.min(src.length - at, this.chunkBytes - this.fill);
      this.u8.set(src.subarray(at, at + n), this.fill);
      this.fill += n;
      at += n;
      if (this.fill === this.chunkBytes) yield this.take();
    }
  }

  /** Appends a typed array's bytes. */
  view(v: ArrayBufferView): Generator<ChunkStep, void> {
    return this.bytes(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  }

  /** Appends `n` zero bytes. */
  *zeros(n: number): Generator<ChunkStep, void> {
    while (n > 0) {
      const k = Math.min(n, this.chunkBytes - this.fill);
      this.u8.fill(0, this.fill, this.fill + k);
      this.fill += k;
      n -= k;
      if (this.fill === this.chunkBytes) yield this.take();
    }
  }

  /** Zero padding up to the next 8-byte boundary. */
  padTo8(): Generator<ChunkStep, void> {
    return this.zeros(align8(this.position) - this.position);
  }

  /**
   * Appends `count` elements of `width` bytes made by `put(at, room)`, which writes exactly `room`
   * elements into the matching view (u8, u16, u32/f32 or f64) from element index `at` on.
   */
  *elements(width: 1 | 2 | 4 | 8, count: number, put: (at: number, room: number) => void): Generator<ChunkStep, void> {
    if (this.fill % width !== 0) throw new Error('graph snapshot: a misaligned section');
    for (let left = count; left > 0; ) {
      const room = Math.min(left, (this.chunkBytes - this.fill) / width, ELEMENTS_PER_PUT);
      put(this.fill / width, room);
      this.fill += room * width;
      left -= room;
      if (this.fill === this.chunkBytes) yield this.take();
      else if (room === ELEMENTS_PER_PUT) yield; // a pause: a chunk of string references took 11 ms
    }
  }

  /** Appends a string's characters, one byte each (`latin1`, every code unit ≤ 0xff) or two (`utf16le`). */
  *text(s: string, encoding: 'latin1' | 'utf16le'): Generator<ChunkStep, void> {
    const unit = encoding === 'latin1' ? 1 : 2;
    for (let at = 0; at < s.length; ) {
      const chars = Math.min(s.length - at, Math.floor((this.chunkBytes - this.fill) / unit));
      if (chars === 0) throw new Error('graph snapshot: a misaligned UTF-16 section');
      const part = at === 0 && chars === s.length ? s : s.slice(at, at + chars);
      const wrote = this.buf.write(part, this.fill, chars * unit, encoding);
      if (wrote !== chars * unit) throw new Error('graph snapshot: a string table entry did not encode in full');
      this.fill += wrote;
      at += chars;
      if (this.fill === this.chunkBytes) yield this.take();
    }
  }

  /** Hands out the last partial chunk, then chunk 0 with the checksum; returns the snapshot's size. */
  *finish(): Generator<ChunkStep, SnapshotSize> {
    if (this.fill > 0 || this.seq === 0) {
      const last = this.take();
      if (last) yield last;
    }
    const first = this.first!;
    new DataView(first.buffer, first.byteOffset, first.byteLength).setUint32(8, this.crc, true);
    yield { seq: 0, data: first };
    return { bytes: this.flushed, chunks: this.seq };
  }
}

/** A whole snapshot's bytes as chunk steps (chunk 0 last, as the encoder hands them out): for a blob encoded before. */
export function* chunksOf(data: Uint8Array, chunkBytes: number): Generator<ChunkStep, SnapshotSize> {
  const chunks = Math.max(1, Math.ceil(data.length / chunkBytes));
  for (let seq = 1; seq < chunks; seq++) yield { seq, data: data.subarray(seq * chunkBytes, Math.min(data.length, (seq + 1) * chunkBytes)) };
  yield { seq: 0, data: data.subarray(0, Math.min(data.length, chunkBytes)) };
  return { bytes: data.length, chunks };
}
