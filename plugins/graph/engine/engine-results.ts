/** What the engine's lifecycle calls report, and the stamp every query result carries. */

/** What `open()` found in the store. */
export interface OpenSummary {
  generation: number;
  files: number;
  nodes: number;
  edges: number;
  /** False when the store was empty (call `ingest`). */
  loaded: boolean;
  elapsedMs: number;
}

/** What `ensureFresh()` did. */
export interface FreshnessReport {
  generation: number;
  /** True when another process had committed a newer generation and the graph was patched from the store. */
  reloaded: boolean;
  /** Files re-ingested because the watcher saw them change. */
  reingested: string[];
}

/** A query result stamped with the generation it ran on. */
export interface Stamped {
  generation: number;
  /** True when the watcher knows of edits not yet ingested (call ensureFresh first). */
  stale: boolean;
  /** TS/JS files whose calls are still name-resolved (checker pass pending or failed); absent when 0. */
  notPrecise?: number;
}
