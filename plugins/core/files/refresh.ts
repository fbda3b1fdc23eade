/** Keeping the graph in step with files a verb is about to show (the `auto_ingest` parameter). */
import { statSync } from 'node:fs';
import type { GraphService } from '../../graph/api.ts';
import { asHostError, fileIdOf } from '../../graph/api.ts';

/** Re-ingests the given files when they are missing from the graph or changed on disk; says what it did. */
export async function refreshIfNeeded(graph: GraphService, paths: string[], autoIngest: boolean): Promise<{ in_graph: boolean; reingested: boolean; note?: string }> {
  const g = graph.engine.graph;
  const absent = paths.filter((p) => !g.get(fileIdOf(p)));
  if (absent.length === 0) return { in_graph: true, reingested: false };
  // A path with no file behind it (a typo) is nothing to ingest: its read reports it, with suggestions.
  const missing = absent.filter((p) => isFile(graph, p));
  if (missing.length === 0) return { in_graph: false, reingested: false, note: 'no such file' };
  if (!autoIngest) return { in_graph: false, reingested: false, note: 'not in the graph; pass auto_ingest: true or call ingest' };
  if (!graph.writable) return { in_graph: false, reingested: false, note: 'not in the graph; read-only servers do not ingest' };
  try {
    await graph.engine.ingest({ paths: missing });
  } catch (error) {
    throw asHostError(error);
  }
  const now = missing.every((p) => graph.engine.graph.get(fileIdOf(p)));
  const notes = [...(now ? [] : ['not a language the graph parses (shown as text)']), ...(missing.length < absent.length ? ['some paths name no file'] : [])];
  return { in_graph: notes.length === 0, reingested: true, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

function isFile(graph: GraphService, path: string): boolean {
  try {
    return statSync(graph.engine.resolvePath(path).absolute).isFile();
  } catch {
    return false;
  }
}
