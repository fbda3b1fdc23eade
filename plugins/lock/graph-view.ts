/**
 * How the lock verbs read the code graph: through the `graph` service only (types from the graph
 * plugin, never its code), with engine errors turned into host errors.
 */
import { M1ndError, type CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/service.ts';
import type { CodeGraphEngine } from '../graph/engine/engine.ts';
import type { GraphNode } from '../graph/engine/graph.ts';

/** The graph service of the calling generation. */
export function graphService(call: Pick<CallContext, 'service'>): GraphService {
  return call.service<GraphService>('graph');
}

/** Runs engine code, turning the engine's coded errors (code + hint) into host errors. */
export function viaEngine<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof M1ndError || !(error instanceof Error)) throw error;
    const coded = error as Error & { code?: unknown; hint?: unknown };
    if (typeof coded.code !== 'string' || !coded.code.startsWith('M1ND_ERR_')) throw error;
    throw new M1ndError(coded.code as never, coded.message, { hint: typeof coded.hint === 'string' ? coded.hint : undefined });
  }
}

/**
 * A node for an id, a path (`path:line` too) or an exact name — never a loose text match, which
 * would pin an unrelated node; GRAPH_NODE_NOT_FOUND with did-you-mean otherwise.
 */
export function resolveNode(engine: CodeGraphEngine, text: string): GraphNode {
  const match = engine.findNodes(text, { limit: 1 })[0];
  return match && match.via !== 'seek' ? match.node : viaEngine(() => engine.requireNode(text));
}
