/**
 * Facts about a CodeGraph that the algorithms read in their hot loops, as typed arrays computed once
 * per graph version (kind codes, file of each node, undirected components, degree order, labels).
 * Everything here is derived from the public CodeGraph API and recomputed lazily after a change.
 */
import { RELATION_CODE, type CodeGraph, type NodeKind, type Relation } from '../engine/graph.ts';
import { runStepsPaced } from '../engine/steps.ts';

/** Node kinds by code (the order of the `kindCode` array). */
export const KIND_ORDER: readonly NodeKind[] = ['file', 'module', 'class', 'interface', 'function', 'method', 'type', 'section'];
/** Kind name → code. */
export const KIND_CODE: Readonly<Record<NodeKind, number>> = Object.freeze(Object.fromEntries(KIND_ORDER.map((k, i) => [k, i])) as Record<NodeKind, number>);
/** Code stored for an empty node slot. */
export const NO_KIND = 255;

export const CONTAINS = RELATION_CODE.contains;

interface FactCache {
  version: number;
  relationCounts?: Record<Relation, number>;
  kind?: Uint8Array;
  fileOf?: Int32Array;
  component?: Int32Array;
  degreeOrder?: { order: Int32Array; rank: Int32Array };
}

const caches = new WeakMap<CodeGraph, FactCache>();

/** Rebuilds the CSR if the graph changed since its last finalize (traversals read the CSR). */
export function ensureFinal(g: CodeGraph): void {
  if (g.needsFinalize) g.finalize();
}

function cacheOf(g: CodeGraph): FactCache {
  ensureFinal(g);
  let c = caches.get(g);
  if (!c || c.version !== g.version) {
    c = { version: g.version };
    caches.set(g, c);
  }
  return c;
}

/** Kind code per node slot (NO_KIND for empty slots). */
export function kindCodes(g: CodeGraph): Uint8Array {
  const c = cacheOf(g);
  if (!c.kind) {
    const top = g.nodeCapacity;
    const k = new Uint8Array(top).fill(NO_KIND);
    for (let i = 0; i < top; i++) {
      const n = g.node(i);
      if (n) k[i] = KIND_CODE[n.kind];
    }
    c.kind = k;
  }
  return c.kind;
}

/** Live edge counts per relation. */
export function relationCounts(g: CodeGraph): Record<Relation, number> {
  const c = cacheOf(g);
  c.relationCounts ??= g.edgeCountsByRelation();
  return c.relationCounts;
}

/** Index of the file node each node lives in (itself for files; -1 for modules and orphans). */
export function fileIndexOf(g: CodeGraph): Int32Array {
  const c = cacheOf(g);
  if (!c.fileOf) {
    const steps = fileIndexSteps(g);
    for (let r = steps.next(); ; r = steps.next()) if (r.done) return (c.fileOf = r.value);
  }
  return c.fileOf;
}

/**
 * `fileIndexOf` made ahead with a `pace()` every 8,192 nodes (in one piece it held the loop 12-25 ms
 * on the stdlib's graph in a first `scan_all`); a later `fileIndexOf` of the same version finds it.
 */
export async function warmFileIndex(g: CodeGraph, pace: () => Promise<void>): Promise<void> {
  const c = cacheOf(g);
  if (c.fileOf) return;
  // A graph changed meanwhile: `fileIndexOf` makes it for the new version.
  const fileOf = await runStepsPaced(fileIndexSteps(g), pace, () => g.version !== c.version);
  if (fileOf && g.version === c.version) c.fileOf = fileOf;
}

function* fileIndexSteps(g: CodeGraph): Generator<void, Int32Array> {
  // Index loops, not `nodes()` (an [index, node] pair per node).
  const top = g.nodeCapacity;
  const out = new Int32Array(top).fill(-1);
  const byPath = new Map<string, number>();
  for (let i = 0; i < top; i++) {
    const n = g.node(i);
    if (n?.kind === 'file') byPath.set(n.path, i);
    if ((i & 8191) === 8191) yield;
  }
  for (let i = 0; i < top; i++) {
    const n = g.node(i);
    if (n && n.kind !== 'module') out[i] = byPath.get(n.path) ?? -1;
    if ((i & 8191) === 8191) yield;
  }
  return out;
}

/** True when an edge is directory containment (module → file / module): grouping, not dependency. */
export function isStructuralContains(g: CodeGraph, kinds: Uint8Array, edge: number): boolean {
  return g.edgeRelation[edge] === CONTAINS && kinds[g.edgeSource[edge]] === KIND_CODE.module;
}

/**
 * Connected component of every node over all edges taken as undirected, ignoring directory
 * containment (so "same folder" alone does not connect); lets `why` answer "no path" in O(1).
 */
export function components(g: CodeGraph): Int32Array {
  const c = cacheOf(g);
  if (!c.component) {
    const n = g.nodeCapacity;
    const kinds = kindCodes(g);
    const parent = new Int32Array(n);
    for (let i = 0; i < n; i++) parent[i] = i;
    const find = (x: number): number => {
      while (parent[x] !== x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
      }
      return x;
    };
    const top = g.edgeCapacity;
    for (let e = 0; e < top; e++) {
      if (!g.edgeAlive[e] || isStructuralContains(g, kinds, e)) continue;
      const a = find(g.edgeSource[e]);
      const b = find(g.edgeTarget[e]);
      if (a !== b) parent[a < b ? b : a] = a < b ? a : b;
    }
    const comp = new Int32Array(n);
    for (let i = 0; i < n; i++) comp[i] = find(i);
    c.component = comp;
  }
  return c.component;
}

/** Nodes sorted by total degree (ascending), and each node's position in that order. */
export function degreeOrder(g: CodeGraph): { order: Int32Array; rank: Int32Array } {
  const c = cacheOf(g);
  if (!c.degreeOrder) {
    // A counting sort on degree, filled in index order (so ties stay by index): linear, where a
    // comparison sort of a stdlib graph's live nodes held the loop ~25-45 ms.
    const n = g.nodeCapacity;
    const deg = new Int32Array(n).fill(-1);
    let max = 0;
    for (let i = 0; i < n; i++) {
      if (!g.node(i)) continue;
      const d = g.inDegree(i) + g.outDegree(i);
      deg[i] = d;
      if (d > max) max = d;
    }
    const start = new Int32Array(max + 2);
    for (let i = 0; i < n; i++) if (deg[i] >= 0) start[deg[i] + 1]++;
    for (let d = 1; d < start.length; d++) start[d] += start[d - 1];
    const order = new Int32Array(start[max + 1]);
    const rank = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if (deg[i] < 0) continue;
      const at = start[deg[i]]++;
      order[at] = i;
      rank[i] = at;
    }
    c.degreeOrder = { order, rank };
  }
  return c.degreeOrder;
}

/** Contains-descendants of a node (children, grandchildren, …), directory containment included for modules. */
export function descendants(g: CodeGraph, index: number, limit = 100_000): number[] {
  const out: number[] = [];
  const seen = new Set<number>([index]);
  const stack = [index];
  while (stack.length && out.length < limit) {
    const u = stack.pop()!;
    if (u + 1 >= g.outOffsets.length) continue;
    for (let k = g.outOffsets[u]; k < g.outOffsets[u + 1]; k++) {
      const e = g.outEdges[k];
      if (g.edgeRelation[e] !== CONTAINS) continue;
      const v = g.edgeTarget[e];
      if (seen.has(v)) continue;
      seen.add(v);
      out.push(v);
      stack.push(v);
    }
  }
  return out;
}

/** The node containing this one (file for a top-level symbol, class for a method; module for a file), or -1. */
export function containerOf(g: CodeGraph, index: number): number {
  if (index + 1 >= g.inOffsets.length) return -1;
  for (let k = g.inOffsets[index]; k < g.inOffsets[index + 1]; k++) {
    const e = g.inEdges[k];
    if (g.edgeRelation[e] === CONTAINS) return g.edgeSource[e];
  }
  return -1;
}
