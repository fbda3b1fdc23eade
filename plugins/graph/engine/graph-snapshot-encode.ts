/**
 * The graph snapshot's encoder (the format is graph-snapshot.ts's). Background work (the snapshot is
 * written after an ingest, while calls are served), so it runs as steps of a few hundred microseconds:
 * the per-node, per-edge and per-file loops live in plain functions called on ranges (a long loop
 * inside a generator body is never optimised by V8, and ran 10–20× slower).
 *
 * The bytes are never held whole: a first pass interns the strings and fills the node and file
 * columns (what the header's counts and the string tables' sizes need), then the layout is emitted in
 * order through one reused chunk buffer, each full chunk handed to the caller (the store inserts it)
 * before the buffer is refilled. Edges go from the graph's own arrays to the chunks, renumbered on
 * the way. The checksum runs over the chunks as they go; chunk 0, which holds it, is kept (one chunk)
 * and handed over last. On the python3 prefix this took the ~170 MB of a whole-snapshot buffer and
 * its edge copies off the write at close.
 */
import type { CodeGraph } from './graph.ts';
import { ChunkWriter, type ChunkStep, type SnapshotSize } from './graph-snapshot-chunks.ts';
import {
  F_COMMIT_COUNT, F_DOC, F_EXPORTED, F_EXPORTED_TRUE, F_IS_TEST, F_IS_TEST_TRUE, F_LAST_COMMIT, F_QUALIFIED, F_SIGNATURES,
  KIND_CODE, MAGIC, NO_LANGUAGE, NO_STRING, SNAPSHOT_FORMAT, UTF16_BIT, align8, layout,
  type Header, type NodeColumnsIn, type SectionName, type SnapshotFacts,
} from './graph-snapshot.ts';

/** Node slots encoded per step (a node interns up to six strings: ~1–3 µs each). */
const NODE_SLOTS_PER_STEP = 256;
/** Edge slots copied per step. */
const EDGES_PER_STEP = 32_768;
/** Files encoded per step. */
const FILES_PER_STEP = 512;
/** Strings of a table written to the buffer per step. */
const STRINGS_PER_STEP = 2048;

/**
 * The two string tables; a reference is the index, with the top bit for UTF-16. Strings that repeat
 * (labels, paths) are interned through a map; strings unique to their node (ids, qualified names,
 * docs, signatures, extraction keys) are appended as they come: a lookup of each costs a map
 * entry per string and its rehash garbage (a synthetic 270K-node graph: 25 MB less peak heap without
 * them) to save the rare duplicate's bytes (the python3 prefix's snapshot came out byte-identical). The decoder reads either the same way.
 */
class StringTables {
  private ids: Map<string, number> | null = new Map<string, number>();
  readonly latin1: string[] = [];
  readonly utf16: string[] = [];

  /** A reference to `s`, shared with every other interned copy of it. */
  ref(s: string): number {
    const ids = this.ids!;
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = this.add(s)));
    return id;
  }

  /** A new entry for `s` (for a string that seldom repeats). */
  add(s: string): number {
    // eslint-disable-next-line no-control-regex
    return /[^\u0000-\u00ff]/.test(s) ? UTF16_BIT | (this.utf16.push(s) - 1) : this.latin1.push(s) - 1;
  }

  /** Drops the lookup once every reference is made (the tables stay). */
  seal(): void {
    this.ids = null;
  }
}

/** The node columns, in the order of live slots, and each live slot's position among them. */
interface NodeColumns extends NodeColumnsIn {
  remap: Uint32Array;
}

function nodeColumns(capacity: number, n: number): NodeColumns {
  return {
    remap: new Uint32Array(capacity).fill(NO_STRING),
    kind: new Uint8Array(n), lang: new Uint8Array(n), flags: new Uint16Array(n),
    start: new Uint32Array(n), end: new Uint32Array(n),
    id: new Uint32Array(n), label: new Uint32Array(n), path: new Uint32Array(n),
    qualified: new Uint32Array(n).fill(NO_STRING), doc: new Uint32Array(n).fill(NO_STRING), signatures: new Uint32Array(n).fill(NO_STRING),
    lastCommit: new Float64Array(n), commitCount: new Uint32Array(n),
  };
}

/** Encodes node slots [from, to) into the columns from row `w` on; returns the next row. */
function encodeNodes(graph: CodeGraph, c: NodeColumns, strings: StringTables, langCode: (l: string | null) => number, from: number, to: number, w: number): number {
  for (let i = from; i < to; i++) {
    const node = graph.node(i);
    if (!node) continue;
    c.remap[i] = w;
    c.kind[w] = KIND_CODE.get(node.kind) ?? 0;
    c.lang[w] = langCode(node.language);
    c.start[w] = node.startLine;
    c.end[w] = node.endLine;
    c.id[w] = strings.add(node.id);
    c.label[w] = strings.ref(node.label);
    c.path[w] = strings.ref(node.path);
    let fl = 0;
    if (node.qualifiedName !== undefined) (fl |= F_QUALIFIED), (c.qualified[w] = strings.add(node.qualifiedName));
    if (node.exported !== undefined) fl |= F_EXPORTED | (node.exported ? F_EXPORTED_TRUE : 0);
    if (node.doc !== undefined) (fl |= F_DOC), (c.doc[w] = strings.add(node.doc));
    if (node.signatures !== undefined) (fl |= F_SIGNATURES), (c.signatures[w] = strings.add(JSON.stringify(node.signatures)));
    if (node.lastCommitAt !== undefined) (fl |= F_LAST_COMMIT), (c.lastCommit[w] = node.lastCommitAt);
    if (node.commitCount !== undefined) (fl |= F_COMMIT_COUNT), (c.commitCount[w] = node.commitCount);
    if (node.isTest !== undefined) fl |= F_IS_TEST | (node.isTest ? F_IS_TEST_TRUE : 0);
    c.flags[w] = fl;
    w++;
  }
  return w;
}

/** Live edges counted in slots [from, to) (a check of the graph's count). */
function liveEdges(alive: Uint8Array, from: number, to: number): number {
  let k = 0;
  for (let e = from; e < to; e++) if (alive[e]) k++;
  return k;
}

/** `at` plus the bytes of strings [from, to) of a table (`unit` bytes per character). */
function tableBytes(table: readonly string[], unit: number, from: number, to: number, at: number): number {
  for (let i = from; i < to; i++) at += unit * table[i].length;
  return at;
}

/** Writes `room` byte offsets into `out` from `at`, for strings `i` on of a table (the one past the last: its size); returns the next string and offset. */
function putOffsets(table: readonly string[], unit: number, out: Uint32Array, at: number, room: number, i: number, offset: number): [number, number] {
  for (const end = at + room; at < end; at++) {
    out[at] = offset;
    if (i < table.length) offset += unit * table[i++].length;
  }
  return [i, offset];
}


/** Writes the next `room` live edges' renumbered endpoints (`of`: edgeSource or edgeTarget) into `out` from `at`, scanning from slot `e`; returns the next slot. */
function putEndpoints(of: Uint32Array, alive: Uint8Array, remap: Uint32Array, out: Uint32Array, at: number, room: number, e: number): number {
  for (const end = at + room; at < end; e++) if (alive[e]) out[at++] = remap[of[e]];
  return e;
}

/** `putEndpoints` for a per-edge value copied as is (relation bytes, weights). */
function putValues(of: Uint8Array | Float32Array, alive: Uint8Array, out: Uint8Array | Float32Array, at: number, room: number, e: number): number {
  for (const end = at + room; at < end; e++) if (alive[e]) out[at++] = of[e];
  return e;
}

/**
 * Encodes the live nodes and edges of a finalized graph (empty slots and dead edges dropped, indices
 * renumbered densely) with the facts, as chunks of `chunkBytes` (see the top of this file): yields a
 * chunk to store (a view valid until the next step) or nothing (a pause); returns the size.
 */
export function* encodeSnapshotChunks(graph: CodeGraph, facts: SnapshotFacts, chunkBytes: number): Generator<ChunkStep, SnapshotSize> {
  const strings = new StringTables();
  const languages: string[] = [];
  const langCode = (l: string | null): number => {
    if (l === null) return NO_LANGUAGE;
    let i = languages.indexOf(l);
    if (i < 0) i = languages.push(l) - 1;
    return i;
  };
  const n = graph.nodeCount;
  const cols = nodeColumns(graph.nodeCapacity, n);
  yield;
  let w = 0;
  for (let i = 0; i < graph.nodeCapacity; i += NODE_SLOTS_PER_STEP) {
    w = encodeNodes(graph, cols, strings, langCode, i, Math.min(graph.nodeCapacity, i + NODE_SLOTS_PER_STEP), w);
    yield;
  }
  if (w !== n) throw new Error(`graph snapshot: ${w} live slots for ${n} live nodes`);
  const m = graph.edgeCount;
  let k = 0;
  for (let e = 0; e < graph.edgeCapacity; e += EDGES_PER_STEP * 8) {
    k += liveEdges(graph.edgeAlive, e, Math.min(graph.edgeCapacity, e + EDGES_PER_STEP * 8));
    yield;
  }
  if (k !== m) throw new Error(`graph snapshot: ${k} live edge slots for ${m} live edges`);
  const f = facts.files.length;
  const filePath = new Uint32Array(f), fileKey = new Uint32Array(f), fileLang = new Uint8Array(f);
  const fileErrors = new Uint32Array(f), fileErrorLine = new Uint32Array(f), filePrecise = new Uint8Array(f);
  for (let from = 0; from < f; from += FILES_PER_STEP) {
    for (let i = from; i < Math.min(f, from + FILES_PER_STEP); i++) {
      const file = facts.files[i];
      filePath[i] = strings.ref(file.path);
      fileKey[i] = strings.add(file.extractionKey);
      fileLang[i] = langCode(file.language);
      fileErrors[i] = file.parseErrors;
      fileErrorLine[i] = file.parseErrorLine;
      filePrecise[i] = file.precise ? 1 : 0;
    }
    yield;
  }
  strings.seal();
  // String tables: their byte sizes now (for the header); each entry's byte offset is made as its
  // section is written (an offsets array held through the write was 4 bytes a string: ~4 MB on the
  // python3 prefix, allocated at the close's peak).
  const { latin1: l1, utf16: u16 } = strings;
  let latin1Bytes = 0;
  for (let i = 0; i < l1.length; i += STRINGS_PER_STEP * 8) {
    latin1Bytes = tableBytes(l1, 1, i, Math.min(l1.length, i + STRINGS_PER_STEP * 8), latin1Bytes);
    yield;
  }
  const utf16Bytes = tableBytes(u16, 2, 0, u16.length, 0);
  yield;

  const header: Header = {
    nodes: n, edges: m, files: f,
    latin1Strings: l1.length, utf16Strings: u16.length,
    latin1Bytes, utf16Bytes,
    languages, fingerprint: facts.fingerprint, unresolved: facts.unresolved,
  };
  const { offsets, size } = layout(header);
  const out = new ChunkWriter(chunkBytes);
  // The header's JSON (the unresolved imports: 2.6 MB on the python3 prefix) is written from the string
  // itself when it is ASCII (one byte a character), without a buffer of its bytes beside it.
  let json: string | null = JSON.stringify(header);
  const headerLength = Buffer.byteLength(json, 'utf8');
  const bodyStart = align8(16 + headerLength);
  const head = new DataView(new ArrayBuffer(16));
  head.setUint32(0, MAGIC, true);
  head.setUint32(4, SNAPSHOT_FORMAT, true);
  head.setUint32(12, headerLength, true);
  yield* out.view(head);
  if (headerLength === json.length) yield* out.text(json, 'latin1');
  else yield* out.bytes(Buffer.from(json, 'utf8'));
  json = null;
  yield* out.padTo8();

  const { edgeSource, edgeTarget, edgeRelation, edgeWeight, edgeAlive } = graph;
  const endpoints = (of: Uint32Array) => {
    let e = 0;
    return out.elements(4, m, (at, room) => void (e = putEndpoints(of, edgeAlive, cols.remap, out.u32, at, room, e)));
  };
  const values = (width: 1 | 4, of: Uint8Array | Float32Array, into: Uint8Array | Float32Array) => {
    let e = 0;
    return out.elements(width, m, (at, room) => void (e = putValues(of, edgeAlive, into, at, room, e)));
  };
  // A node column is dropped once written (the layout puts them first: ~14 MB on the python3 prefix,
  // outside the heap, not held through the edges and string tables); the slot remap stays for the edges.
  const column = <K extends keyof NodeColumnsIn>(name: K) =>
    function* (): Generator<ChunkStep, void> {
      yield* out.view(cols[name]);
      cols[name] = new (cols[name].constructor as new (length: number) => NodeColumns[K])(0);
    };
  const tableOffsets = (table: readonly string[], unit: 1 | 2) => {
    let i = 0, offset = 0;
    return out.elements(4, table.length + 1, (at, room) => void ([i, offset] = putOffsets(table, unit, out.u32, at, room, i, offset)));
  };
  const sections: Record<SectionName, () => Generator<ChunkStep, void>> = {
    kind: column('kind'), lang: column('lang'), flags: column('flags'),
    start: column('start'), end: column('end'),
    id: column('id'), label: column('label'), path: column('path'),
    qualified: column('qualified'), doc: column('doc'), signatures: column('signatures'),
    lastCommit: column('lastCommit'), commitCount: column('commitCount'),
    source: () => endpoints(edgeSource), target: () => endpoints(edgeTarget),
    relation: () => values(1, edgeRelation, out.u8), weight: () => values(4, edgeWeight, out.f32),
    filePath: () => out.view(filePath), fileKey: () => out.view(fileKey), fileLang: () => out.view(fileLang),
    fileErrors: () => out.view(fileErrors), fileErrorLine: () => out.view(fileErrorLine), filePrecise: () => out.view(filePrecise),
    latin1Offsets: () => tableOffsets(l1, 1), utf16Offsets: () => tableOffsets(u16, 2),
    latin1: () => writeStrings(out, l1, 'latin1'), utf16: () => writeStrings(out, u16, 'utf16le'),
  };
  // In the layout's order, each section where the layout puts it, padded to 8 bytes.
  for (const name of Object.keys(offsets) as SectionName[]) {
    if (out.position !== bodyStart + offsets[name]) throw new Error(`graph snapshot: section ${name} at ${out.position}, laid out at ${bodyStart + offsets[name]}`);
    yield* sections[name]();
    yield* out.padTo8();
    yield;
  }
  if (out.position !== bodyStart + size) throw new Error(`graph snapshot: ${out.position} bytes written for ${bodyStart + size} laid out`);
  return yield* out.finish();
}

/** Writes a string table's entries in order, STRINGS_PER_STEP joined per batch. */
function* writeStrings(out: ChunkWriter, table: readonly string[], encoding: 'latin1' | 'utf16le'): Generator<ChunkStep, void> {
  for (let i = 0; i < table.length; i += STRINGS_PER_STEP) {
    yield* out.text(table.slice(i, Math.min(table.length, i + STRINGS_PER_STEP)).join(''), encoding);
    yield;
  }
}
