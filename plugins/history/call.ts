/** What every history verb does first: a non-empty graph, and the history mined up to HEAD. */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, M1ndError, type CallContext } from '../../core/index.ts';
import { FederatedEngine, NAMESPACE_SEPARATOR, namespaceOf, type CodeGraphEngine, type GraphNode, type GraphService } from '../graph/api.ts';
import { federatedHistory } from './federated-history.ts';
import { noHistory } from './git.ts';
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
 * The graph (non-empty) and the indexed history; HISTORY_NO_GIT when there is no repository, no
 * commit, or no commit touching the served folder (each said as such, see noHistory). With `view`,
 * an agent that federated gets the federated view's graph and the merged history of every
 * repository (`<repo>::path` files, each mined from its own git); `federated` is then true.
 */
export async function historyCall(call: CallContext, options: { view?: boolean } = {}): Promise<HistoryCall> {
  const history = historyOf(call);
  const graph = options.view ? history.graph.federation.serviceFor(call.agentId) : history.graph;
  const engine = await graph.requireGraph();
  if (engine instanceof FederatedEngine) {
    const { index, mined, withoutHistory } = await federatedHistory(engine, history.federation);
    if (mined.mode === 'empty' || index.commits.length === 0) {
      // Members not listed as without history have commits, none of them touching the served folder.
      const elsewhere = engine.members.map((m) => m.name).filter((name) => !withoutHistory.includes(name));
      const why = [withoutHistory.length ? `no repository or no commits: ${withoutHistory.join(', ')}` : '', elsewhere.length ? `commits outside the served folder only: ${elsewhere.join(', ')}` : ''].filter(Boolean).join('; ');
      throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, `no repository of the federation has commits touching its served folder (${why}): there is no history to read`, {
        hint: `commit the served folders' files in those repositories first, or switch back to the workspace graph: federation_view({"agent_id":"…","view":"workspace"})`,
      });
    }
    return { history, graph, engine, index, mined, federated: true };
  }
  const { index, mined } = await history.current();
  if (mined.mode === 'empty' || index.commits.length === 0) {
    const why = await noHistory(engine.root, mined.head);
    throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, why.message, { hint: why.hint });
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

/**
 * Whether a path of the mined history is on disk now, under the served folder or, for a federated
 * `<repo>::path`, under that member's root (a folder counts: a gitlink is a submodule's folder).
 * History paths come from git, whose paths are never absolute and never hold `..`.
 */
export function onDisk(engine: CodeGraphEngine, file: string): boolean {
  const ns = namespaceOf(file);
  const member = ns === null || !(engine instanceof FederatedEngine) ? null : engine.members.find((m) => m.name === ns);
  const root = member ? member.engine.root : engine.root;
  const rel = member ? file.slice(ns!.length + NAMESPACE_SEPARATOR.length) : file;
  return statSync(join(root, rel), { throwIfNoEntry: false }) !== undefined;
}

/** Verbs that answer from the federated view's merged history (the way on for a sibling's id). */
const FEDERATED_HISTORY_VERBS = 'timeline, predict and ghost_edges';

/**
 * A node id, path or path prefix as the workspace graph names it, for the history verbs that read
 * the workspace's own graph and git only. After `federate`, `<repo>::x` of the served workspace's
 * own repository is `x` (answered from that repository); a sibling repository's `<repo>::x` is
 * refused, naming the verbs that answer across the federation and how to ask that repository itself.
 * Text without a federation namespace is returned as given.
 */
export function workspaceArg(graph: GraphService, verb: string, text: string): string {
  const ns = namespaceOf(text);
  const members = graph.federation.current?.members;
  const member = ns === null ? undefined : members?.find((m) => m.name === ns);
  if (!member) return text;
  const rest = text.slice(ns!.length + NAMESPACE_SEPARATOR.length);
  if (member.own) return rest;
  throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `${verb} reads the workspace's own graph and git history only; "${text}" is in the federated repository ${member.name} (${member.engine.root})`, {
    hint: `ask ${FEDERATED_HISTORY_VERBS} about it (they answer across the federation), or run m1nd in ${member.engine.root} and call ${verb} there with "${rest}"`,
    data: { repo: member.name, root: member.engine.root, id: rest },
  });
}

/** Unix seconds as an ISO date-time (seconds precision). */
export function iso(t: number): string {
  return new Date(t * 1000).toISOString().replace('.000Z', 'Z');
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
