/**
 * The graph snapshot's encoder (the format is graph-snapshot.ts's). Background work (the snapshot is
 * written after an ingest, while calls are served), so it runs as steps of a few hundred microseconds:
 * the per-node, per-edge and per-file loops live in plain functions called on ranges (a long loop
 * inside a generator body is never optimised by V8, and ran 10–20× slower), the string tables are
 * written straight into the one output buffer a batch at a time (no joined copy of every string),
 * and the checksum is computed a megabyte at a time.
 */
import { crc32 } from 'node:zlib';
import type { CodeGraph } from './graph.ts';
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
/** Bytes checksummed per step. */
const CRC_BYTES_PER_STEP = 1 << 20;

/** Interns strings into the two tables; a reference is the index, with the top bit for UTF-16. */
class StringTables {
  private readonly ids = new Map<string, number>();
  readonly latin1: string[] = [];
  readonly utf16: string[] = [];

  ref(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      // eslint-disable-next-line no-control-regex
      if (/[^\u0000-\u00ff]/.test(s)) id = UTF16_BIT | (this.utf16.push(s) - 1);
      else id = this.latin1.push(s) - 1;
      this.ids.set(s, id);
    }
    return id;
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
    c.id[w] = strings.ref(node.id);
    c.label[w] = strings.ref(node.label);
    c.path[w] = strings.ref(node.path);
    let fl = 0;
    if (node.qualifiedName !== undefined) (fl |= F_QUALIFIED), (c.qualified[w] = strings.ref(node.qualifiedName));
    if (node.exported !== undefined) fl |= F_EXPORTED | (node.exported ? F_EXPORTED_TRUE : 0);
    if (node.doc !== undefined) (fl |= F_DOC), (c.doc[w] = strings.ref(node.doc));
    if (node.signatures !== undefined) (fl |= F_SIGNATURES), (c.signatures[w] = strings.ref(JSON.stringify(node.signatures)));
    if (node.lastCommitAt !== undefined) (fl |= F_LAST_COMMIT), (c.lastCommit[w] = node.lastCommitAt);
    if (node.commitCount !== undefined) (fl |= F_COMMIT_COUNT), (c.commitCount[w] = node.commitCount);
    if (node.isTest !== undefined) fl |= F_IS_TEST | (node.isTest ? F_IS_TEST_TRUE : 0);
    c.flags[w] = fl;
    w++;
  }
  return w;
}

/** The live edges of slots [from, to), endpoints renumbered, from row `k` on; returns the next row. */
function copyEdges(graph: CodeGraph, remap: Uint32Array, out: { source: Uint32Array; target: Uint32Array; relation: Uint8Array; weight: Float32Array }, from: number, to: number, k: number): number {
  const { edgeSource, edgeTarget, edgeRelation, edgeWeight, edgeAlive } = graph;
  for (let e = from; e < to; e++) {
    if (!edgeAlive[e]) continue;
    out.source[k] = remap[edgeSource[e]];
    out.target[k] = remap[edgeTarget[e]];
    out.relation[k] = edgeRelation[e];
    out.weight[k] = edgeWeight[e];
    k++;
  }
  return k;
}

/** Byte offsets of strings [from, to) of a table (`unit` bytes per character), from `at` on; returns the end. */
function stringOffsets(table: readonly string[], offsets: Uint32Array, unit: number, from: number, to: number, at: number): number {
  for (let i = from; i < to; i++) {
    offsets[i] = at;
    at += unit * table[i].length;
  }
  return at;
}

/**
 * Encodes the live nodes and edges of a finalized graph (empty slots and dead edges dropped, indices
 * renumbered densely) with the facts; yields between batches so a caller can run it in slices.
 */
export function* encodeSnapshot(graph: CodeGraph, facts: SnapshotFacts): Generator<void, Uint8Array> {
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
  const edges = { source: new Uint32Array(m), target: new Uint32Array(m), relation: new Uint8Array(m), weight: new Float32Array(m) };
  let k = 0;
  for (let e = 0; e < graph.edgeCapacity; e += EDGES_PER_STEP) {
    k = copyEdges(graph, cols.remap, edges, e, Math.min(graph.edgeCapacity, e + EDGES_PER_STEP), k);
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
      fileKey[i] = strings.ref(file.extractionKey);
      fileLang[i] = langCode(file.language);
      fileErrors[i] = file.parseErrors;
      fileErrorLine[i] = file.parseErrorLine;
      filePrecise[i] = file.precise ? 1 : 0;
    }
    yield;
  }
  // String tables: byte offsets into each table.
  const { latin1: l1, utf16: u16 } = strings;
  const latin1Offsets = new Uint32Array(l1.length + 1);
  const utf16Offsets = new Uint32Array(u16.length + 1);
  let latin1Bytes = 0;
  for (let i = 0; i < l1.length; i += STRINGS_PER_STEP * 8) {
    latin1Bytes = stringOffsets(l1, latin1Offsets, 1, i, Math.min(l1.length, i + STRINGS_PER_STEP * 8), latin1Bytes);
    yield;
  }
  latin1Offsets[l1.length] = latin1Bytes;
  const utf16Bytes = stringOffsets(u16, utf16Offsets, 2, 0, u16.length, 0);
  utf16Offsets[u16.length] = utf16Bytes;
  yield;

  const header: Header = {
    nodes: n, edges: m, files: f,
    latin1Strings: l1.length, utf16Strings: u16.length,
    latin1Bytes, utf16Bytes,
    languages, fingerprint: facts.fingerprint, unresolved: facts.unresolved,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const bodyStart = align8(16 + headerBytes.length);
  const { offsets, size } = layout(header);
  // Zero-filled (the alignment padding is checksummed, so it must be deterministic).
  const out = Buffer.alloc(bodyStart + size);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, SNAPSHOT_FORMAT, true);
  dv.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  yield;
  const sections: Partial<Record<SectionName, ArrayBufferView>> = {
    kind: cols.kind, lang: cols.lang, flags: cols.flags, start: cols.start, end: cols.end, id: cols.id, label: cols.label, path: cols.path,
    qualified: cols.qualified, doc: cols.doc, signatures: cols.signatures, lastCommit: cols.lastCommit, commitCount: cols.commitCount,
    source: edges.source, target: edges.target, relation: edges.relation, weight: edges.weight,
    filePath, fileKey, fileLang, fileErrors, fileErrorLine, filePrecise,
    latin1Offsets, utf16Offsets,
  };
  for (const name of Object.keys(sections) as SectionName[]) {
    const v = sections[name]!;
    out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), bodyStart + offsets[name]);
    if (v.byteLength >= 1 << 16) yield;
  }
  yield;
  // The strings, a batch at a time, straight into their sections.
  yield* writeStrings(out, l1, latin1Offsets, bodyStart + offsets.latin1, 'latin1');
  yield* writeStrings(out, u16, utf16Offsets, bodyStart + offsets.utf16, 'utf16le');
  let crc = 0;
  for (let at = 12; at < out.length; at += CRC_BYTES_PER_STEP) {
    crc = crc32(out.subarray(at, Math.min(out.length, at + CRC_BYTES_PER_STEP)), crc);
    yield;
  }
  dv.setUint32(8, crc, true);
  return out;
}

/** Writes a string table's entries at `base` + their offsets, STRINGS_PER_STEP per step (one joined batch each). */
function* writeStrings(out: Buffer, table: readonly string[], offsets: Uint32Array, base: number, encoding: 'latin1' | 'utf16le'): Generator<void, void> {
  for (let i = 0; i < table.length; i += STRINGS_PER_STEP) {
    const to = Math.min(table.length, i + STRINGS_PER_STEP);
    out.write(table.slice(i, to).join(''), base + offsets[i], offsets[to] - offsets[i], encoding);
    yield;
  }
}
