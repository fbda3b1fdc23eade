/** perspective_start: opens an agent-owned navigation perspective on a node found by query or anchor. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { GraphNode } from '../../graph/api.ts';
import { perspectiveGraphCall, RoutePageOut } from '../context.ts';
import { nodeRef, round } from '../graph-view.ts';
import { ensureRoutes, ROUTE_WEIGHTS, routePage } from '../routes.ts';
import { Lens, newPerspective } from '../state.ts';
import { NodeRefSchema } from '../../graph/api.ts';

export const perspectiveStartVerb = defineVerb({
  name: 'perspective_start',
  description: 'Open a navigation perspective (yours, kept across restarts) on the node best matching a query, or on anchor_node; returns ranked routes.',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1, description: 'What you are looking for; also ranks routes' }),
    anchor_node: Type.Optional(Type.String({ description: 'Start on this node (id, path or name) instead of the best match' })),
    lens: Type.Optional(Lens),
  }),
  output: Type.Object({
    note: Type.Optional(Type.String()),
    persisted: Type.Boolean(),
    ...RoutePageOut,
    alternatives: Type.Optional(Type.Array(Type.Object({}))),
    perspective_id: Type.String(),
    focus: NodeRefSchema,
    seeded_by: Type.String(),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['orient', 'find'],
  next: 'perspective_follow',
  guide:
    'A perspective is a browser over the code graph: a focus node, ranked routes (its neighbours) and a history. ' +
    'Walk it with perspective_routes → perspective_inspect / perspective_peek → perspective_follow, undo with perspective_back, fork with perspective_branch, and diff two with perspective_compare. ' +
    'Routes are ranked by edge strength, relevance to the query, centrality, novelty and your activation boosts (trail_resume, warmup); each route says why. ' +
    'Every route belongs to a route set (route_set_version): after the graph changes or the focus moves, old route ids are refused as stale, naming the call that refreshes them. ' +
    'Perspectives belong to your agent_id (other agents cannot drive them) and are stored in the workspace store, so they survive restarts (on a read-only server they live in memory only). ' +
    'lens: relations (edge kinds to follow), direction (out/in/both), node_types, include_visited, max_routes.',
  handler: async (args, call) => {
    const { graph, engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    let focus: GraphNode;
    let alternatives: { id: string; label: string; score: number }[] = [];
    if (args.anchor_node !== undefined) {
      focus = graph.node(args.anchor_node);
    } else {
      // The agent's boosts count here as they do for routes: a resumed trail pulls the start toward it.
      const hits = engine
        .seek(args.query, { topK: 8, minScore: 0.05 })
        .results.map((h) => ({ id: h.id, label: h.label, score: round(h.score + ROUTE_WEIGHTS.boost * (boosts.map.get(h.id) ?? 0)) }))
        .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      const best = hits[0] ? engine.getNode(hits[0].id) : engine.resolveNode(args.query);
      if (!best) {
        throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `nothing in the graph matches "${args.query}"`, {
          hint: 'rephrase the query, or pass anchor_node (a node id, path or name from seek)',
        });
      }
      focus = best;
      alternatives = hits.filter((h) => h.id !== best.id).slice(0, 4);
    }
    const p = newPerspective({ id: book.newId(agentId), agentId, name: args.query.slice(0, 80), query: args.query, lens: args.lens ?? {}, focus: focus.id });
    book.checkRoom(agentId, p);
    ensureRoutes(engine, p, boosts);
    book.save(p);
    return {
      perspective_id: p.id,
      focus: nodeRef(focus),
      seeded_by: args.anchor_node !== undefined ? 'anchor_node' : 'query',
      ...(alternatives.length ? { alternatives } : {}),
      ...routePage(engine, p.routes!, 1, 6, boosts),
      persisted: book.persisted,
      ...(book.persisted ? {} : { note: `kept in ${book.storage}` }),
    };
  },
});
