/**
 * The graph snapshot's encoder (the format is graph-snapshot.ts's). Background work (the snapshot is
 * written after an ingest, while calls are served), so it runs as steps of a few hundred microseconds:
 * the per-node, per-edge and per-file loops live in plain functions called on ranges (a long loop
 * inside a generator body is never optimised by V8, and ran 10–20× slower).
 *
 * The bytes are never held whole: a first pass interns the strings and fills the file columns (what
 * the header's counts and the string tables' sizes need), keeping per node only its row and a byte of
 * string classes; then the layout is emitted in order through one reused chunk buffer, each full
 * chunk handed to the caller (the store inserts it) before the buffer is refilled. The node columns
 * are made from the nodes into the chunks as they are written. Edges go from the graph's own arrays to the chunks, renumbered on
 * the way. The checksum runs over the chunks as they go; chunk 0, which holds it, is kept (one chunk)
 * and handed over last. On the python3 prefix this took the ~170 MB of a whole-snapshot buffer and
 * its edge copies off the write at close.
 */
import type { CodeGraph, GraphNode } from './graph.ts';
import { ChunkWriter, type ChunkStep, type SnapshotSize } from './graph-snapshot-chunks.ts';
import {
  F_COMMIT_COUNT, F_DOC, F_EXPORTED, F_EXPORTED_TRUE, F_IS_TEST, F_IS_TEST_TRUE, F_LAST_COMMIT, F_QUALIFIED, F_SIGNATURES,
  KIND_CODE, MAGIC, NO_LANGUAGE, NO_STRING, SNAPSHOT_FORMAT, UTF16_BIT, align8, layout,
  type Header, type SectionName, type SnapshotFacts,
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

  /** The shared strings' references (until `seal`). */
  get lookup(): Map<string, number> {
    return this.ids!;
  }

  /** Drops the lookup once every reference is made (the tables stay). */
  seal(): void {
    this.ids = null;
  }
}

/** A live node's string classes, one byte a node (what the second pass needs to remake the string references). */
const C_ID_UTF16 = 1;
const C_QUALIFIED_UTF16 = 2;
const C_DOC_UTF16 = 4;
const C_SIGNATURES_UTF16 = 8;

/** The first pass's record: each live slot's row, each row's string classes. */
interface NodeRows {
  remap: Uint32Array;
  classes: Uint8Array;
}

/** Interns the strings of node slots [from, to) from row `w` on (in the order id, label, path, qualified, doc, signatures); returns the next row. */
function internNodes(graph: CodeGraph, rows: NodeRows, strings: StringTables, langCode: (l: string | null) => number, from: number, to: number, w: number): number {
  for (let i = from; i < to; i++) {
    const node = graph.node(i);
    if (!node) continue;
    rows.remap[i] = w;
    langCode(node.language);
    let c = strings.add(node.id) < 0 ? C_ID_UTF16 : 0;
    strings.ref(node.label);
    strings.ref(node.path);
    if (node.qualifiedName !== undefined && strings.add(node.qualifiedName) < 0) c |= C_QUALIFIED_UTF16;
    if (node.doc !== undefined && strings.add(node.doc) < 0) c |= C_DOC_UTF16;
    if (node.signatures !== undefined && strings.add(JSON.stringify(node.signatures)) < 0) c |= C_SIGNATURES_UTF16;
    rows.classes[w] = c;
    w++;
  }
  return w;
}

/** A node's flags column value (which optional fields it has). */
function nodeFlags(node: GraphNode): number {
  let fl = 0;
  if (node.qualifiedName !== undefined) fl |= F_QUALIFIED;
  if (node.exported !== undefined) fl |= F_EXPORTED | (node.exported ? F_EXPORTED_TRUE : 0);
  if (node.doc !== undefined) fl |= F_DOC;
  if (node.signatures !== undefined) fl |= F_SIGNATURES;
  if (node.lastCommitAt !== undefined) fl |= F_LAST_COMMIT;
  if (node.commitCount !== undefined) fl |= F_COMMIT_COUNT;
  if (node.isTest !== undefined) fl |= F_IS_TEST | (node.isTest ? F_IS_TEST_TRUE : 0);
  return fl;
}

/** Writes `room` live nodes' `value` into `out` from `at`, scanning from slot `i`; returns the next slot. */
function putNodeValues(graph: CodeGraph, value: (node: GraphNode) => number, out: Uint8Array | Uint16Array | Uint32Array | Float64Array, at: number, room: number, i: number): number {
  for (const end = at + room; at < end; i++) {
    const node = graph.node(i);
    if (node) out[at++] = value(node);
  }
  return i;
}

/** Which string reference a replay writes (numbered in the order the first pass interned them). */
type Ref = 0 | 1 | 2 | 3 | 4 | 5;
const REF_ID = 0, REF_LABEL = 1, REF_PATH = 2, REF_QUALIFIED = 3, REF_DOC = 4;

/**
 * A replay of the first pass's string references, row by row, without the strings' tables being
 * searched again: an appended string's reference is its table's running count (its class recorded
 * in the first pass), a shared one (label, path) is looked up, and advances its table's count when
 * the lookup gives the count itself (its first use).
 */
interface Replay {
  slot: number;
  row: number;
  latin1: number;
  utf16: number;
}

/** The next reference of an appended string of class `utf16`, advancing the replay's counts. */
function appended(r: Replay, utf16: boolean): number {
  return utf16 ? (UTF16_BIT | r.utf16++) >>> 0 : r.latin1++;
}

/** A shared string's reference (from the lookup), advancing the replay's count on its first use. */
function shared(r: Replay, ref: number): number {
  if (ref < 0) {
    if ((ref & ~UTF16_BIT) === r.utf16) r.utf16++;
  } else if (ref === r.latin1) r.latin1++;
  return ref >>> 0;
}

/** Writes the next `room` live nodes' reference `which` into `out` from `at` (NO_STRING when absent); advances the replay. */
function putRefs(graph: CodeGraph, classes: Uint8Array, lookup: Map<string, number>, which: Ref, r: Replay, out: Uint32Array, at: number, room: number): void {
  for (const end = at + room; at < end; r.slot++) {
    const node = graph.node(r.slot);
    if (!node) continue;
    const c = classes[r.row++];
    const id = appended(r, (c & C_ID_UTF16) !== 0);
    const label = shared(r, lookup.get(node.label)!);
    const path = shared(r, lookup.get(node.path)!);
    const qualified = node.qualifiedName !== undefined ? appended(r, (c & C_QUALIFIED_UTF16) !== 0) : NO_STRING;
    const doc = node.doc !== undefined ? appended(r, (c & C_DOC_UTF16) !== 0) : NO_STRING;
    const signatures = node.signatures !== undefined ? appended(r, (c & C_SIGNATURES_UTF16) !== 0) : NO_STRING;
    out[at++] = which === REF_ID ? id : which === REF_LABEL ? label : which === REF_PATH ? path : which === REF_QUALIFIED ? qualified : which === REF_DOC ? doc : signatures;
  }
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
  const rows: NodeRows = { remap: new Uint32Array(graph.nodeCapacity).fill(NO_STRING), classes: new Uint8Array(n) };
  yield;
  let w = 0;
  for (let i = 0; i < graph.nodeCapacity; i += NODE_SLOTS_PER_STEP) {
    w = internNodes(graph, rows, strings, langCode, i, Math.min(graph.nodeCapacity, i + NODE_SLOTS_PER_STEP), w);
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
    return out.elements(4, m, (at, room) => void (e = putEndpoints(of, edgeAlive, rows.remap, out.u32, at, room, e)));
  };
  const values = (width: 1 | 4, of: Uint8Array | Float32Array, into: Uint8Array | Float32Array) => {
    let e = 0;
    return out.elements(width, m, (at, room) => void (e = putValues(of, edgeAlive, into, at, room, e)));
  };
  // The node columns are made from the nodes as each is written (columns made in the first pass and
  // held to the write were 48 bytes a node outside the heap: ~13 MB on the python3 prefix, at the
  // close's peak). The fixed fields are read again; the string references are replayed.
  const column = (width: 1 | 2 | 4 | 8, into: Uint8Array | Uint16Array | Uint32Array | Float64Array, value: (node: GraphNode) => number) => {
    let i = 0;
    return out.elements(width, n, (at, room) => void (i = putNodeValues(graph, value, into, at, room, i)));
  };
  const refs = (which: Ref) => {
    const r: Replay = { slot: 0, row: 0, latin1: 0, utf16: 0 };
    const lookup = strings.lookup;
    return out.elements(4, n, (at, room) => putRefs(graph, rows.classes, lookup, which, r, out.u32, at, room));
  };
  const tableOffsets = (table: readonly string[], unit: 1 | 2) => {
    let i = 0, offset = 0;
    return out.elements(4, table.length + 1, (at, room) => void ([i, offset] = putOffsets(table, unit, out.u32, at, room, i, offset)));
  };
  const sections: Record<SectionName, () => Generator<ChunkStep, void>> = {
    kind: () => column(1, out.u8, (node) => KIND_CODE.get(node.kind) ?? 0),
    lang: () => column(1, out.u8, (node) => langCode(node.language)),
    flags: () => column(2, out.u16, nodeFlags),
    start: () => column(4, out.u32, (node) => node.startLine), end: () => column(4, out.u32, (node) => node.endLine),
    id: () => refs(REF_ID), label: () => refs(REF_LABEL), path: () => refs(REF_PATH),
    qualified: () => refs(REF_QUALIFIED), doc: () => refs(REF_DOC), signatures: () => refs(5),
    lastCommit: () => column(8, out.f64, (node) => node.lastCommitAt ?? 0),
    commitCount: () => column(4, out.u32, (node) => node.commitCount ?? 0),
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
    if (name === 'signatures') strings.seal();
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
