/** What every perspective verb starts from: the graph, the perspective book and the agent's boosts. */
import { Type, type CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { CodeGraphEngine } from '../graph/api.ts';
import { PerspectiveBook } from './book.ts';
import { graphService } from './graph-view.ts';
import { boostStamp, type BoostView } from './routes.ts';

/** `perspective_id` parameter. */
export const PerspectiveId = Type.String({ minLength: 1, description: 'From perspective_start' });
/** `route_set_version` parameter (required where a route is acted on: stale ids are refused). */
export const RouteSetVersion = Type.Integer({ minimum: 0, description: 'route_set_version of the routes you act on' });
/** `route_id` / `route_index`: which route (one of them). */
export const RouteChoice = {
  route_id: Type.Optional(Type.String({ description: 'e.g. "R3.1" (or route_index)' })),
  route_index: Type.Optional(Type.Integer({ minimum: 1, description: '1-based position in the route set' })),
};
/** Output fields of a page of routes (perspective_start, _follow, _back, _routes). */
export const RoutePageOut = {
    next_page: Type.Optional(Type.Number()),
    routes: Type.Array(Type.Object({})),
    candidates_beyond_cap: Type.Optional(Type.Number()),
    route_set_version: Type.Number(),
    page: Type.Number(),
    pages: Type.Number(),
    total_routes: Type.Number(),
};

export interface PerspectiveCall {
  graph: GraphService;
  book: PerspectiveBook;
  agentId: string;
  boosts: BoostView;
}

/** The agent's activation boosts as routes read them. */
export function boostView(graph: GraphService, agentId: string): BoostView {
  const map = graph.boosts.map(agentId);
  return { map, entries: graph.boosts.list(agentId), stamp: boostStamp(map) };
}

/** Book and boosts for a call that needs no graph (list, close). */
export async function perspectiveCall(call: CallContext): Promise<PerspectiveCall> {
  const graph = graphService(call);
  await graph.fresh();
  return { graph, book: new PerspectiveBook(graph, call.session), agentId: call.agentId, boosts: boostView(graph, call.agentId) };
}

/** Book and boosts plus a fresh, non-empty graph (GRAPH_EMPTY names the ingest call otherwise). */
export async function perspectiveGraphCall(call: CallContext): Promise<PerspectiveCall & { engine: CodeGraphEngine }> {
  const graph = graphService(call);
  const engine = await graph.requireGraph();
  await engine.prepareSeek(); // routes and starts seek: the index loaded in background slices, never at once by a seek
  return { graph, engine, book: new PerspectiveBook(graph, call.session), agentId: call.agentId, boosts: boostView(graph, call.agentId) };
}
