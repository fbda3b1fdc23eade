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
import {
  REF_DOC, REF_ID, REF_LABEL, REF_PATH, REF_QUALIFIED, REF_SIGNATURES, StringCounts, collectEntries, internNode, putRefs, replay, type Ref,
} from './graph-snapshot-strings.ts';
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

/** The first pass's record: each live slot's row, each row's string classes. */
interface NodeRows {
  remap: Uint32Array;
  classes: Uint8Array;
}

/** Interns the strings of node slots [from, to) from row `w` on; returns the next row. */
function internNodes(graph: CodeGraph, rows: NodeRows, strings: StringCounts, langCode: (l: string | null) => number, from: number, to: number, w: number): number {
  for (let i = from; i < to; i++) {
    const node = graph.node(i);
    if (!node) continue;
    rows.remap[i] = w;
    langCode(node.language);
    rows.classes[w++] = internNode(strings, node);
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

/** Live edges counted in slots [from, to) (a check of the graph's count). */
function liveEdges(alive: Uint8Array, from: number, to: number): number {
  let k = 0;
  for (let e = from; e < to; e++) if (alive[e]) k++;
  return k;
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
  const strings = new StringCounts();
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
  const filePath = new Uint32Array(f), fileKey = new Uint32Array(f), fileLang = new Uint8Array(f), fileWide = new Uint8Array(f);
  const fileErrors = new Uint32Array(f), fileErrorLine = new Uint32Array(f), filePrecise = new Uint8Array(f);
  for (let from = 0; from < f; from += FILES_PER_STEP) {
    for (let i = from; i < Math.min(f, from + FILES_PER_STEP); i++) {
      const file = facts.files[i];
      filePath[i] = strings.ref(file.path);
      fileKey[i] = strings.add(file.extractionKey);
      fileWide[i] = fileKey[i] >= UTF16_BIT ? 1 : 0;
      fileLang[i] = langCode(file.language);
      fileErrors[i] = file.parseErrors;
      fileErrorLine[i] = file.parseErrorLine;
      filePrecise[i] = file.precise ? 1 : 0;
    }
    yield;
  }
  const { latin1, utf16, latin1Bytes, utf16Bytes } = strings;
  yield;

  const header: Header = {
    nodes: n, edges: m, files: f,
    latin1Strings: latin1, utf16Strings: utf16,
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
    const r = replay();
    const lookup = strings.lookup;
    return out.elements(4, n, (at, room) => putRefs(graph, rows.classes, lookup, which, r, out.u32, at, room));
  };
  // The string tables' offsets and text, replayed from the nodes and files in batches (each entry's
  // byte offset made as its section is written).
  const batches = (wideTable: boolean) => {
    const r = replay(), lookup = strings.lookup, batch: string[] = [];
    return (max: number): string[] => {
      batch.length = 0;
      collectEntries(graph, rows.classes, fileWide, facts.files, lookup, wideTable, r, batch, max);
      return batch;
    };
  };
  const tableOffsets = (wideTable: boolean, count: number) => {
    const next = batches(wideTable), unit = wideTable ? 2 : 1;
    let batch: string[] = [], k = 0, offset = 0;
    return out.elements(4, count + 1, (at, room) => {
      for (const end = at + room; at < end; at++) {
        out.u32[at] = offset;
        if (k === batch.length) (batch = next(STRINGS_PER_STEP)), (k = 0);
        if (k < batch.length) offset += unit * batch[k++].length;
      }
    });
  };
  const tableText = function* (wideTable: boolean): Generator<ChunkStep, void> {
    const next = batches(wideTable);
    for (let batch = next(STRINGS_PER_STEP); batch.length > 0; batch = next(STRINGS_PER_STEP)) {
      yield* out.text(batch.join(''), wideTable ? 'utf16le' : 'latin1');
      yield;
    }
  };
  const sections: Record<SectionName, () => Generator<ChunkStep, void>> = {
    kind: () => column(1, out.u8, (node) => KIND_CODE.get(node.kind) ?? 0),
    lang: () => column(1, out.u8, (node) => langCode(node.language)),
    flags: () => column(2, out.u16, nodeFlags),
    start: () => column(4, out.u32, (node) => node.startLine), end: () => column(4, out.u32, (node) => node.endLine),
    id: () => refs(REF_ID), label: () => refs(REF_LABEL), path: () => refs(REF_PATH),
    qualified: () => refs(REF_QUALIFIED), doc: () => refs(REF_DOC), signatures: () => refs(REF_SIGNATURES),
    lastCommit: () => column(8, out.f64, (node) => node.lastCommitAt ?? 0),
    commitCount: () => column(4, out.u32, (node) => node.commitCount ?? 0),
    source: () => endpoints(edgeSource), target: () => endpoints(edgeTarget),
    relation: () => values(1, edgeRelation, out.u8), weight: () => values(4, edgeWeight, out.f32),
    filePath: () => out.view(filePath), fileKey: () => out.view(fileKey), fileLang: () => out.view(fileLang),
    fileErrors: () => out.view(fileErrors), fileErrorLine: () => out.view(fileErrorLine), filePrecise: () => out.view(filePrecise),
    latin1Offsets: () => tableOffsets(false, latin1), utf16Offsets: () => tableOffsets(true, utf16),
    latin1: () => tableText(false), utf16: () => tableText(true),
  };
  // In the layout's order, each section where the layout puts it, padded to 8 bytes.
  for (const name of Object.keys(offsets) as SectionName[]) {
    if (out.position !== bodyStart + offsets[name]) throw new Error(`graph snapshot: section ${name} at ${out.position}, laid out at ${bodyStart + offsets[name]}`);
    yield* sections[name]();
    yield* out.padTo8();
    yield;
  }
  strings.seal();
  if (out.position !== bodyStart + size) throw new Error(`graph snapshot: ${out.position} bytes written for ${bodyStart + size} laid out`);
  return yield* out.finish();
}
