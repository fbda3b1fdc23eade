/**
 * The graph snapshot encoder's string tables (graph-snapshot-encode.ts), without the tables: the
 * first pass only counts each table's entries and bytes and records a byte of classes a node; the
 * write replays the same interning order from the nodes and files (the references for the node
 * columns, the entries for the tables' offsets and text). The tables held as arrays of strings were
 * ~1M entries and the signatures' JSON on the python3 prefix, made at the close's peak.
 *
 * A reference is an entry's index in its table, with the top bit for UTF-16. Strings that repeat
 * (labels, paths) are interned through a map; strings unique to their node (ids, qualified names,
 * docs, signatures, extraction keys) are appended as they come: a lookup of each costs a map entry per
 * string and its rehash garbage (a synthetic 270K-node graph: 25 MB less peak heap without them) to
 * save the rare duplicate's bytes. The decoder reads either the same way.
 */
import type { CodeGraph, GraphNode } from './graph.ts';
import { NO_STRING, UTF16_BIT, type SnapshotFacts } from './graph-snapshot.ts';

/** A live node's string classes (set: UTF-16), one byte a node. */
export const C_ID_UTF16 = 1;
export const C_QUALIFIED_UTF16 = 2;
export const C_DOC_UTF16 = 4;
export const C_SIGNATURES_UTF16 = 8;

/** True when `s` needs the UTF-16 table (a code unit over 0xff). */
function wide(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[^\u0000-\u00ff]/.test(s);
}

/** The first pass's count of the two tables: entries, bytes, and the shared strings' references. */
export class StringCounts {
  private ids: Map<string, number> | null = new Map<string, number>();
  latin1 = 0;
  utf16 = 0;
  latin1Bytes = 0;
  utf16Bytes = 0;

  /** A reference to `s`, shared with every other interned copy of it. */
  ref(s: string): number {
    const ids = this.ids!;
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = this.add(s)));
    return id;
  }

  /** A new entry for `s` (for a string that seldom repeats); negative when UTF-16. */
  add(s: string): number {
    if (wide(s)) return (this.utf16Bytes += 2 * s.length), UTF16_BIT | this.utf16++;
    return (this.latin1Bytes += s.length), this.latin1++;
  }

  /** The shared strings' references (until `seal`). */
  get lookup(): Map<string, number> {
    return this.ids!;
  }

  /** Drops the lookup once the write is done with it. */
  seal(): void {
    this.ids = null;
  }
}

/** Interns the strings of node `node` (in the order id, label, path, qualified, doc, signatures); returns its classes. */
export function internNode(strings: StringCounts, node: GraphNode): number {
  let c = strings.add(node.id) < 0 ? C_ID_UTF16 : 0;
  strings.ref(node.label);
  strings.ref(node.path);
  if (node.qualifiedName !== undefined && strings.add(node.qualifiedName) < 0) c |= C_QUALIFIED_UTF16;
  if (node.doc !== undefined && strings.add(node.doc) < 0) c |= C_DOC_UTF16;
  if (node.signatures !== undefined && strings.add(JSON.stringify(node.signatures)) < 0) c |= C_SIGNATURES_UTF16;
  return c;
}

/**
 * Where a replay of the interning is: the next node slot, its row, the next file, and each table's
 * entries so far (a shared string is new, an entry of its own, when its reference is its table's count).
 */
export interface Replay {
  slot: number;
  row: number;
  file: number;
  latin1: number;
  utf16: number;
}

export const replay = (): Replay => ({ slot: 0, row: 0, file: 0, latin1: 0, utf16: 0 });

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

/** Which reference of a node a column holds (numbered in the order of `internNode`). */
export type Ref = 0 | 1 | 2 | 3 | 4 | 5;
export const REF_ID = 0, REF_LABEL = 1, REF_PATH = 2, REF_QUALIFIED = 3, REF_DOC = 4, REF_SIGNATURES = 5;

/** Writes the next `room` live nodes' reference `which` into `out` from `at` (NO_STRING when absent); advances the replay. */
export function putRefs(graph: CodeGraph, classes: Uint8Array, lookup: Map<string, number>, which: Ref, r: Replay, out: Uint32Array, at: number, room: number): void {
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

/** Pushes `s` (an appended entry of class `isWide`) to `batch` when it belongs to the table replayed. */
function entry(r: Replay, batch: string[], utf16: boolean, s: string, isWide: boolean): void {
  if (isWide) r.utf16++;
  else r.latin1++;
  if (isWide === utf16) batch.push(s);
}

/** Pushes shared string `s` to `batch` when this is its first use and it belongs to the table replayed. */
function sharedEntry(r: Replay, batch: string[], utf16: boolean, s: string, ref: number): void {
  const isWide = ref < 0;
  if ((ref & ~UTF16_BIT) !== (isWide ? r.utf16 : r.latin1)) return;
  entry(r, batch, utf16, s, isWide);
}

/**
 * Appends to `batch` the next entries of one table (`utf16`, else latin1) in the order they were
 * interned (node slots, then files), until it holds at least `max` or none are left; each signature's
 * JSON is made again. An empty batch: the table is done.
 */
export function collectEntries(graph: CodeGraph, classes: Uint8Array, fileWide: Uint8Array, files: SnapshotFacts['files'], lookup: Map<string, number>, utf16: boolean, r: Replay, batch: string[], max: number): void {
  const slots = graph.nodeCapacity;
  while (batch.length < max && r.slot < slots) {
    const node = graph.node(r.slot++);
    if (!node) continue;
    const c = classes[r.row++];
    entry(r, batch, utf16, node.id, (c & C_ID_UTF16) !== 0);
    sharedEntry(r, batch, utf16, node.label, lookup.get(node.label)!);
    sharedEntry(r, batch, utf16, node.path, lookup.get(node.path)!);
    if (node.qualifiedName !== undefined) entry(r, batch, utf16, node.qualifiedName, (c & C_QUALIFIED_UTF16) !== 0);
    if (node.doc !== undefined) entry(r, batch, utf16, node.doc, (c & C_DOC_UTF16) !== 0);
    if (node.signatures !== undefined) {
      const isWide = (c & C_SIGNATURES_UTF16) !== 0;
      entry(r, batch, utf16, isWide === utf16 ? JSON.stringify(node.signatures) : '', isWide);
    }
  }
  while (batch.length < max && r.file < files.length) {
    const file = files[r.file];
    sharedEntry(r, batch, utf16, file.path, lookup.get(file.path)!);
    entry(r, batch, utf16, file.extractionKey, fileWide[r.file++] === 1);
  }
}
