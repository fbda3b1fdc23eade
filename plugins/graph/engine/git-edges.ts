/**
 * Git facts on the graph: commit recency and count on file nodes, and co-change edges between
 * files that changed together. The builder owns these edges apart from any file, so new facts
 * replace them wholesale without re-linking a file.
 */
import { DEFAULT_WEIGHTS, RELATION_CODE as REL, type CodeGraph } from './graph.ts';
import type { GitFacts } from './graph-change.ts';

/** Replaces the git facts on file nodes and the co-change edges; returns the new edge ids. */
export function applyGitFacts(
  graph: CodeGraph,
  files: ReadonlyMap<string, { path: string; fileNode: number }>,
  facts: GitFacts | null,
  oldEdges: readonly number[],
): number[] {
  for (const e of oldEdges) graph.removeEdge(e);
  const edges: number[] = [];
  for (const st of files.values()) {
    const n = graph.node(st.fileNode)!;
    const info = facts?.files.get(st.path);
    if (info) {
      n.lastCommitAt = info.lastCommitAt;
      n.commitCount = info.commitCount;
    } else {
      delete n.lastCommitAt;
      delete n.commitCount;
    }
  }
  if (!facts) return edges;
  for (const { a, b, weight } of facts.pairs) {
    const sa = files.get(a);
    const sb = files.get(b);
    if (!sa || !sb || weight <= 0) continue;
    const w = Math.min(1, weight) * DEFAULT_WEIGHTS.co_changes;
    edges.push(graph.addEdge(sa.fileNode, sb.fileNode, REL.co_changes, w));
    edges.push(graph.addEdge(sb.fileNode, sa.fileNode, REL.co_changes, w));
  }
  return edges;
}
