/**
 * What each agent has been shown this session: the nodes and files in results it received (with
 * the file's size and mtime at that moment, so a later edit can be told apart from what the agent
 * saw) and a log of its queries. Session memory only (never the store), per agent.
 *
 * Recorded through `recordVisit` by the verbs of this family that show an agent nodes or files:
 * the graph analysis verbs, seek, search, view and batch_view. A verb that does not call it is
 * known to `coverage_session` and `am_i_stale` only by its call count in the host's session record.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { CallContext, SessionStore } from '../../../core/index.ts';
import type { GraphNode } from '../../graph/api.ts';

export interface SeenFile {
  path: string;
  /** When the agent last received a result naming this file (ms since epoch). */
  seenAt: number;
  /** The file's mtime and size at that moment (null when it did not exist). */
  mtimeMs: number | null;
  size: number | null;
  verb: string;
  times: number;
}

export interface SeenNode {
  id: string;
  path: string;
  lines: [number, number];
  seenAt: number;
  verb: string;
}

export interface QueryRecord {
  verb: string;
  at: number;
  /** The query text or node the call was about. */
  subject: string;
  results: number;
  elapsedMs: number;
}

export interface AgentVisits {
  files: Map<string, SeenFile>;
  nodes: Map<string, SeenNode>;
  queries: QueryRecord[];
}

const KEY = 'core:visits';
const MAX_NODES = 20_000;
const MAX_QUERIES = 200;

/** The visit record of an agent (created empty on first use). */
export function visitsOf(session: SessionStore, agentId: string): AgentVisits {
  return session.state<AgentVisits>(agentId, KEY, () => ({ files: new Map(), nodes: new Map(), queries: [] }));
}

/**
 * Records that the calling agent was shown these nodes and files (call after the graph is fresh);
 * `query` adds an entry to its query log. Stats each distinct file once per call.
 */
export function recordVisit(
  call: Pick<CallContext, 'session' | 'agentId' | 'verb'>,
  root: string,
  input: { nodes?: readonly GraphNode[]; files?: readonly string[]; query?: { subject: string; results: number; elapsedMs: number } },
): void {
  const v = visitsOf(call.session, call.agentId);
  const now = Date.now();
  const files = new Set(input.files ?? []);
  for (const n of input.nodes ?? []) {
    if (n.kind === 'module') continue;
    files.add(n.path);
    if (n.kind === 'file') continue;
    if (v.nodes.size >= MAX_NODES && !v.nodes.has(n.id)) continue;
    v.nodes.set(n.id, { id: n.id, path: n.path, lines: [n.startLine, n.endLine], seenAt: now, verb: call.verb });
  }
  for (const p of files) {
    const st = statSync(path.join(root, p), { throwIfNoEntry: false });
    const prev = v.files.get(p);
    v.files.set(p, { path: p, seenAt: now, mtimeMs: st ? st.mtimeMs : null, size: st ? st.size : null, verb: call.verb, times: (prev?.times ?? 0) + 1 });
  }
  if (input.query) {
    v.queries.push({ verb: call.verb, at: now, ...input.query });
    if (v.queries.length > MAX_QUERIES) v.queries.splice(0, v.queries.length - MAX_QUERIES);
  }
}
