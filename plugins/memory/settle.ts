/**
 * The graph brought up to date for the files claims cite, before a node anchor is read or made.
 * The graph keeps a symbol's lines as last ingested: a file edited while no server watched it (or
 * before the watcher's event was taken in) would put a node anchor on whatever text now sits at the
 * old lines — a false `stale`, or a new claim hashed over the wrong text. A cited file whose size or
 * mtime differs from the store's row, and whose bytes do too, is re-ingested first.
 */
import { statSync } from 'node:fs';
import type { GraphService } from '../graph/api.ts';

/** Re-ingests the given workspace files the graph holds at other bytes than the disk; returns those paths. */
export async function settleFiles(graph: GraphService, paths: Iterable<string>, signal?: AbortSignal): Promise<string[]> {
  const list = [...new Set(paths)];
  if (list.length === 0 || !graph.writable || !graph.engine.storeExists()) return [];
  let rows: ReturnType<GraphService['engine']['storedFiles']>;
  try {
    rows = graph.engine.storedFiles(list);
  } catch {
    return []; // a view without file rows (a federation): nothing to compare against
  }
  const behind = list.filter((p) => {
    const row = rows.get(p);
    if (!row) return false;
    try {
      const st = statSync(graph.engine.resolvePath(p).absolute);
      if (st.isFile() && st.size === row.size && st.mtimeMs === row.mtimeMs) return false;
    } catch {
      return true; // gone: the re-ingest takes its nodes out of the graph
    }
    return graph.contentHash(p) !== row.hash;
  });
  if (behind.length > 0) await graph.reingestPaths(behind, signal);
  return behind;
}

/** The files of a claim list's node anchors (the only anchors whose lines come from the graph). */
export function nodeAnchorFiles(claims: readonly { evidence: readonly { kind: string; path: string }[] }[]): string[] {
  return [...new Set(claims.flatMap((c) => c.evidence.filter((a) => a.kind === 'node').map((a) => a.path)))];
}
