/**
 * Name → symbol nodes of the graph, built once per graph version in slices that yield to the event
 * loop, so many lookups (a document's mentions, an export's spans) cost one pass over the nodes.
 */
import type { CodeGraph, GraphNode } from '../engine/graph.ts';

const SKIP_KINDS = new Set(['file', 'module', 'section']);
const SLICE = 20_000;

export interface SymbolIndex {
  /** Nodes a written name denotes: `name`, `Outer.name`, `Outer::name`, `Outer#name` (qualified suffix match). */
  lookup(text: string): GraphNode[];
  /** Symbol nodes whose label (last name) is exactly `label`. */
  labelled(label: string): readonly GraphNode[];
}

const cache = new WeakMap<CodeGraph, { version: number; index: Promise<SymbolIndex> }>();

/** The index of a graph at its current version. */
export function symbolIndex(g: CodeGraph): Promise<SymbolIndex> {
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit.index;
  const index = build(g);
  cache.set(g, { version: g.version, index });
  return index;
}

async function build(g: CodeGraph): Promise<SymbolIndex> {
  const byLabel = new Map<string, GraphNode[]>();
  for (let i = 0; i < g.nodeCapacity; i++) {
    if (i > 0 && i % SLICE === 0) await new Promise((r) => setImmediate(r));
    const n = g.node(i);
    if (!n || SKIP_KINDS.has(n.kind)) continue;
    const list = byLabel.get(n.label);
    if (list) list.push(n);
    else byLabel.set(n.label, [n]);
  }
  return {
    labelled: (label) => byLabel.get(label) ?? [],
    lookup(text) {
      const dotted = text.replace(/\(\)$/, '').replace(/::|#/g, '.');
      const last = dotted.slice(dotted.lastIndexOf('.') + 1);
      const nodes = byLabel.get(last) ?? [];
      if (dotted === last) return nodes;
      return nodes.filter((n) => n.qualifiedName === dotted || n.qualifiedName?.endsWith(`.${dotted}`));
    },
  };
}
