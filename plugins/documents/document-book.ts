/**
 * Where document state lives: the workspace store (`engine.memory`, namespace `documents`, one row
 * per document keyed by its workspace path) — the canonical Markdown artefact, its producer, and the
 * binding baseline drift compares against. One small module so the storage can move later.
 */
import type { GraphService } from '../graph/api.ts';

export const NAMESPACE = 'documents';

/** A bound target as recorded: the node and a fingerprint of its text then. */
export interface BaselineTarget {
  id: string;
  fingerprint: string | null;
}

/** A document's stored state. */
export interface DocumentRecord {
  path: string;
  /** sha1 of the source bytes the artefact was made from. */
  source_hash: string;
  producer: string;
  converter: string;
  converted_at: number;
  markdown: string;
  /** Binding baseline: mention text → targets, recorded when bindings were first computed for this source hash. */
  baseline?: { bound_at: number; bindings: Record<string, BaselineTarget[]> };
}

/** The stored record of a document, or undefined. */
export function loadRecord(graph: GraphService, path: string): DocumentRecord | undefined {
  if (!graph.engine.storeExists()) return undefined;
  return graph.engine.memory.get<DocumentRecord>(NAMESPACE, path)?.value;
}

/** Stores a record; a no-op on a read-only server (the artefact is then recomputed per call). */
export function saveRecord(graph: GraphService, record: DocumentRecord): boolean {
  if (!graph.writable || !graph.engine.storeExists()) return false;
  graph.engine.memory.set(NAMESPACE, record.path, record);
  return true;
}
