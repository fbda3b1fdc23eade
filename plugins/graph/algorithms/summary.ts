/**
 * Structural digests of a graph, and their difference (the `drift` kernel). A digest keeps, per
 * file, its line count, its symbols with their line ranges and an order-independent hash of the
 * edges leaving its nodes; plus edge counts and weight totals per relation. Two digests diff into
 * files added / removed / changed, and per changed file the symbols added, removed and moved.
 */
import { RELATIONS, type CodeGraph, type GraphNode, type Relation } from '../engine/graph.ts';
import { runSteps, runStepsPaced } from '../engine/steps.ts';
import { ensureFinal } from './graph-facts.ts';

export interface FileDigest {
  loc: number;
  /** Symbol ids, sorted. */
  ids: string[];
  /** [start, end] per id (2 entries each). */
  lines: Int32Array;
  /** XOR of edge hashes (relation + target id) leaving the file's nodes; null when unknown. */
  edgeHash: number | null;
  edgeCount: number | null;
}

export interface GraphDigest {
  at: number;
  generation: number;
  nodes: number;
  edges: number;
  byRelation: Record<Relation, { count: number; weight: number }>;
  files: Map<string, FileDigest>;
}

function strHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** What a digest reads of a graph: its node slots and edge arrays (a CodeGraph, or a GraphCapture of one). */
export interface DigestSource {
  readonly nodeCapacity: number;
  readonly nodeCount: number;
  readonly edgeCapacity: number;
  readonly edgeCount: number;
  node(index: number): GraphNode | null;
  readonly edgeSource: Uint32Array;
  readonly edgeTarget: Uint32Array;
  readonly edgeRelation: Uint8Array;
  readonly edgeWeight: Float32Array;
  readonly edgeAlive: Uint8Array;
}

/** A graph's digest inputs copied at one moment: node objects are replaced, never changed, so their references are kept. */
export type GraphCapture = DigestSource & { at: number };

/**
 * Copies what a digest of the graph reads (the node slot references and the edge arrays: ~10 ms and
 * ~14 bytes an edge at 800K edges), so the digest can be computed later, or never, and still describe
 * the graph as it was now.
 */
export function captureGraph(g: CodeGraph): GraphCapture {
  ensureFinal(g);
  const slots = new Array<GraphNode | null>(g.nodeCapacity);
  for (let i = 0; i < slots.length; i++) slots[i] = g.node(i);
  const m = g.edgeCapacity;
  return {
    at: Date.now(),
    nodeCapacity: slots.length,
    nodeCount: g.nodeCount,
    edgeCapacity: m,
    edgeCount: g.edgeCount,
    node: (i) => slots[i] ?? null,
    edgeSource: g.edgeSource.slice(0, m),
    edgeTarget: g.edgeTarget.slice(0, m),
    edgeRelation: g.edgeRelation.slice(0, m),
    edgeWeight: g.edgeWeight.slice(0, m),
    edgeAlive: g.edgeAlive.slice(0, m),
  };
}

/** Digest of the graph as it is now (or as it was when captured). O(nodes + edges). */
export function digestGraph(source: CodeGraph | GraphCapture, generation: number): GraphDigest {
  if (!('at' in source)) ensureFinal(source);
  return runSteps(digestSteps(source, generation));
}

/**
 * `digestGraph` between `pace()`s (a stdlib-sized graph's digest is ~100-300 ms in one piece; a
 * 270K-node one ~1.5 s). A live graph is captured first (~10 ms), so the digest describes one moment
 * however the graph changes meanwhile.
 */
export async function digestGraphPaced(source: CodeGraph | GraphCapture, generation: number, pace: () => Promise<void>): Promise<GraphDigest> {
  return (await runStepsPaced(digestSteps('at' in source ? source : captureGraph(source), generation), pace))!;
}

/** Nodes, edges or files between two steps of a digest. */
const DIGEST_PER_STEP = 8_192;

function* digestSteps(source: CodeGraph | GraphCapture, generation: number): Generator<void, GraphDigest> {
  const at = 'at' in source ? source.at : Date.now();
  const g: DigestSource = source;
  const idHash = new Int32Array(g.nodeCapacity);
  const byPath = new Map<string, { loc: number; syms: [string, number, number][]; edgeHash: number; edgeCount: number }>();
  for (let i = 0; i < g.nodeCapacity; i++) {
    if ((i & (DIGEST_PER_STEP - 1)) === DIGEST_PER_STEP - 1) yield;
    const n = g.node(i);
    if (!n) continue;
    idHash[i] = strHash(n.id);
    if (n.kind === 'module') continue;
    let f = byPath.get(n.path);
    if (!f) byPath.set(n.path, (f = { loc: 0, syms: [], edgeHash: 0, edgeCount: 0 }));
    if (n.kind === 'file') f.loc = n.endLine;
    else f.syms.push([n.id, n.startLine, n.endLine]);
  }
  const byRelation = Object.fromEntries(RELATIONS.map((r) => [r, { count: 0, weight: 0 }])) as GraphDigest['byRelation'];
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & (DIGEST_PER_STEP - 1)) === DIGEST_PER_STEP - 1) yield;
    if (!g.edgeAlive[e]) continue;
    const rel = RELATIONS[g.edgeRelation[e]];
    byRelation[rel].count++;
    byRelation[rel].weight += g.edgeWeight[e];
    const src = g.node(g.edgeSource[e]);
    if (!src || src.kind === 'module') continue;
    const f = byPath.get(src.path);
    if (!f) continue;
    f.edgeHash ^= Math.imul(idHash[g.edgeTarget[e]] ^ (g.edgeRelation[e] + 1) * 0x9e3779b1, 0x85ebca6b) ^ idHash[g.edgeSource[e]];
    f.edgeCount++;
  }
  const files = new Map<string, FileDigest>();
  let made = 0;
  for (const [path, f] of byPath) {
    if (++made % 256 === 0) yield; // each file's symbols sorted by id
    files.set(path, fileDigest(f.loc, f.syms, f.edgeHash, f.edgeCount));
  }
  return { at, generation, nodes: g.nodeCount, edges: g.edgeCount, byRelation, files };
}

/** A file digest from its parts (used for digests rebuilt from stored extractions). */
export function fileDigest(loc: number, syms: [id: string, start: number, end: number][], edgeHash: number | null, edgeCount: number | null): FileDigest {
  syms.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const lines = new Int32Array(syms.length * 2);
  syms.forEach((s, i) => {
    lines[2 * i] = s[1];
    lines[2 * i + 1] = s[2];
  });
  return { loc, ids: syms.map((s) => s[0]), lines, edgeHash, edgeCount };
}

export interface FileDrift {
  path: string;
  loc: [before: number, after: number];
  symbolsAdded: string[];
  symbolsRemoved: string[];
  /** Symbols whose line range changed. */
  symbolsMoved: number;
  /** Edge count before → after (null when the baseline does not know it). */
  edges: [number, number] | null;
}

export interface StructureDrift {
  filesAdded: string[];
  filesRemoved: string[];
  filesChanged: FileDrift[];
  unchanged: number;
}

/** What changed from digest `a` to digest `b` (files only; restricted to `paths` when given). */
export function diffDigests(a: Map<string, FileDigest>, b: Map<string, FileDigest>, paths?: Iterable<string>): StructureDrift {
  const out: StructureDrift = { filesAdded: [], filesRemoved: [], filesChanged: [], unchanged: 0 };
  const all = paths ? new Set(paths) : new Set([...a.keys(), ...b.keys()]);
  for (const path of [...all].sort()) {
    const x = a.get(path);
    const y = b.get(path);
    if (!x && !y) continue;
    if (!x) {
      out.filesAdded.push(path);
      continue;
    }
    if (!y) {
      out.filesRemoved.push(path);
      continue;
    }
    const d = diffFile(path, x, y);
    if (d) out.filesChanged.push(d);
    else out.unchanged++;
  }
  return out;
}

/** The drift of one file between two digests, or null when nothing structural changed. */
export function diffFile(path: string, x: FileDigest, y: FileDigest): FileDrift | null {
  const added: string[] = [];
  const removed: string[] = [];
  let moved = 0;
  let i = 0;
  let k = 0;
  while (i < x.ids.length || k < y.ids.length) {
    const a = x.ids[i];
    const b = y.ids[k];
    if (k >= y.ids.length || (i < x.ids.length && a < b)) {
      removed.push(a);
      i++;
    } else if (i >= x.ids.length || b < a) {
      added.push(b);
      k++;
    } else {
      if (x.lines[2 * i] !== y.lines[2 * k] || x.lines[2 * i + 1] !== y.lines[2 * k + 1]) moved++;
      i++;
      k++;
    }
  }
  const edgesKnown = x.edgeHash !== null && y.edgeHash !== null;
  const edgesChanged = edgesKnown && (x.edgeHash !== y.edgeHash || x.edgeCount !== y.edgeCount);
  if (!added.length && !removed.length && !moved && x.loc === y.loc && !edgesChanged) return null;
  return {
    path,
    loc: [x.loc, y.loc],
    symbolsAdded: added,
    symbolsRemoved: removed,
    symbolsMoved: moved,
    edges: edgesKnown ? [x.edgeCount!, y.edgeCount!] : null,
  };
}
