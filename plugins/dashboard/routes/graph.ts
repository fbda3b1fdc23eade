/** GET /api/graph/search?q=&limit= and GET /api/graph/neighbourhood?node=&limit=: nodes of the code graph and the edges around one. */
import { ErrorCodes, httpError, type HttpRouteRequest, type HttpRouteResponse } from '../../../core/index.ts';
import { RELATIONS, type CodeGraph, type GraphNode } from '../../graph/api.ts';
import { intParam, json, textParam, type DashboardContext } from '../context.ts';

type Role = 'center' | 'caller' | 'callee' | 'importer' | 'imported' | 'test' | 'other';

/** A node as the contract shows it. */
export function nodeView(n: GraphNode) {
  return { id: n.id, label: n.label, kind: n.kind, file: n.kind === 'module' ? null : n.path, line: n.startLine > 0 ? n.startLine : null };
}

export async function search(ctx: DashboardContext, req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const q = textParam(req.query, 'q', 300);
  const limit = intParam(req.query, 'limit', 20, 1, 100);
  if (!q) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'q is empty', 'send ?q=<a name, path or words>');
  const engine = await ctx.graph.requireGraph();
  await engine.prepareSeek();
  const matches = ctx.graph.run(() => engine.findNodes(q, { limit }));
  return json({ nodes: matches.map((m) => ({ ...nodeView(m.node), via: m.via })) });
}

export async function neighbourhood(ctx: DashboardContext, req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const text = textParam(req.query, 'node', 1000);
  const limit = intParam(req.query, 'limit', 40, 1, 200);
  if (!text) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'node is empty', 'send ?node=<a node id from /api/graph/search>');
  const engine = await ctx.graph.requireGraph();
  const center = ctx.graph.node(text);
  const g = engine.graph;
  const roles = new Map<string, Role>([[center.id, 'center']]);
  const edges: { source: string; target: string; relation: string }[] = [];
  // Direct neighbours by relation, the most telling first; heavier edges first within one relation.
  const candidates: { id: string; role: Role; edge: { source: string; target: string; relation: string }; weight: number; rank: number }[] = [];
  for (const e of g.outgoing(center.id)) candidates.push({ id: e.target, role: roleOf(g, e.relation, 'out', e.target), edge: e, weight: e.weight, rank: rankOf(e.relation) });
  for (const e of g.incoming(center.id)) candidates.push({ id: e.source, role: roleOf(g, e.relation, 'in', e.source), edge: e, weight: e.weight, rank: rankOf(e.relation) });
  candidates.sort((a, b) => a.rank - b.rank || b.weight - a.weight || a.id.localeCompare(b.id));
  let truncated = false;
  for (const c of candidates) {
    if (!roles.has(c.id)) {
      if (roles.size > limit) {
        truncated = true;
        continue;
      }
      roles.set(c.id, c.role);
    }
    edges.push({ source: c.edge.source, target: c.edge.target, relation: c.edge.relation });
  }
  const nodes = [...roles].map(([id, role]) => ({ ...nodeView(g.get(id)!), role }));
  return json({ center: { ...nodeView(center), role: 'center' }, nodes, edges, truncated });
}

const ORDER: readonly string[] = ['calls', 'tests', 'imports', 'inherits', 'implements', 'references', 'dispatches', 'contains', 'documents', 'co_changes'];

function rankOf(relation: string): number {
  const i = ORDER.indexOf(relation);
  return i === -1 ? RELATIONS.length : i;
}

function roleOf(g: CodeGraph, relation: string, dir: 'in' | 'out', other: string): Role {
  if (relation === 'tests') return dir === 'in' ? 'test' : 'other';
  if (relation === 'calls' || relation === 'dispatches') return dir === 'in' ? 'caller' : 'callee';
  if (relation === 'imports') return dir === 'in' ? 'importer' : 'imported';
  if (g.get(other)?.isTest) return 'test';
  return 'other';
}
