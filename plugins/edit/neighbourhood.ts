/**
 * A file's (or one symbol's) graph neighbourhood as an editor needs it: who calls it, what it
 * calls, who imports the file, and which tests cover it — each neighbour with the edge that links
 * it, so connected files can be ranked by edge strength.
 */
import type { GraphService } from '../graph/api.ts';
import type { CodeGraph, GraphEdge, GraphNode, Relation } from '../graph/api.ts';
import { isConstructorOf } from '../graph/api.ts';

/** A node linked to the focus, with the edge that links it. */
export interface Neighbour {
  id: string;
  kind: string;
  label: string;
  path: string;
  lines: [number, number];
  relation: Relation;
  /** The focus node the edge touches (one of the file's symbols, or the file). */
  via: string;
  weight: number;
  hops: number;
}

/** The four groups an editor looks at (each capped at MAX_PER_GROUP, strongest first). */
export interface Neighbourhood {
  callers: Neighbour[];
  callees: Neighbour[];
  importers: Neighbour[];
  tests: Neighbour[];
  /** Distinct neighbours per group before the cap: a list shorter than its total was cut. */
  totals: { callers: number; callees: number; importers: number; tests: number };
}

/** Relations that make the source depend on the target (a change to the target concerns the source). */
export const DEPENDENCY_RELATIONS: readonly Relation[] = ['calls', 'references', 'inherits', 'implements', 'dispatches'];
const MAX_PER_GROUP = 40;

function neighbour(n: GraphNode, e: GraphEdge, via: string, hops: number): Neighbour {
  return { id: n.id, kind: n.kind, label: n.qualifiedName ?? n.label, path: n.path, lines: [n.startLine, n.endLine], relation: e.relation, via, weight: e.weight, hops };
}

/** Keeps the strongest link per neighbour id, nearest (then strongest) first, uncapped. */
function strongest(list: Neighbour[]): Neighbour[] {
  const best = new Map<string, Neighbour>();
  for (const n of list) {
    const had = best.get(n.id);
    if (!had || n.hops < had.hops || (n.hops === had.hops && n.weight > had.weight)) best.set(n.id, n);
  }
  return [...best.values()].sort((a, b) => a.hops - b.hops || b.weight - a.weight || a.id.localeCompare(b.id));
}

/**
 * The neighbourhood of `focus` (node ids inside one file): callers and callees walked `radius` hops
 * over dependency edges, importers of the file, and tests linked to the file or its focus symbols.
 * Nodes inside the file itself are not neighbours.
 */
export function neighbourhoodOf(graph: GraphService, filePath: string, focus: readonly string[], radius: number, includeTests: boolean): Neighbourhood {
  const g = graph.engine.graph;
  const outside = (n: GraphNode | null): n is GraphNode => !!n && n.path !== filePath && n.kind !== 'module';
  const walk = (dir: 'in' | 'out'): Neighbour[] => {
    const found: Neighbour[] = [];
    const seen = new Set<string>(focus);
    let frontier = focus.map((id) => ({ id, via: id }));
    for (let hop = 1; hop <= radius && frontier.length > 0; hop++) {
      const next: { id: string; via: string }[] = [];
      for (const { id, via } of frontier) {
        const edges = dir === 'in' ? incomingWithInstantiations(g, id) : g.outgoing(id);
        for (const e of edges) {
          if (!DEPENDENCY_RELATIONS.includes(e.relation)) continue;
          const other = g.get(dir === 'in' ? e.source : e.target);
          if (!outside(other) || isTestNode(graph, other)) continue;
          found.push(neighbour(other, e, via, hop));
          if (!seen.has(other.id)) {
            seen.add(other.id);
            next.push({ id: other.id, via });
          }
        }
      }
      frontier = next;
    }
    return strongest(found);
  };
  const fileId = `file:${filePath}`;
  const importers = strongest(
    g
      .incoming(fileId, 'imports')
      .map((e) => [g.get(e.source), e] as const)
      .filter(([n]) => outside(n))
      .map(([n, e]) => neighbour(n!, e, fileId, 1)),
  );
  const tests: Neighbour[] = [];
  if (includeTests) {
    for (const id of new Set([fileId, ...focus])) {
      for (const e of incomingWithInstantiations(g, id)) {
        const src = g.get(e.source);
        if (!outside(src)) continue;
        if (e.relation === 'tests' || (DEPENDENCY_RELATIONS.includes(e.relation) && isTestNode(graph, src))) tests.push(neighbour(src, e, id, 1));
      }
    }
  }
  const groups = { callers: walk('in'), callees: walk('out'), importers, tests: strongest(tests) };
  return {
    callers: groups.callers.slice(0, MAX_PER_GROUP),
    callees: groups.callees.slice(0, MAX_PER_GROUP),
    importers: groups.importers.slice(0, MAX_PER_GROUP),
    tests: groups.tests.slice(0, MAX_PER_GROUP),
    totals: { callers: groups.callers.length, callees: groups.callees.length, importers: groups.importers.length, tests: groups.tests.length },
  };
}

/** True for nodes living in a file the graph marks as a test file. */
export function isTestNode(graph: GraphService, n: GraphNode): boolean {
  return n.kind === 'file' ? n.isTest === true : graph.engine.graph.get(`file:${n.path}`)?.isTest === true;
}

/**
 * The edges into a node, and when the node is a constructor, the `calls` of its class too: the graph
 * may link `Cls(…)` to the class, and calling the class runs its constructor (a Java constructor is
 * named as its class).
 */
export function incomingWithInstantiations(g: CodeGraph, id: string): GraphEdge[] {
  const own = g.incoming(id);
  const n = g.get(id);
  if (!n || n.kind !== 'method') return own;
  const cls = g
    .incoming(id, 'contains')
    .map((e) => g.get(e.source))
    .find((c) => c?.kind === 'class');
  if (!cls || !isConstructorOf(n, cls)) return own;
  const instantiations = g.incoming(cls.id, 'calls');
  return instantiations.length ? [...own, ...instantiations] : own;
}
