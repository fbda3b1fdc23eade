/** How the structure verbs reach the code graph: the `graph` service, fresh and non-empty. */
import type { CallContext } from '../../core/index.ts';
import type { CodeGraphEngine, GraphService } from '../graph/api.ts';

/** The graph service and its engine, brought up to date; GRAPH_EMPTY (with the ingest call) when nothing is ingested. */
export async function structureCall(call: Pick<CallContext, 'service'>): Promise<{ graph: GraphService; engine: CodeGraphEngine }> {
  const graph = call.service<GraphService>('graph');
  const engine = await graph.requireGraph();
  return { graph, engine };
}
