/** metrics: LOC, degrees and PageRank per file, function or other node kind. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { nodeLoc, pathScope, RELATION_CODE, slicePace } from '../../graph/api.ts';
import { graphOf, NodeTypes } from '../shared.ts';
import { containedRank } from './file-rank.ts';

const SORTS = ['loc_desc', 'loc_asc', 'pagerank_desc', 'degree_desc', 'in_degree_desc', 'out_degree_desc', 'name'] as const;

export const metricsVerb = defineVerb({
  name: 'metrics',
  description: 'Size and structure per node: LOC, in/out degree (code edges, contains included; git co-change edges not), PageRank (a file\'s holds its symbols\'); filter by kind and path, sort by any.',
  input: Type.Object({
    agent_id: AgentId,
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    node_types: Type.Array(NodeTypes.items, { default: ['file'] }),
    top_k: Type.Integer({ minimum: 1, maximum: 5000, default: 50 }),
    sort: StringEnum(SORTS, { default: 'loc_desc' }),
  }),
  output: Type.Object({
    sort: Type.String(),
    node_types: Type.Array(Type.String()),
    total_nodes: Type.Integer(),
    total_loc: Type.Integer(),
    nodes: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), label: Type.String(), path: Type.String(), loc: Type.Integer(), in_degree: Type.Integer(), out_degree: Type.Integer(), pagerank: Type.Number() })),
    truncated: Type.Boolean(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review', 'plan'],
  handler: async (args, call) => {
    const engine = await graphOf(call).requireGraph();
    const g = engine.graph;
    const pr = engine.pagerank().scores;
    const kinds = new Set(args.node_types.length ? args.node_types : ['file']);
    const scope = pathScope(engine, args.scope);
    const rows: { id: string; kind: string; label: string; path: string; loc: number; in_degree: number; out_degree: number; pagerank: number }[] = [];
    let totalLoc = 0;
    // Degrees are structure: co_changes edges (files committed together in git) are history, not code.
    const coChanges = RELATION_CODE.co_changes;
    const pace = slicePace(8);
    for (const [i, n] of g.nodes()) {
      await pace();
      if (!kinds.has(n.kind)) continue;
      if (!scope.has(n.path)) continue;
      const loc = nodeLoc(g, i);
      totalLoc += loc;
      let inDegree = 0;
      let outDegree = 0;
      g.forEachIn(i, (_s, _w, rel) => void (rel !== coChanges && inDegree++));
      g.forEachOut(i, (_t, _w, rel) => void (rel !== coChanges && outDegree++));
      rows.push({ id: n.id, kind: n.kind, label: n.label, path: n.path, loc, in_degree: inDegree, out_degree: outDegree, pagerank: Number((n.kind === 'file' ? containedRank(g, pr, i) : (pr[i] ?? 0)).toFixed(6)) });
    }
    const by: Record<(typeof SORTS)[number], (a: (typeof rows)[0], b: (typeof rows)[0]) => number> = {
      loc_desc: (a, b) => b.loc - a.loc,
      loc_asc: (a, b) => a.loc - b.loc,
      pagerank_desc: (a, b) => b.pagerank - a.pagerank,
      degree_desc: (a, b) => b.in_degree + b.out_degree - (a.in_degree + a.out_degree),
      in_degree_desc: (a, b) => b.in_degree - a.in_degree,
      out_degree_desc: (a, b) => b.out_degree - a.out_degree,
      name: (a, b) => a.label.localeCompare(b.label),
    };
    rows.sort((a, b) => by[args.sort](a, b) || a.id.localeCompare(b.id));
    return {
      sort: args.sort,
      node_types: [...kinds],
      total_nodes: rows.length,
      total_loc: totalLoc,
      nodes: rows.slice(0, args.top_k),
      truncated: rows.length > args.top_k,
    };
  },
});
