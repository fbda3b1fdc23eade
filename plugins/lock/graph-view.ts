/**
 * How the lock verbs reach the code graph: through the `graph` service only (types from the graph
 * plugin, never its code); the service turns engine errors into host errors and resolves node names.
 */
import type { CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';

/** The graph service of the calling generation. */
export function graphService(call: Pick<CallContext, 'service'>): GraphService {
  return call.service<GraphService>('graph');
}
