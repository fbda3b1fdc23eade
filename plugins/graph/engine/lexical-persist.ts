/**
 * The seek index's full build kept in a file beside the store (`seek-index.bin`), so a new process
 * reads it instead of tokenising every node and reading every file again (~30 s of CPU at 330K
 * nodes against well under a second to read). The file is keyed by the store generation the graph
 * reflects and a hash of the graph's node slots (id and line range of each, in slot order): it is
 * used only for exactly the graph it was built over, and ignored (rebuilt, then rewritten) when
 * missing, stale, of another format, failing its CRC-32 or malformed. Reading is a step sequence (lexical-build.ts) so
 * it runs in slices like a build.
 *
 * Layout: "M1NDSEEK", u32 header length, JSON header, padding to 4 bytes; then offsets (u32 ×
 * terms + 1), vocabIds (u32 × terms), nodes (i32 × postings), tf (f32 × postings), postingCounts
 * (i32 × capacity), flags (u8 × capacity), the sorted vocabulary ('\n'-terminated UTF-8).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import type { BaseIndex, NodeSlots } from './lexical-build.ts';
import type { FieldName } from './lexical-text.ts';
import { BACKGROUND_SLICE_MS, SliceClock } from './steps.ts';

const MAGIC = 'M1NDSEEK';
/** Bumped whenever the layout or what the index holds changes (tokenising, fields, weights). */
export const INDEX_FILE_FORMAT = 8;
/**
 * Steps are small: the caller groups them into slices of its own budget (~5 ms), so a step bigger
 * than that budget is what holds the loop. Measured with the VM in its slow state (everything ~5x
 * slower): reading 1.2 MB 7 ms, decoding a 221 KB vocabulary in one piece 7-16 ms, which with a
 * scavenge in the same turn held the loop over 50 ms.
 */
/** Bytes read or checksummed between two yields. */
const READ_CHUNK = 1 << 20;
/** Array entries or vocabulary terms checked between two yields. */
const STEP = 16_384;
/** Node slots hashed between two yields (each may materialise a node). */
const HASH_STEP = 2_048;
/** Vocabulary bytes decoded (or terms encoded) between two yields. */
const VOCAB_PIECE_BYTES = 32 << 10;
const VOCAB_PIECE_TERMS = 4_096;

/** Where a LexicalIndex keeps its full build, and what the current graph is keyed by. */
export interface IndexFileOptions {
  /** The file's path. */
  path(): string;
  /** The store generation the graph reflects, or null when there is no store (nothing is read or written). */
  key(): string | null;
  /** False on read-only servers: the file is read, never written. */
  writable(): boolean;
}

interface Header {
  format: number;
  key: string;
  hash: string;
  capacity: number;
  terms: number;
  postings: number;
  live: number;
  averages: Record<FieldName, number>;
  vocabBytes: number;
  /** CRC-32 of everything after the header. */
  crc: number;
}

/**
 * A hash of the graph's node slots (id and line range, in slot order): an index file holds for one layout only.
 * The loop runs in `hashSlots`, a range per step: V8 does not optimise a long loop inside a generator
 * body (a stdlib-sized graph's hash held the loop ~18 ms in one profiled step).
 */
export function* slotLayoutHash(graph: NodeSlots): Generator<void, string, void> {
  const n = graph.nodeCapacity;
  const state = new Int32Array([0x811c9dc5 | 0, 0x9e3779b9 | 0]);
  for (let from = 0; from < n; from += HASH_STEP) {
    hashSlots(graph, from, Math.min(n, from + HASH_STEP), state);
    if (from + HASH_STEP < n) yield;
  }
  return `${n}:${(state[0] >>> 0).toString(16)}:${(state[1] >>> 0).toString(16)}`;
}

function hashSlots(graph: NodeSlots, from: number, to: number, state: Int32Array): void {
  let a = state[0];
  let b = state[1];
  for (let i = from; i < to; i++) {
    const node = graph.node(i);
    if (node) {
      const id = node.id;
      for (let k = 0; k < id.length; k++) {
        const c = id.charCodeAt(k);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
      }
      a = Math.imul(a ^ node.startLine, 0x01000193);
      b = Math.imul(b ^ (node.endLine + 0x10000), 0x5bd1e995);
      b ^= b >>> 15;
    } else {
      a = Math.imul(a ^ 0xffff, 0x01000193);
    }
  }
  state[0] = a;
  state[1] = b;
}

const align4 = (x: number): number => (x + 3) & ~3;

/**
 * The index stored at `path` when it was built for `key` and this graph's slot layout, else null.
 * Reads in chunks and checks every array bound before trusting it.
 */
export function* readIndexFile(path: string, key: string, graph: NodeSlots): Generator<void, BaseIndex | null, void> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  let data: Buffer;
  try {
    const size = fstatSync(fd).size;
    if (size < 12) return null;
    data = Buffer.allocUnsafe(size);
    // The header first: a stale file is refused before the rest is read.
    if (readSync(fd, data, 0, Math.min(size, 64 << 10), 0) < 12) return null;
    const layout = headerOf(data, Math.min(size, 64 << 10), size);
    if (!layout || layout.h.key !== key || layout.h.capacity !== graph.nodeCapacity) return null;
    const { h, body } = layout;
    for (let at = 64 << 10; at < size; at += READ_CHUNK) {
      yield;
      readSync(fd, data, at, Math.min(READ_CHUNK, size - at), at);
    }
    let crc = 0;
    for (let at = body; at < size; at += READ_CHUNK) {
      crc = crc32(data.subarray(at, Math.min(size, at + READ_CHUNK)), crc);
      yield;
    }
    if (crc !== h.crc) return null;
    const hash = yield* slotLayoutHash(graph);
    if (hash !== h.hash) return null;
    return yield* decode(data, body, h);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The header and where the body starts, when the first `available` bytes hold a header of this format for a file of `size` bytes. */
function headerOf(data: Buffer, available: number, size: number): { h: Header; body: number } | null {
  if (available < 12 || data.toString('latin1', 0, 8) !== MAGIC) return null;
  const headerLen = data.readUInt32LE(8);
  if (12 + headerLen > available) return null;
  const h = parseHeader(data.toString('utf8', 12, 12 + headerLen));
  if (!h || h.format !== INDEX_FILE_FORMAT) return null;
  const body = align4(12 + headerLen);
  const expected = body + 4 * (h.terms + 1) + 4 * h.terms + 8 * h.postings + 4 * h.capacity + h.capacity + h.vocabBytes;
  return size === expected ? { h, body } : null;
}

/**
 * A full build from the bytes `encodeIndexFile` made for this process (a build process's, handed
 * over): arrays are views on `data`; the header, sizes and term offsets are checked as for a file,
 * the CRC is not, nor (`trusted`) every posting's node and the vocabulary's order (~6M and 200K
 * checks at 270K nodes: they guard against a damaged file, and these bytes were just made).
 */
export function* decodeIndexBytes(data: Buffer, capacity: number, trusted = false): Generator<void, BaseIndex | null, void> {
  const layout = headerOf(data, data.length, data.length);
  if (!layout || layout.h.capacity !== capacity) return null;
  return yield* decode(data, layout.body, layout.h, trusted);
}

function parseHeader(text: string): Header | null {
  try {
    const h = JSON.parse(text) as Header;
    const ints = [h.format, h.capacity, h.terms, h.postings, h.live, h.vocabBytes, h.crc];
    return ints.every((x) => Number.isInteger(x) && x >= 0) && typeof h.key === 'string' && typeof h.hash === 'string' && h.averages ? h : null;
  } catch {
    return null;
  }
}

/** Typed-array views over the file's bytes (no copy), bounds-checked, and the vocabulary decoded. */
function* decode(data: Buffer, body: number, h: Header, trusted = false): Generator<void, BaseIndex | null, void> {
  const ab = data.buffer;
  let at = data.byteOffset + body;
  const view = <T>(make: (buf: ArrayBufferLike, offset: number, length: number) => T, bytes: number, length: number): T => {
    const v = make(ab, at, length);
    at += bytes * length;
    return v;
  };
  const offsets = view((b, o, l) => new Uint32Array(b, o, l), 4, h.terms + 1);
  const vocabIds = view((b, o, l) => new Uint32Array(b, o, l), 4, h.terms);
  const nodes = view((b, o, l) => new Int32Array(b, o, l), 4, h.postings);
  const tf = view((b, o, l) => new Float32Array(b, o, l), 4, h.postings);
  const postingCounts = view((b, o, l) => new Int32Array(b, o, l), 4, h.capacity);
  const flags = view((b, o, l) => new Uint8Array(b, o, l), 1, h.capacity);
  const vocabStart = at - data.byteOffset;
  if (offsets[0] !== 0 || offsets[h.terms] !== h.postings) return null;
  for (let t = 0; t < h.terms; t++) {
    if (offsets[t + 1] < offsets[t] || vocabIds[t] >= h.terms) return null;
    if (t % STEP === STEP - 1) yield;
  }
  for (let k = 0; k < (trusted ? 0 : h.postings); k++) {
    if (nodes[k] < 0 || nodes[k] >= h.capacity) return null;
    if (k % (8 * STEP) === 8 * STEP - 1) yield;
  }
  // The vocabulary in pieces cut at line ends (terms are ASCII letters and digits).
  const vocabulary: string[] = [];
  const end = vocabStart + h.vocabBytes;
  for (let from = vocabStart; from < end; ) {
    let to = data.indexOf(10, Math.min(end - 1, from + VOCAB_PIECE_BYTES));
    if (to < 0 || to >= end) return null;
    to++;
    const lines = data.toString('utf8', from, to - 1).split('\n');
    for (const line of lines) vocabulary.push(line);
    from = to;
    yield;
  }
  if (vocabulary.length !== h.terms) return null;
  for (let k = 1; k < (trusted ? 0 : vocabulary.length); k++) {
    if (!(vocabulary[k - 1] < vocabulary[k])) return null;
    if (k % STEP === 0) yield;
  }
  return { offsets, nodes, tf, postingCounts, flags, indexed: null, averages: h.averages, live: h.live, version: -1, vocabulary, vocabIds };
}

/**
 * The file's bytes for a full build keyed by `key` and the slot layout `hash`: header, arrays and
 * vocabulary, as parts to write in order. A step sequence (yields between pieces) so the main thread
 * can encode in slices; a worker runs it to the end at once.
 */
export function* encodeIndexFile(key: string, hash: string, base: BaseIndex, capacity: number): Generator<void, Buffer[], void> {
  const vocab: Buffer[] = [];
  let vocabBytes = 0;
  for (let k = 0; k < base.vocabulary.length; k += VOCAB_PIECE_TERMS) {
    const piece = Buffer.from(`${base.vocabulary.slice(k, k + VOCAB_PIECE_TERMS).join('\n')}\n`, 'utf8');
    vocab.push(piece);
    vocabBytes += piece.length;
    yield;
  }
  const terms = base.vocabulary.length;
  const bytes = (a: ArrayBufferView, length: number, size: number): Buffer => Buffer.from(a.buffer, a.byteOffset, length * size);
  const counts = base.postingCounts.length >= capacity ? base.postingCounts : grow(base.postingCounts, capacity);
  const flags = base.flags.length >= capacity ? base.flags : growBytes(base.flags, capacity);
  const postings = base.offsets[terms];
  const arrays = [bytes(base.offsets, terms + 1, 4), bytes(base.vocabIds, terms, 4), bytes(base.nodes, postings, 4), bytes(base.tf, postings, 4), bytes(counts, capacity, 4), bytes(flags, capacity, 1), ...vocab];
  let crc = 0;
  for (const part of arrays) {
    for (let at = 0; at < part.length; at += READ_CHUNK) crc = crc32(part.subarray(at, Math.min(part.length, at + READ_CHUNK)), crc);
    yield;
  }
  const header: Header = { format: INDEX_FILE_FORMAT, key, hash, capacity, terms, postings, live: base.live, averages: base.averages, vocabBytes, crc };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(align4(12 + json.length));
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  return [head, ...arrays];
}

/**
 * Writes `parts` to `path` so that a reader, or a process killed at any point, sees the old file or
 * the new one whole, never a mix or a truncated file: a temporary file beside it (named by process
 * and thread), flushed to disk, then renamed over the old one. Leftover temporary files of writers
 * that died are removed.
 */
export async function writeFileAtomic(path: string, parts: readonly Buffer[]): Promise<void> {
  await removeOrphanTemporaries(path);
  const tmp = `${path}.${process.pid}-${threadId}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writev(parts as Buffer[]);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(tmp, path);
}

/** Removes `<path>.<pid>-<thread>.tmp` files whose process is gone (a writer killed mid-write). */
async function removeOrphanTemporaries(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)(?:-\d+)?\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    await rm(join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes a full build for `key` and the slot layout `hash` (see writeFileAtomic). Yields the event
 * loop between pieces; gives up when `wanted()` turns false meanwhile.
 */
export async function writeIndexFile(path: string, key: string, hash: string, base: BaseIndex, capacity: number, wanted: () => boolean = () => true): Promise<boolean> {
  const encoding = encodeIndexFile(key, hash, base, capacity);
  const clock = new SliceClock(BACKGROUND_SLICE_MS);
  let r = encoding.next();
  for (; !r.done; r = encoding.next()) if (clock.spent()) await clock.yield();
  // The index was dropped meanwhile (the engine closed, the graph was replaced): nothing to write.
  if (!wanted()) return false;
  await writeFileAtomic(path, r.value);
  return true;
}

/**
 * Writes a full build of `graph` for `key` once the graph's slot-layout hash is computed (in slices
 * of ~5 ms), unless `holds()` turns false or the store moves to another key meanwhile (the file would
 * not hold). True when written.
 */
export async function saveIndexFile(file: IndexFileOptions, graph: NodeSlots, key: string, base: BaseIndex, holds: () => boolean): Promise<boolean> {
  // Background work sharing the turn's budget, from the next turn: the build it writes was installed in this one.
  const clock = new SliceClock(BACKGROUND_SLICE_MS);
  await clock.yield();
  const hashing = slotLayoutHash(graph);
  let r = hashing.next();
  for (; !r.done; r = hashing.next()) {
    if (clock.spent()) await clock.yield();
    if (!holds()) return false;
  }
  if (!holds() || file.key() !== key) return false;
  return writeIndexFile(file.path(), key, r.value, base, graph.nodeCapacity, holds);
}

function grow(a: Int32Array, n: number): Int32Array {
  const out = new Int32Array(n);
  out.set(a);
  return out;
}

function growBytes(a: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  out.set(a);
  return out;
}
