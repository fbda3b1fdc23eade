/**
 * Where document state lives — the canonical Markdown artefact, its producer, and the binding
 * baseline drift compares against — in two places:
 * - in memory, per workspace engine (bounded): what the read verbs (document_resolve,
 *   document_bindings, document_drift) keep; they never write the store;
 * - in the workspace store (`engine.memory`, namespace `documents`, one row per document keyed by its
 *   workspace path): written only by a write call (`document_bindings` with `persist: true`, or an
 *   ingest of documents), so the baseline survives restarts.
 * Reads look in memory first, then in the store.
 */
import type { CodeGraphEngine, GraphService } from '../graph/api.ts';

export const NAMESPACE = 'documents';

/** Documents kept in memory per workspace, and their Markdown characters at most. */
const KEPT_DOCUMENTS = 128;
const KEPT_CHARS = 32 * 1024 * 1024;

/** A bound target as recorded: the node and a fingerprint of its text then. */
export interface BaselineTarget {
  id: string;
  fingerprint: string | null;
  /** Stale already when the baseline was recorded (its lines changed since the document's last commit): why. */
  stale?: string;
}

/** A document's state. */
export interface DocumentRecord {
  path: string;
  /** sha1 of the source bytes the artefact was made from. */
  source_hash: string;
  producer: string;
  converter: string;
  /** The converter's revision that made the artefact (1 when absent). */
  revision?: number;
  converted_at: number;
  markdown: string;
  /** Binding baseline: mention text → targets, recorded when bindings were first computed for this source hash. */
  baseline?: { bound_at: number; bindings: Record<string, BaselineTarget[]> };
}

/** What identifies a record's artefact: its source bytes, and the converter revision past the first. */
export function artefactVersion(record: Pick<DocumentRecord, 'source_hash' | 'revision'>): string {
  return (record.revision ?? 1) > 1 ? `${record.source_hash}+r${record.revision}` : record.source_hash;
}

/** Records kept in memory, per workspace engine, least recently kept first. */
const memory = new WeakMap<CodeGraphEngine, Map<string, DocumentRecord>>();

function kept(graph: GraphService): Map<string, DocumentRecord> {
  let m = memory.get(graph.engine);
  if (!m) memory.set(graph.engine, (m = new Map()));
  return m;
}

/** The record of a document: the one kept in memory, else the stored one, or undefined. */
export function loadRecord(graph: GraphService, path: string): DocumentRecord | undefined {
  const inMemory = kept(graph).get(path);
  if (inMemory) return inMemory;
  if (!graph.engine.storeExists()) return undefined;
  return graph.engine.memory.get<DocumentRecord>(NAMESPACE, path)?.value;
}

/** Keeps a record in memory (read verbs: nothing is written), dropping the least recently kept past the bounds. */
export function keepRecord(graph: GraphService, record: DocumentRecord): void {
  const m = kept(graph);
  m.delete(record.path);
  m.set(record.path, record);
  let chars = 0;
  for (const r of m.values()) chars += r.markdown.length;
  for (const [path, r] of m) {
    if (m.size <= KEPT_DOCUMENTS && chars <= KEPT_CHARS) break;
    if (path === record.path) continue;
    m.delete(path);
    chars -= r.markdown.length;
  }
}

/** Keeps a record and stores it (a write call only); false when the server cannot write the store. */
export function saveRecord(graph: GraphService, record: DocumentRecord): boolean {
  keepRecord(graph, record);
  if (!graph.writable || !graph.engine.storeExists()) return false;
  graph.engine.memory.set(NAMESPACE, record.path, record);
  return true;
}

/** Forgets a document that is gone: out of memory, and out of the store when the server may write it. */
export function forgetRecord(graph: GraphService, path: string): void {
  kept(graph).delete(path);
  if (graph.writable && graph.engine.storeExists()) graph.engine.memory.delete(NAMESPACE, path);
}

/** Whether the store holds this version of the record (same source and baseline). */
export function isStored(graph: GraphService, record: DocumentRecord): boolean {
  if (!graph.engine.storeExists()) return false;
  const stored = graph.engine.memory.get<DocumentRecord>(NAMESPACE, record.path)?.value;
  return stored !== undefined && stored.source_hash === record.source_hash && stored.baseline?.bound_at === record.baseline?.bound_at;
}

/** Paths of the documents known under a folder prefix (kept or stored), sorted, at most `limit`. */
export function knownDocuments(graph: GraphService, prefix: string, limit: number): string[] {
  const paths = new Set([...kept(graph).keys()].filter((p) => p.startsWith(prefix)));
  if (graph.engine.storeExists()) for (const e of graph.engine.memory.list<DocumentRecord>(NAMESPACE, prefix, limit)) paths.add(e.key);
  return [...paths].sort().slice(0, limit);
}
