/**
 * How the memory verbs reach their state: the `memory` service (this plugin's own, looked up like
 * any consumer would) and the `graph` service, brought up to date first so freshness is current.
 */
import type { CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { MemoryService } from './service.ts';

/** The services of the calling generation, with the graph fresh (other processes' commits, watched edits). */
export async function memoryCall(call: Pick<CallContext, 'service'>): Promise<{ memory: MemoryService; graph: GraphService }> {
  const graph = call.service<GraphService>('graph');
  await graph.fresh();
  return { memory: call.service<MemoryService>('memory'), graph };
}
