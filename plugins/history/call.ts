/** What every history verb does first: a non-empty graph, and the history mined up to HEAD. */
import { ErrorCodes, M1ndError, type CallContext } from '../../core/index.ts';
import { FederatedEngine, type CodeGraphEngine, type GraphNode, type GraphService } from '../graph/api.ts';
import { federatedHistory } from './federated-history.ts';
import type { HistoryIndex } from './history-index.ts';
import type { MineReport } from './miner.ts';
import { historyOf, type HistoryService } from './service.ts';

export interface HistoryCall {
  history: HistoryService;
  graph: GraphService;
  engine: CodeGraphEngine;
  index: HistoryIndex;
  mined: MineReport;
  /** True on the federated view (merged history, namespaced paths). */
  federated: boolean;
}

/**
 * The graph (non-empty) and the indexed history; HISTORY_NO_GIT when there is no repository or no
 * commit. With `view`, an agent that federated gets the federated view's graph and the merged
 * history of every repository (`<repo>::path` files, each mined from its own git); `federated` is
 * then true.
 */
export async function historyCall(call: CallContext, options: { view?: boolean } = {}): Promise<HistoryCall> {
  const history = historyOf(call);
  const graph = options.view ? history.graph.federation.serviceFor(call.agentId) : history.graph;
  const engine = await graph.requireGraph();
  if (engine instanceof FederatedEngine) {
    const { index, mined, withoutHistory } = await federatedHistory(engine, history.federation);
    if (mined.mode === 'empty' || index.commits.length === 0) {
      throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, `no repository of the federation (${withoutHistory.join(', ')}) has commits: there is no history to read`, {
        hint: 'commit in the repositories first, or switch back to the workspace graph: federation_view({"agent_id":"…","view":"workspace"})',
      });
    }
    return { history, graph, engine, index, mined, federated: true };
  }
  const { index, mined } = await history.current();
  if (mined.mode === 'empty' || index.commits.length === 0) {
    throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, `the repository at ${engine.root} has no commits yet: there is no history to read`, {
      hint: 'commit your work first, or use verbs that need no history (impact, why, counterfactual)',
    });
  }
  return { history, graph, engine, index, mined, federated: false };
}

/** How the history was read, for every history verb's answer. */
export function historySource(mined: MineReport, index: HistoryIndex) {
  return {
    commits: index.commits.length,
    head: mined.head?.slice(0, 12) ?? null,
    newest: iso(index.newest),
    mined: mined.mode,
    ...(mined.added ? { new_commits: mined.added } : {}),
    ...(mined.shallow ? { shallow: true, warning: 'shallow clone: commits before the graft point are missing, so counts are lower bounds (git fetch --unshallow for the full history)' } : {}),
    ...(mined.truncated ? { truncated: true } : {}),
  };
}

/** The file a node argument stands for (a file node, or the file holding a symbol). */
export function fileOfNode(graph: GraphService, text: string): { node: GraphNode; file: string } {
  const node = graph.node(text);
  return { node, file: node.path };
}

/** Unix seconds as an ISO date-time (seconds precision). */
export function iso(t: number): string {
  return new Date(t * 1000).toISOString().replace('.000Z', 'Z');
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
