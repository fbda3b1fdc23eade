/**
 * Communities of a scoped region for refactor plans: an undirected weighted graph of the region's
 * units (files, or symbols when the region is one file) built from dependency links, split with
 * Louvain (graphology-communities-louvain, seeded so plans are stable). Each community's cut is its
 * bridge edges: the targets inside it that outsiders use become the proposed interface.
 */
import { createRequire } from 'node:module';
import type { UndirectedGraph as UndirectedGraphType } from 'graphology';
import { DEPENDENCY_RELATIONS, RELATION_CODE, edgeConfidence, ensureFinal, fileIndexOf, warmFileIndex, type CodeGraph } from '../graph/api.ts';
import type { Deadline } from './deadline.ts';

// graphology and its Louvain are required on the first split, not at start (evaluating them costs
// tens of ms of every process's start-up). The Louvain package's typings declare an ES default export.
const require = createRequire(import.meta.url);
let libs: { UndirectedGraph: typeof UndirectedGraphType; louvain: typeof import('graphology-communities-louvain').default } | undefined;
function graphLibs(): NonNullable<typeof libs> {
  libs ??= {
    UndirectedGraph: (require('graphology') as { UndirectedGraph: typeof UndirectedGraphType }).UndirectedGraph,
    louvain: require('graphology-communities-louvain') as typeof import('graphology-communities-louvain').default,
  };
  return libs;
}
const USE = new Uint8Array(32);
for (const r of DEPENDENCY_RELATIONS) USE[RELATION_CODE[r]] = 1;
const SYMBOL_KINDS = new Set(['function', 'method', 'class', 'interface', 'type']);

export interface Community {
  /** Graph node indices of the units. */
  units: number[];
  internal: number;
  /** Weight of links between this community and the rest of the region. */
  cut: number;
  /** Unit → weight of uses from outside the community (the interface it must expose). */
  usedFromOutside: Map<number, number>;
  /** Unit outside → weight of uses from inside (what it must import). */
  usesOutside: Map<number, number>;
}

export interface RegionSplit {
  level: 'file' | 'symbol';
  unitCount: number;
  modularity: number;
  communities: Community[];
}

/** A small seeded generator (mulberry32), so Louvain gives the same split every time. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits the region (`inScope` paths) into Louvain communities of files, or of symbols for a one-file region. */
export async function splitRegion(g: CodeGraph, inScope: (path: string) => boolean, deadline: Deadline): Promise<RegionSplit> {
  ensureFinal(g);
  const pace = () => deadline.pace();
  await warmFileIndex(g, pace);
  const fileOf = fileIndexOf(g);
  const files = new Set<number>();
  const top = g.nodeCapacity;
  for (let i = 0; i < top; i++) {
    if ((i & 4095) === 4095) await pace();
    const n = g.node(i);
    if (n?.kind === 'file' && n.language !== 'markdown' && n.language !== null && inScope(n.path) && !n.isTest) files.add(i);
  }
  const level = files.size <= 1 ? 'symbol' : 'file';
  // unit of each graph node: its file (file level) or itself (symbol level, symbols of the one file)
  const unitOf = new Int32Array(top).fill(-1);
  for (let i = 0; i < top; i++) {
    if ((i & 4095) === 4095) await pace();
    const n = g.node(i);
    if (!n) continue;
    if (level === 'file') {
      if (fileOf[i] >= 0 && files.has(fileOf[i])) unitOf[i] = fileOf[i];
    } else if (SYMBOL_KINDS.has(n.kind) && files.has(fileOf[i])) unitOf[i] = i;
  }
  await pace();
  const { UndirectedGraph, louvain } = graphLibs(); // ~20 ms the first time: a stretch of its own
  await pace();
  const ug = new UndirectedGraph({ allowSelfLoops: false });
  for (let i = 0; i < g.nodeCapacity; i++) if (unitOf[i] === i) ug.addNode(String(i));
  const directed = new Map<string, number>();
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 1023) === 0) await pace();
    if (!g.edgeAlive[e]) continue;
    const rel = g.edgeRelation[e];
    const containsMember = level === 'symbol' && rel === RELATION_CODE.contains;
    if (!USE[rel] && !containsMember) continue;
    const a = unitOf[g.edgeSource[e]];
    const b = unitOf[g.edgeTarget[e]];
    if (a < 0 || b < 0 || a === b) continue;
    const w = containsMember ? 1 : edgeConfidence(g, e);
    const key = `${a} ${b}`;
    directed.set(key, (directed.get(key) ?? 0) + w);
    const [x, y] = a < b ? [a, b] : [b, a];
    const ek = ug.edge(String(x), String(y));
    if (ek === undefined) ug.addEdge(String(x), String(y), { weight: w });
    else ug.updateEdgeAttribute(ek, 'weight', (old: number | undefined) => (old ?? 0) + w);
  }
  if (ug.order === 0) return { level, unitCount: 0, modularity: 0, communities: [] };
  const detailed = ug.size === 0 ? null : louvain.detailed(ug, { getEdgeWeight: 'weight', rng: seeded(17) });
  const byCommunity = new Map<number, number[]>();
  ug.forEachNode((key) => {
    const c = detailed ? detailed.communities[key] : Number(key);
    const list = byCommunity.get(c) ?? [];
    list.push(Number(key));
    byCommunity.set(c, list);
  });
  const communityOf = new Map<number, number>();
  const communities: Community[] = [];
  for (const units of byCommunity.values()) {
    const idx = communities.length;
    for (const u of units) communityOf.set(u, idx);
    communities.push({ units, internal: 0, cut: 0, usedFromOutside: new Map(), usesOutside: new Map() });
  }
  for (const [key, w] of directed) {
    const [a, b] = key.split(' ').map(Number);
    const ca = communityOf.get(a)!;
    const cb = communityOf.get(b)!;
    if (ca === cb) communities[ca].internal += w;
    else {
      communities[ca].cut += w;
      communities[cb].cut += w;
      communities[cb].usedFromOutside.set(b, (communities[cb].usedFromOutside.get(b) ?? 0) + w);
      communities[ca].usesOutside.set(b, (communities[ca].usesOutside.get(b) ?? 0) + w);
    }
  }
  return { level, unitCount: ug.order, modularity: detailed?.modularity ?? 0, communities };
}
