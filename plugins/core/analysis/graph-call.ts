/** What every analysis verb does first: open the graph for a call, and resolve node arguments. */
import { ErrorCodes, M1ndError, type CallContext } from '../../../core/index.ts';
import type { CodeGraphEngine } from '../../graph/api.ts';
import type { CodeGraph, GraphNode, NodeKind } from '../../graph/api.ts';
import { didYouMeanPaced, slicePace, yieldToLoop } from '../../graph/api.ts';
import type { GraphService } from '../../graph/api.ts';
import { graphOf, queryGraphOf } from '../shared.ts';
import { noteSessionBaseline } from './baseline.ts';

export interface OpenGraph {
  graph: GraphService;
  engine: CodeGraphEngine;
  g: CodeGraph;
}

/**
 * The graph service, with the session baseline noted, refreshed and non-empty: the federated view
 * when the agent chose it (read verbs), the workspace's with `workspace: true` (verbs that write).
 */
export async function openGraph(call: CallContext, options: { workspace?: boolean; rank?: boolean } = {}): Promise<OpenGraph> {
  // The baseline is the workspace's (drift compares sessions of the served workspace). Its capture
  // is a stretch of its own: the verb's work starts after other requests had their turn.
  if (noteSessionBaseline(graphOf(call))) await yieldToLoop();
  const graph = options.workspace ? graphOf(call) : queryGraphOf(call);
  const engine = await graph.requireGraph();
  const g = engine.graph;
  // PageRank finalizes the CSR and warms the cache every ranking reads; a verb that ranks nothing
  // (`rank: false`) only needs the CSR: PageRank of a 270K-node graph is seconds of CPU.
  if (options.rank !== false) engine.pagerank();
  else if (g.needsFinalize) g.finalize();
  return { graph, engine, g };
}

/** The graph service for a session verb: baseline noted and refreshed, but an empty graph is fine. */
export async function openSessionGraph(call: CallContext): Promise<OpenGraph> {
  const graph = graphOf(call);
  if (noteSessionBaseline(graph)) await yieldToLoop();
  await graph.fresh();
  return { graph, engine: graph.engine, g: graph.engine.graph };
}

/** A node argument resolved to a node: an exact id, a path, `path:line`, a label or a qualified name. */
export interface ResolvedNode {
  node: GraphNode;
  index: number;
  /** Set when the argument was not an exact id: how it was matched. */
  resolvedFrom?: { text: string; via: string; alternatives?: string[] };
}

/**
 * Resolves a node argument, or throws GRAPH_NODE_NOT_FOUND naming close matches. An exact id answers
 * at once; anything else waits for the seek index (read or built in background slices, never in one
 * piece by this call) before matching names.
 */
export async function resolveNodeArg(engine: CodeGraphEngine, text: string, param: string, kinds?: readonly NodeKind[], attempt = 0): Promise<ResolvedNode> {
  const exact = engine.graph.get(text);
  if (exact && (!kinds || kinds.includes(exact.kind))) return { node: exact, index: engine.graph.indexOf(exact.id) };
  await engine.prepareSeek();
  const g = engine.graph;
  // Paced: a name that is no node's (a typo) scans every label, then asks seek (16–34 ms each on the stdlib).
  const matches = await engine.findNodesPaced(text, { limit: 3, kinds });
  // A re-ingest that replaced the graph between the slices: look again on the new one (twice at most).
  if (engine.graph !== g && attempt < 2) return resolveNodeArg(engine, text, param, kinds, attempt + 1);
  const best = matches[0];
  if (best && best.via !== 'seek') {
    const alternatives = matches.slice(1).map((m) => m.node.id);
    return { node: best.node, index: g.indexOf(best.node.id), resolvedFrom: { text, via: best.via, ...(alternatives.length ? { alternatives } : {}) } };
  }
  const lexical = (best || !kinds ? matches : await engine.findNodesPaced(text, { limit: 3 })).map((m) => m.node.id);
  const near = await didYouMeanPaced(g, text, lexical, 3, slicePace(8), kinds);
  throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `${param} "${text}" matches no node${kinds ? ` of kind ${kinds.join('/')}` : ''}`, {
    hint: near.length
      ? `did you mean ${near.map((x) => `"${x}"`).join(', ')}? Call again with ${param}: "${near[0]}" (an id, \`path:line\` or \`path#Name\`)`
      : `find ids with seek or activate first, then pass one as ${param}`,
    data: { suggestions: near },
  });
}

/** Resolves a list of node arguments (as resolveNodeArg), each node once, in the order first given. */
export async function resolveNodeArgs(engine: CodeGraphEngine, texts: readonly string[], param: string): Promise<ResolvedNode[]> {
  const resolved = new Map<number, ResolvedNode>();
  for (const text of texts) {
    const r = await resolveNodeArg(engine, text, param);
    resolved.set(r.index, r);
  }
  return [...resolved.values()];
}

/** Rounds a score for output (3 decimals). */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
