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
 */
import { crc32 } from 'node:zlib';
import type { Language } from './extraction.ts';
import type { UnresolvedImport } from './graph-change.ts';
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';

/** Bumped whenever the layout or the meaning of a field changes; other formats are ignored. */
export const SNAPSHOT_FORMAT = 1;

const MAGIC = 0x5347314d; // 'M1GS' little-endian
const NO_STRING = 0xffffffff;
const UTF16_BIT = 0x80000000;
const NO_LANGUAGE = 255;
/** Nodes or edges handled between two points where a sliced run may yield. */
const STEP = 1024;

const KINDS: readonly NodeKind[] = ['file', 'module', 'class', 'interface', 'function', 'method', 'type', 'section'];
const KIND_CODE = new Map(KINDS.map((k, i) => [k, i]));

// Node flags: which optional fields a node has, and the booleans' values.
const F_QUALIFIED = 1;
const F_EXPORTED = 2;
const F_EXPORTED_TRUE = 4;
const F_DOC = 8;
const F_SIGNATURES = 16;
const F_LAST_COMMIT = 32;
const F_COMMIT_COUNT = 64;
const F_IS_TEST = 128;
const F_IS_TEST_TRUE = 256;

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

interface Header {
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

type SectionName = keyof ReturnType<typeof sectionSizes>;

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

const align8 = (x: number): number => (x + 7) & ~7;

/** Offsets of the sections from the body's start, and the body's size. */
function layout(h: Header): { offsets: Record<SectionName, number>; size: number } {
  const sizes = sectionSizes(h);
  const offsets = {} as Record<SectionName, number>;
  let at = 0;
  for (const name of Object.keys(sizes) as SectionName[]) {
    offsets[name] = at;
    at = align8(at + sizes[name]);
  }
  return { offsets, size: at };
}

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
  // Node columns, in the order of live slots.
  const remap = new Uint32Array(graph.nodeCapacity).fill(NO_STRING);
  const n = graph.nodeCount;
  const kind = new Uint8Array(n), lang = new Uint8Array(n), flags = new Uint16Array(n);
  const start = new Uint32Array(n), end = new Uint32Array(n);
  const id = new Uint32Array(n), label = new Uint32Array(n), path = new Uint32Array(n);
  const qualified = new Uint32Array(n).fill(NO_STRING), doc = new Uint32Array(n).fill(NO_STRING), signatures = new Uint32Array(n).fill(NO_STRING);
  const lastCommit = new Float64Array(n), commitCount = new Uint32Array(n);
  let w = 0;
  for (let i = 0; i < graph.nodeCapacity; i++) {
    const node = graph.node(i);
    if (!node) continue;
    remap[i] = w;
    kind[w] = KIND_CODE.get(node.kind) ?? 0;
    lang[w] = langCode(node.language);
    start[w] = node.startLine;
    end[w] = node.endLine;
    id[w] = strings.ref(node.id);
    label[w] = strings.ref(node.label);
    path[w] = strings.ref(node.path);
    let fl = 0;
    if (node.qualifiedName !== undefined) (fl |= F_QUALIFIED), (qualified[w] = strings.ref(node.qualifiedName));
    if (node.exported !== undefined) fl |= F_EXPORTED | (node.exported ? F_EXPORTED_TRUE : 0);
    if (node.doc !== undefined) (fl |= F_DOC), (doc[w] = strings.ref(node.doc));
    if (node.signatures !== undefined) (fl |= F_SIGNATURES), (signatures[w] = strings.ref(JSON.stringify(node.signatures)));
    if (node.lastCommitAt !== undefined) (fl |= F_LAST_COMMIT), (lastCommit[w] = node.lastCommitAt);
    if (node.commitCount !== undefined) (fl |= F_COMMIT_COUNT), (commitCount[w] = node.commitCount);
    if (node.isTest !== undefined) fl |= F_IS_TEST | (node.isTest ? F_IS_TEST_TRUE : 0);
    flags[w] = fl;
    w++;
    if (w % STEP === 0) yield;
  }
  if (w !== n) throw new Error(`graph snapshot: ${w} live slots for ${n} live nodes`);
  // Live edges, endpoints renumbered.
  const m = graph.edgeCount;
  const source = new Uint32Array(m), target = new Uint32Array(m), relation = new Uint8Array(m), weight = new Float32Array(m);
  let k = 0;
  for (let e = 0; e < graph.edgeCapacity; e++) {
    if (!graph.isEdgeAlive(e)) continue;
    source[k] = remap[graph.edgeSource[e]];
    target[k] = remap[graph.edgeTarget[e]];
    relation[k] = graph.edgeRelation[e];
    weight[k] = graph.edgeWeight[e];
    k++;
    if (k % (4 * STEP) === 0) yield;
  }
  if (k !== m) throw new Error(`graph snapshot: ${k} live edge slots for ${m} live edges`);
  const f = facts.files.length;
  const filePath = new Uint32Array(f), fileKey = new Uint32Array(f), fileLang = new Uint8Array(f);
  const fileErrors = new Uint32Array(f), fileErrorLine = new Uint32Array(f), filePrecise = new Uint8Array(f);
  facts.files.forEach((file, i) => {
    filePath[i] = strings.ref(file.path);
    fileKey[i] = strings.ref(file.extractionKey);
    fileLang[i] = langCode(file.language);
    fileErrors[i] = file.parseErrors;
    fileErrorLine[i] = file.parseErrorLine;
    filePrecise[i] = file.precise ? 1 : 0;
  });
  yield;
  // String tables: offsets in bytes into each table.
  const latin1Offsets = new Uint32Array(strings.latin1.length + 1);
  let at = 0;
  strings.latin1.forEach((s, i) => {
    latin1Offsets[i] = at;
    at += s.length;
  });
  latin1Offsets[strings.latin1.length] = at;
  const latin1 = Buffer.from(strings.latin1.join(''), 'latin1');
  const utf16Offsets = new Uint32Array(strings.utf16.length + 1);
  at = 0;
  strings.utf16.forEach((s, i) => {
    utf16Offsets[i] = at;
    at += 2 * s.length;
  });
  utf16Offsets[strings.utf16.length] = at;
  const utf16 = Buffer.from(strings.utf16.join(''), 'utf16le');
  yield;

  const header: Header = {
    nodes: n, edges: m, files: f,
    latin1Strings: strings.latin1.length, utf16Strings: strings.utf16.length,
    latin1Bytes: latin1.length, utf16Bytes: utf16.length,
    languages, fingerprint: facts.fingerprint, unresolved: facts.unresolved,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const bodyStart = align8(16 + headerBytes.length);
  const { offsets, size } = layout(header);
  const out = new Uint8Array(bodyStart + size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, SNAPSHOT_FORMAT, true);
  dv.setUint32(12, headerBytes.length, true);
  out.set(headerBytes, 16);
  const sections: Record<SectionName, ArrayBufferView> = {
    kind, lang, flags, start, end, id, label, path, qualified, doc, signatures, lastCommit, commitCount,
    source, target, relation, weight,
    filePath, fileKey, fileLang, fileErrors, fileErrorLine, filePrecise,
    latin1Offsets, utf16Offsets, latin1, utf16,
  };
  for (const name of Object.keys(sections) as SectionName[]) {
    const v = sections[name];
    out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), bodyStart + offsets[name]);
  }
  dv.setUint32(8, crc32(out.subarray(12)), true);
  return out;
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
  for (let i = 0; i < n; i++) {
    const fl = flags[i];
    const k = KINDS[kind[i]];
    if (k === undefined) throw new SnapshotError('graph snapshot: bad node kind');
    const node: GraphNode = { id: str(id[i]), kind: k, label: str(label[i]), path: str(path[i]), startLine: start[i], endLine: end[i], language: language(lang[i]) };
    if (fl & F_QUALIFIED) node.qualifiedName = str(qualified[i]);
    if (fl & F_IS_TEST) node.isTest = (fl & F_IS_TEST_TRUE) !== 0;
    if (fl & F_EXPORTED) node.exported = (fl & F_EXPORTED_TRUE) !== 0;
    if (fl & F_DOC) node.doc = str(doc[i]);
    if (fl & F_SIGNATURES) node.signatures = JSON.parse(str(signatures[i])) as string[];
    if (fl & F_LAST_COMMIT) node.lastCommitAt = lastCommit[i];
    if (fl & F_COMMIT_COUNT) node.commitCount = commitCount[i];
    nodes[i] = node;
    if ((i + 1) % STEP === 0) yield;
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
