/** Auto-ingest's persisted state (counters), its manifest entries and what a tick reports. */
import { Type } from '../../core/index.ts';
import { CONVERTERS } from '../documents/api.ts';

export interface AutoIngestCounters {
  scanned: number;
  queued: number;
  ingested: number;
  converted: number;
  unchanged: number;
  pruned: number;
  /** Documents that started failing (a failing document's retries are not counted again). */
  failed: number;
  /** File events (or a scan's documents) the full queue dropped; a rescan with room queues them again. */
  dropped: number;
}

/** The counters as auto_ingest_status and auto_ingest_stop answer them. */
export const CountersSchema = Type.Object({
  scanned: Type.Number(),
  queued: Type.Number(),
  ingested: Type.Number(),
  converted: Type.Number(),
  unchanged: Type.Number(),
  pruned: Type.Number(),
  failed: Type.Number({ description: 'Documents that started failing (retries of a failing document are not counted again)' }),
  dropped: Type.Number({ description: 'File events the full queue (20,000) dropped; a rescan with room queues them again' }),
});

export interface AutoIngestState {
  active: boolean;
  roots: string[];
  formats: string[];
  debounce_ms: number;
  started_by: string | null;
  started_at: number | null;
  last_tick_at: number | null;
  ticks: number;
  counters: AutoIngestCounters;
}

/** A manifest entry: what was last ingested from a document, and how it went. */
export interface ManifestEntry {
  path: string;
  hash: string | null;
  size: number;
  mtimeMs: number;
  converter: string;
  result: 'ingested' | 'converted' | 'unchanged' | 'failed';
  error?: string;
  /** A failed result: failed attempts in a row at this size and mtime (the retry backs off with them). */
  attempts?: number;
  at: number;
}

export function emptyState(): AutoIngestState {
  return { active: false, roots: [], formats: CONVERTERS.map((c) => c.name), debounce_ms: 200, started_by: null, started_at: null, last_tick_at: null, ticks: 0, counters: { scanned: 0, queued: 0, ingested: 0, converted: 0, unchanged: 0, pruned: 0, failed: 0, dropped: 0 } };
}

export interface AutoIngestTick {
  processed: number;
  ingested: string[];
  converted: string[];
  unchanged: number;
  pruned: string[];
  /** Documents no longer under the roots or of the formats (a new start): out of the manifest, their converted nodes out of the graph. */
  released: string[];
  failed: { path: string; error: string }[];
  remaining: number;
  generation: number | null;
}
