/**
 * How two sets of visited nodes connect in the graph: nodes both visited, direct edges between
 * them, and — where no edge links them — the shortest paths (any relation, either direction, a few
 * hops at most) from one set to the other.
 */
import type { CodeGraphEngine } from '../../graph/api.ts';

/** Longest linking path searched. */
const MAX_HOPS = 4;
/** Most nodes one search may reach before giving up. */
const MAX_REACHED = 20_000;

export interface Connection {
  shared: string[];
  edges: { source: string; relation: string; target: string }[];
  paths: string[][];
}

/** Nodes expanded between two looks at the pace. */
const PACE_EVERY = 256;

/**
 * The connections between node sets `a` and `b` (ids not in the graph are ignored). The search
 * awaits `pace` as it goes, and stops once every node of `b` it could link to is linked (each gives
 * one path) or `maxPaths` are found.
 */
export async function connectionsBetween(engine: CodeGraphEngine, a: readonly string[], b: readonly string[], pace: () => Promise<void>, maxPaths = 3): Promise<Connection> {
  const g = engine.graph;
  const inB = new Set(b);
  const shared = a.filter((id) => inB.has(id));
  const onlyA = a.filter((id) => !inB.has(id) && g.indexOf(id) >= 0).map((id) => g.indexOf(id));
  const onlyB = new Set(b.filter((id) => !shared.includes(id) && g.indexOf(id) >= 0).map((id) => g.indexOf(id)));
  const edges: Connection['edges'] = [];
  for (const i of onlyA) {
    g.forEachOut(i, (t, _w, _r, e) => {
      if (onlyB.has(t)) edges.push({ source: g.node(i)!.id, relation: g.edge(e)!.relation, target: g.node(t)!.id });
    });
    g.forEachIn(i, (s, _w, _r, e) => {
      if (onlyB.has(s)) edges.push({ source: g.node(s)!.id, relation: g.edge(e)!.relation, target: g.node(i)!.id });
    });
  }
  const paths: string[][] = [];
  if (edges.length === 0 && shared.length === 0 && onlyA.length && onlyB.size) {
    // Multi-source BFS from A; the first B nodes reached give the shortest linking paths.
    const parent = new Map<number, number>(onlyA.map((i) => [i, -1]));
    // Each node of B ends one path: past min(maxPaths, |B|) paths nothing more can be found.
    const want = Math.min(maxPaths, onlyB.size);
    let frontier = [...onlyA];
    let expanded = 0;
    for (let hop = 0; hop < MAX_HOPS && frontier.length && paths.length < want && parent.size < MAX_REACHED; hop++) {
      const next: number[] = [];
      const step = (n: number, from: number) => {
        if (parent.has(n)) return;
        parent.set(n, from);
        if (onlyB.has(n)) {
          if (paths.length < maxPaths) {
            const path: string[] = [];
            for (let k = n; k !== -1; k = parent.get(k)!) path.push(g.node(k)!.id);
            paths.push(path.reverse());
          }
          return;
        }
        next.push(n);
      };
      for (const i of frontier) {
        if (paths.length >= want || parent.size >= MAX_REACHED) break;
        if (++expanded % PACE_EVERY === 0) await pace();
        g.forEachOut(i, (t) => step(t, i));
        g.forEachIn(i, (s) => step(s, i));
      }
      frontier = next;
    }
  }
  return { shared, edges, paths };
}
