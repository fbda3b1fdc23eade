/** perspective_inspect: one route expanded — how it connects, its metrics, score factors, provenance and affinity. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { affinityOf } from '../affinity.ts';
import { PerspectiveId, perspectiveGraphCall, RouteChoice, RouteSetVersion } from '../context.ts';
import { describeLink, linksBetween, nodeRef, round } from '../graph-view.ts';
import { factorsOf, pickRoute, ROUTE_WEIGHTS } from '../routes.ts';

export const perspectiveInspectVerb = defineVerb({
  name: 'perspective_inspect',
  description: 'Expand one route: the edges to it, metrics, score factors, provenance and likely unstated connections.',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, ...RouteChoice, route_set_version: RouteSetVersion }),
  output: Type.Object({
    route_id: Type.String(),
    route_set_version: Type.Number(),
    target: Type.Object({ doc: Type.Optional(Type.String()), id: Type.String(), kind: Type.String(), label: Type.String(), path: Type.String(), lines: Type.Union([Type.Array(Type.Unknown()), Type.Null()]) }),
    path: Type.Object({ walked: Type.Array(Type.Unknown()), edges: Type.Array(Type.Unknown()) }),
    metrics: Type.Object({ in_degree: Type.Number(), out_degree: Type.Number(), loc: Type.Number(), pagerank: Type.Number() }),
    score: Type.Object({ total: Type.Number(), rank: Type.Number(), of: Type.Number(), factors: Type.Object({}), weights: Type.Object({}) }),
    provenance: Type.Object({ graph_generation: Type.Number(), boosted_by: Type.Array(Type.Unknown()), visited: Type.Boolean(), commits: Type.Optional(Type.Number()), last_commit: Type.Optional(Type.String()), is_test: Type.Optional(Type.Boolean()), exported: Type.Optional(Type.Boolean()), file: Type.String(), language: Type.Union([Type.String(), Type.Null()]) }),
    affinity: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['ground'],
  next: 'perspective_follow',
  handler: async (args, call) => {
    const { engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const { route, index, rs } = pickRoute(engine, p, args);
    const g = engine.graph;
    const node = g.get(route.t)!;
    const stats = engine.nodeStats(node.id);
    const links = linksBetween(g, p.focus, node.id);
    return {
      route_id: `R${rs.version}.${index}`,
      route_set_version: rs.version,
      target: { ...nodeRef(node), ...(node.doc ? { doc: node.doc } : {}) },
      path: {
        walked: [...p.history.slice(-6), p.focus, node.id],
        edges: links.map((l) => ({ ...l, reads: describeLink(l) })),
      },
      metrics: { in_degree: stats.inDegree, out_degree: stats.outDegree, loc: stats.loc, pagerank: round(stats.pagerank) },
      score: { total: route.s, rank: index, of: rs.items.length, factors: factorsOf(route), weights: ROUTE_WEIGHTS },
      provenance: {
        file: node.path,
        language: node.language,
        ...(node.exported !== undefined ? { exported: node.exported } : {}),
        ...(node.isTest ? { is_test: true } : {}),
        ...(node.lastCommitAt ? { last_commit: new Date(node.lastCommitAt * 1000).toISOString() } : {}),
        ...(node.commitCount ? { commits: node.commitCount } : {}),
        graph_generation: rs.generation,
        boosted_by: [...new Set(boosts.entries.filter((e) => e.nodeId === node.id).map((e) => e.source))],
        visited: p.visited.includes(node.id),
      },
      affinity: affinityOf(engine, node.id, 3),
    };
  },
});
