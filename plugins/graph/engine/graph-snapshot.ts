/**
 * A built graph in a compact binary form, so a load reads one blob instead of re-linking every
 * stored extraction. Nodes are columns (kind, language, flags, lines, string references, git facts),
 * edges four typed arrays; every string (ids, labels, paths, qualified names, docs, extraction keys)
 * lives once in one of two string tables (Latin-1 and UTF-16, so each round-trips exactly and a
 * Latin-1 table decodes to one-byte strings). The CSR is not stored: `finalize` rebuilds it in one
 * O(nodes + edges) pass, cheaper than reading it.
 *
 * Layout: magic `M1GS`, format, CRC-32 of everything after the first 12 bytes, header length, the
 * header (JSON: counts, languages, the checker fingerprint, unresolved imports), then the sections
 * named in `layout`, each 8-byte aligned. A bad magic, format or checksum, or sections that do not
 * fit, throw SnapshotError: the caller ignores the snapshot and rebuilds the graph from extractions.
 * The encoder is graph-snapshot-encode.ts.
 */
import { crc32 } from 'node:zlib';
import type { Language } from './extraction.ts';
import type { UnresolvedImport } from './graph-change.ts';
import type { GraphNode, NodeKind } from './graph.ts';

/** Bumped whenever the layout or the meaning of a field changes; other formats are ignored. */
export const SNAPSHOT_FORMAT = 1;

export const MAGIC = 0x5347314d; // 'M1GS' little-endian
export const NO_STRING = 0xffffffff;
export const UTF16_BIT = 0x80000000;
export const NO_LANGUAGE = 255;

export const KINDS: readonly NodeKind[] = ['file', 'module', 'class', 'interface', 'function', 'method', 'type', 'section'];
export const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));

// Node flags: which optional fields a node has, and the booleans' values.
export const F_QUALIFIED = 1;
export const F_EXPORTED = 2;
export const F_EXPORTED_TRUE = 4;
export const F_DOC = 8;
export const F_SIGNATURES = 16;
export const F_LAST_COMMIT = 32;
export const F_COMMIT_COUNT = 64;
export const F_IS_TEST = 128;
export const F_IS_TEST_TRUE = 256;

/** One file of the graph as a query-only load needs it (the builder's per-file state is not stored). */
export interface SnapshotFile {
  path: string;
  /** The extraction the graph was built from (path → key is what freshness checks diff against). */
  extractionKey: string;
  language: Language;
  parseErrors: number;
  parseErrorLine: number;
  /** True when the file's calls came from the checker pass. */
  precise: boolean;
}

/** What a snapshot holds besides the graph. */
export interface SnapshotFacts {
  files: SnapshotFile[];
  unresolved: UnresolvedImport[];
  /** The checker's program fingerprint the graph's checker edges were validated under, or null when none were. */
  fingerprint: string | null;
}

/** A decoded snapshot: nodes in index order, live edges, and the facts. */
export interface DecodedSnapshot extends SnapshotFacts {
  nodes: GraphNode[];
  edgeSource: Uint32Array;
  edgeTarget: Uint32Array;
  edgeRelation: Uint8Array;
  edgeWeight: Float32Array;
}

/** A snapshot that cannot be read (corrupt, truncated, another format). */
export class SnapshotError extends Error {}

export interface Header {
  nodes: number;
  edges: number;
  files: number;
  latin1Strings: number;
  utf16Strings: number;
  latin1Bytes: number;
  utf16Bytes: number;
  languages: string[];
  fingerprint: string | null;
  unresolved: UnresolvedImport[];
}

export type SectionName = keyof ReturnType<typeof sectionSizes>;

/** Byte size of every section for the header's counts. */
function sectionSizes(h: Header) {
  const { nodes: n, edges: m, files: f } = h;
  return {
    kind: n, lang: n, flags: 2 * n, start: 4 * n, end: 4 * n,
    id: 4 * n, label: 4 * n, path: 4 * n, qualified: 4 * n, doc: 4 * n, signatures: 4 * n,
    lastCommit: 8 * n, commitCount: 4 * n,
    source: 4 * m, target: 4 * m, relation: m, weight: 4 * m,
    filePath: 4 * f, fileKey: 4 * f, fileLang: f, fileErrors: 4 * f, fileErrorLine: 4 * f, filePrecise: f,
    latin1Offsets: 4 * (h.latin1Strings + 1), utf16Offsets: 4 * (h.utf16Strings + 1),
    latin1: h.latin1Bytes, utf16: h.utf16Bytes,
  };
}

export const align8 = (x: number): number => (x + 7) & ~7;

/** Offsets of the sections from the body's start, and the body's size. */
export function layout(h: Header): { offsets: Record<SectionName, number>; size: number } {
  const sizes = sectionSizes(h);
  const offsets = {} as Record<SectionName, number>;
  let at = 0;
  for (const name of Object.keys(sizes) as SectionName[]) {
    offsets[name] = at;
    at = align8(at + sizes[name]);
  }
  return { offsets, size: at };
}

/** Nodes decoded per step. */
const DECODE_NODES_PER_STEP = 512;

/** A snapshot's node columns, as typed views over its bytes (the encoder adds the slot remap). */
export interface NodeColumnsIn {
  kind: Uint8Array;
  lang: Uint8Array;
  flags: Uint16Array;
  start: Uint32Array;
  end: Uint32Array;
  id: Uint32Array;
  label: Uint32Array;
  path: Uint32Array;
  qualified: Uint32Array;
  doc: Uint32Array;
  signatures: Uint32Array;
  lastCommit: Float64Array;
  commitCount: Uint32Array;
}

/** Decodes nodes [from, to) into `nodes`. */
function decodeNodes(c: NodeColumnsIn, str: (ref: number) => string, language: (code: number) => Language | null, nodes: GraphNode[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const fl = c.flags[i];
    const k = KINDS[c.kind[i]];
    if (k === undefined) throw new SnapshotError('graph snapshot: bad node kind');
    const node: GraphNode = { id: str(c.id[i]), kind: k, label: str(c.label[i]), path: str(c.path[i]), startLine: c.start[i], endLine: c.end[i], language: language(c.lang[i]) };
    if (fl & F_QUALIFIED) node.qualifiedName = str(c.qualified[i]);
    if (fl & F_IS_TEST) node.isTest = (fl & F_IS_TEST_TRUE) !== 0;
    if (fl & F_EXPORTED) node.exported = (fl & F_EXPORTED_TRUE) !== 0;
    if (fl & F_DOC) node.doc = str(c.doc[i]);
    if (fl & F_SIGNATURES) node.signatures = JSON.parse(str(c.signatures[i])) as string[];
    if (fl & F_LAST_COMMIT) node.lastCommitAt = c.lastCommit[i];
    if (fl & F_COMMIT_COUNT) node.commitCount = c.commitCount[i];
    nodes[i] = node;
  }
}

/** Decodes a snapshot (checking magic, format and checksum); yields between batches of nodes. */
export function* decodeSnapshot(input: Uint8Array): Generator<void, DecodedSnapshot> {
  // Typed views need aligned offsets: a blob at an odd offset is copied once.
  const data = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  if (data.byteLength < 16) throw new SnapshotError('graph snapshot: truncated');
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (dv.getUint32(0, true) !== MAGIC) throw new SnapshotError('graph snapshot: not a snapshot');
  if (dv.getUint32(4, true) !== SNAPSHOT_FORMAT) throw new SnapshotError('graph snapshot: another format');
  if (dv.getUint32(8, true) !== crc32(data.subarray(12))) throw new SnapshotError('graph snapshot: checksum mismatch');
  yield;
  const headerLength = dv.getUint32(12, true);
  if (16 + headerLength > data.byteLength) throw new SnapshotError('graph snapshot: truncated header');
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const header = JSON.parse(buf.toString('utf8', 16, 16 + headerLength)) as Header;
  const bodyStart = align8(16 + headerLength);
  const { offsets, size } = layout(header);
  if (bodyStart + size !== data.byteLength) throw new SnapshotError('graph snapshot: sections do not match the header');
  const base = data.byteOffset + bodyStart;
  const u32 = (name: SectionName, count: number) => new Uint32Array(data.buffer, base + offsets[name], count);
  const u8 = (name: SectionName, count: number) => new Uint8Array(data.buffer, base + offsets[name], count);
  const { nodes: n, edges: m, files: f } = header;

  const latin1Offsets = u32('latin1Offsets', header.latin1Strings + 1);
  const utf16Offsets = u32('utf16Offsets', header.utf16Strings + 1);
  // One string per table; each entry is a slice of it (V8 shares the characters of long slices).
  const latin1 = buf.toString('latin1', bodyStart + offsets.latin1, bodyStart + offsets.latin1 + header.latin1Bytes);
  yield;
  const utf16 = buf.toString('utf16le', bodyStart + offsets.utf16, bodyStart + offsets.utf16 + header.utf16Bytes);
  yield;
  const str = (ref: number): string => {
    if (ref & UTF16_BIT) {
      const i = ref & ~UTF16_BIT;
      if (i >= header.utf16Strings) throw new SnapshotError('graph snapshot: bad string reference');
      return utf16.slice(utf16Offsets[i] / 2, utf16Offsets[i + 1] / 2);
    }
    if (ref >= header.latin1Strings) throw new SnapshotError('graph snapshot: bad string reference');
    return latin1.slice(latin1Offsets[ref], latin1Offsets[ref + 1]);
  };
  const language = (code: number): Language | null => {
    if (code === NO_LANGUAGE) return null;
    const l = header.languages[code];
    if (l === undefined) throw new SnapshotError('graph snapshot: bad language code');
    return l as Language;
  };

  const kind = u8('kind', n), lang = u8('lang', n), flags = new Uint16Array(data.buffer, base + offsets.flags, n);
  const start = u32('start', n), end = u32('end', n);
  const id = u32('id', n), label = u32('label', n), path = u32('path', n);
  const qualified = u32('qualified', n), doc = u32('doc', n), signatures = u32('signatures', n);
  const lastCommit = new Float64Array(data.buffer, base + offsets.lastCommit, n), commitCount = u32('commitCount', n);
  const nodes: GraphNode[] = new Array(n);
  const cols: NodeColumnsIn = { kind, lang, flags, start, end, id, label, path, qualified, doc, signatures, lastCommit, commitCount };
  // A range per step, in a plain function: V8 never optimises a long loop inside a generator body.
  for (let from = 0; from < n; from += DECODE_NODES_PER_STEP) {
    decodeNodes(cols, str, language, nodes, from, Math.min(n, from + DECODE_NODES_PER_STEP));
    yield;
  }
  // Edges are copied out (the graph owns growable arrays); endpoints are checked against the nodes.
  const edgeSource = u32('source', m).slice(), edgeTarget = u32('target', m).slice();
  const edgeRelation = u8('relation', m).slice(), edgeWeight = new Float32Array(data.buffer, base + offsets.weight, m).slice();
  yield;
  for (let e = 0; e < m; e++) if (edgeSource[e] >= n || edgeTarget[e] >= n) throw new SnapshotError('graph snapshot: edge endpoint out of range');
  yield;
  const filePath = u32('filePath', f), fileKey = u32('fileKey', f), fileLang = u8('fileLang', f);
  const fileErrors = u32('fileErrors', f), fileErrorLine = u32('fileErrorLine', f), filePrecise = u8('filePrecise', f);
  const files: SnapshotFile[] = new Array(f);
  for (let i = 0; i < f; i++) {
    const l = language(fileLang[i]);
    if (l === null) throw new SnapshotError('graph snapshot: a file without a language');
    files[i] = { path: str(filePath[i]), extractionKey: str(fileKey[i]), language: l, parseErrors: fileErrors[i], parseErrorLine: fileErrorLine[i], precise: filePrecise[i] === 1 };
  }
  return { nodes, edgeSource, edgeTarget, edgeRelation, edgeWeight, files, unresolved: header.unresolved, fingerprint: header.fingerprint };
}
