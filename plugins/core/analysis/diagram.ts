/** diagram: a Mermaid or DOT diagram around a node or query, of a path scope, or of the most central nodes. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { RELATIONS, type CodeGraph, type GraphNode } from '../../graph/api.ts';
import { KIND_CODE, kindCodes } from '../../graph/api.ts';
import { pathScope, propagate } from '../../graph/api.ts';
import { confidenceFilter, edgeConfidence } from '../../graph/api.ts';
import { STRUCTURAL_PROFILE } from '../../graph/api.ts';
import { NodeTypes } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3, type ResolvedNode } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS } from './query-activation.ts';

const DOT_RANKDIR = { TD: 'TB', LR: 'LR', BT: 'BT', RL: 'RL' } as const;

export const diagramVerb = defineVerb({
  name: 'diagram',
  description: 'A Mermaid or DOT diagram around a node or query, of a path scope, or of the most central nodes.',
  input: Type.Object({
    agent_id: AgentId,
    center: Type.Optional(Type.String({ description: 'Node id, path or query' })),
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    format: StringEnum(['mermaid', 'dot'] as const, { default: 'mermaid' }),
    max_nodes: Type.Integer({ minimum: 2, maximum: 200, default: 30 }),
    depth: Type.Integer({ minimum: 1, maximum: 6, default: 2 }),
    node_types: Type.Optional(NodeTypes),
    show_relations: Type.Boolean({ default: true, description: 'Label edges' }),
    show_pagerank: Type.Boolean({ default: false, description: 'Show centrality in labels' }),
    direction: StringEnum(['TD', 'LR', 'BT', 'RL'] as const, { default: 'TD' }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'Skip edges resolved below this confidence' }),
  }),
  output: Type.Object({
    diagram: Type.String(),
    nodes: Type.Array(Type.Object({})),
    edge_count: Type.Number(),
    elapsed_ms: Type.Number(),
    resolved_from: Type.Optional(Type.Object({ text: Type.String(), via: Type.String(), alternatives: Type.Optional(Type.Array(Type.Unknown())) })),
    center: Type.Optional(Type.String()),
    format: Type.String(),
  }),
  effect: 'read',
  stages: ['orient', 'handoff'],
  guide: [
    'With `center`: the node (an id, path or name; free text goes through activation and centres on the best match) and its strongest neighbours within `depth` hops, by weighted propagation in both directions. With only `scope`: the most central nodes under that path. With neither: the most central nodes of the graph.',
    'Directory containment is drawn only when the centre is a directory. Every edge between the chosen nodes is drawn once per relation; a label shows the resolution confidence when below 1 (`calls 0.4`), and `min_confidence` leaves weaker edges out of the walk and the drawing. node_types filters the nodes drawn (the centre always stays).',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    const kinds = kindCodes(g);
    const pr = engine.pagerank().scores;
    const scope = pathScope(engine, args.scope);
    const inScope = (n: GraphNode) => scope.has(n.path);
    const types = args.node_types?.length ? new Set<string>(args.node_types) : null;
    let center: ResolvedNode | undefined;
    let chosen: number[];
    if (args.center) {
      try {
        center = await resolveNodeArg(engine, args.center, 'center');
      } catch (error) {
        if (!(error instanceof M1ndError) || error.code !== ErrorCodes.GRAPH_NODE_NOT_FOUND) throw error;
        await activationReady(engine);
        const best = (await activateQuery(graph, engine, { query: args.center, agentId: call.agentId, dimensions: DIMENSIONS, topK: 1, xlr: true, ghostEdges: true })).results[0];
        if (!best) throw error;
        center = { node: best.node, index: best.index, resolvedFrom: { text: args.center, via: 'activate' } };
      }
      const p = propagate(g, [{ index: center.index, signal: 1 }], {
        direction: 'both',
        relations: STRUCTURAL_PROFILE,
        decay: 0.8,
        threshold: 0.001,
        maxDepth: args.depth,
        maxVisits: 5000,
        fanout: 32,
        moduleContains: kinds[center.index] === KIND_CODE.module ? 1 : 0,
        edgeFactor: confidenceFilter(g, args.min_confidence),
      });
      chosen = [];
      for (let k = 0; k < p.count && chosen.length < args.max_nodes; k++) {
        const v = p.order[k];
        const n = g.node(v)!;
        if (v === center.index || ((!types || types.has(n.kind)) && inScope(n))) chosen.push(v);
      }
    } else {
      // The max_nodes best by PageRank (ties by index), kept in order as the nodes go by: a sort of
      // every node held the loop ~40 ms on the stdlib's graph.
      chosen = [];
      const k = args.max_nodes;
      for (let i = 0; i < g.nodeCapacity; i++) {
        const n = g.node(i);
        if (!n || (types ? !types.has(n.kind) : n.kind === 'module') || !inScope(n)) continue;
        const v = pr[i] ?? 0;
        if (chosen.length === k && v <= (pr[chosen[k - 1]] ?? 0)) continue;
        let at = chosen.length;
        while (at > 0 && (pr[chosen[at - 1]] ?? 0) < v) at--;
        chosen.splice(at, 0, i);
        if (chosen.length > k) chosen.pop();
      }
    }
    if (chosen.length === 0) {
      throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `nothing to draw${scope.prefix ? ` under "${scope.prefix}"` : ''}${types ? ` of kinds ${[...types].join(', ')}` : ''}`, { hint: 'widen scope or node_types, or pass a center' });
    }
    const drawModules = center !== undefined && kinds[center.index] === KIND_CODE.module;
    const edges = edgesAmong(g, chosen, drawModules, args.min_confidence);
    const key = new Map(chosen.map((v, i) => [v, `n${i}`]));
    const label = (v: number) => {
      const n = g.node(v)!;
      return `${n.label} (${n.kind})${args.show_pagerank ? ` pr ${round3(pr[v] ?? 0)}` : ''}`;
    };
    const text =
      args.format === 'mermaid'
        ? [
            `flowchart ${args.direction}`,
            ...chosen.map((v) => `  ${key.get(v)}["${mermaidText(label(v))}"]`),
            ...edges.map((e) => `  ${key.get(e.source)} -->${args.show_relations ? `|${edgeLabel(e)}|` : ''} ${key.get(e.target)}`),
            ...(center ? [`  style ${key.get(center.index)} stroke-width:3px`] : []),
          ].join('\n')
        : [
            'digraph m1nd {',
            `  rankdir=${DOT_RANKDIR[args.direction]};`,
            '  node [shape=box];',
            ...chosen.map((v) => `  ${key.get(v)} [label="${dotText(label(v))}"${center && v === center.index ? ', penwidth=3' : ''}];`),
            ...edges.map((e) => `  ${key.get(e.source)} -> ${key.get(e.target)}${args.show_relations ? ` [label="${edgeLabel(e)}"]` : ''};`),
            '}',
          ].join('\n');
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: chosen.map((v) => g.node(v)!), query: { subject: center?.node.id ?? scope.prefix ?? 'graph', results: chosen.length, elapsedMs } });
    return {
      format: args.format,
      ...(center ? { center: center.node.id } : {}),
      ...(center?.resolvedFrom ? { resolved_from: center.resolvedFrom } : {}),
      diagram: text,
      nodes: chosen.map((v) => ({ key: key.get(v), id: g.node(v)!.id })),
      edge_count: edges.length,
      elapsed_ms: round3(elapsedMs),
    };
  },
});

interface DrawnEdge {
  source: number;
  target: number;
  relation: string;
  confidence: number;
}

/** Edges between chosen nodes at or above a confidence, one per (source, target, relation). */
function edgesAmong(g: CodeGraph, chosen: number[], drawModules: boolean, minConfidence: number): DrawnEdge[] {
  const set = new Set(chosen);
  const kinds = kindCodes(g);
  const seen = new Set<string>();
  const out: DrawnEdge[] = [];
  for (const u of chosen) {
    g.forEachOut(u, (t, _w, rel, e) => {
      if (!set.has(t) || t === u) return;
      const relation = RELATIONS[rel];
      if (relation === 'contains' && kinds[u] === KIND_CODE.module && !drawModules) return;
      const confidence = edgeConfidence(g, e);
      if (confidence < minConfidence) return;
      const k = `${u}>${t}>${rel}`;
      if (seen.has(k)) return;
      seen.add(k);
      out.push({ source: u, target: t, relation, confidence });
    });
  }
  return out;
}

/** An edge's label: its relation, and its confidence when below 1. */
function edgeLabel(e: DrawnEdge): string {
  return e.confidence < 1 ? `${e.relation} ${e.confidence}` : e.relation;
}

function mermaidText(s: string): string {
  return s.replace(/"/g, '#quot;').replace(/[<>]/g, (c) => (c === '<' ? '#lt;' : '#gt;'));
}

function dotText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}
