/**
 * The engine's persistence face: saving, checkpoints, the rows and extractions the store recorded,
 * load statistics and status. CodeGraphEngine (engine.ts) extends it with the graph's lifecycle and queries.
 */
import { memoryView, type EngineMemory } from './engine-memory.ts';
import type { OpenSummary } from './engine-results.ts';
import { ParsedExtractionCache } from './extraction-cache.ts';
import type { FileExtraction } from './extraction.ts';
import type { CodeGraph } from './graph.ts';
import type { LexicalIndex } from './lexical-index.ts';
import type { LoadedGraph, LoadStats } from './loaded-graph.ts';
import type { CheckpointInfo, FileRow, StoreStatus } from './store.ts';

/** Parsed extractions `fileExtraction` keeps (LRU). */
const PARSED_EXTRACTIONS_KEPT = 256;

export abstract class EnginePersistence {
  /** Recently read extractions by key, for verbs that read source sites. */
  private readonly parsedExtractions = new ParsedExtractionCache(PARSED_EXTRACTIONS_KEPT);

  protected constructor(protected readonly loaded: LoadedGraph) {}

  /** The current graph (replaced by a full ingest). */
  abstract get graph(): CodeGraph;

  /** Flushes the store (every ingest already committed; this folds the WAL into the database). */
  save(): StoreStatus {
    const store = this.loaded.requireStore();
    store.flush();
    return store.status();
  }

  /** Saves the current graph's files state under a name. */
  checkpoint(name: string): CheckpointInfo {
    return this.loaded.requireStore().checkpoint(name);
  }

  /** Makes a checkpoint current (a new generation) and reloads the graph from it. */
  async loadCheckpoint(name: string): Promise<OpenSummary> {
    return this.loaded.loadCheckpoint(name);
  }

  /** What the store recorded per ingested file (hash, size, mtime, loc), all or only `paths`. */
  storedFiles(paths?: readonly string[]): Map<string, FileRow> {
    const store = this.loaded.requireStore();
    if (!paths) return store.fileRows();
    const rows = store.fileRowsOf(paths);
    return new Map(paths.flatMap((p) => (rows.has(p) ? [[p, rows.get(p)!] as const] : [])));
  }

  /** The file rows a named checkpoint saved, or null when there is none. */
  checkpointFiles(name: string): { info: CheckpointInfo; files: Map<string, FileRow> } | null {
    return this.loaded.requireStore().checkpointFiles(name);
  }

  /** The extraction the in-memory graph was built from for a file (read from the store), or null. */
  fileExtraction(path: string): FileExtraction | null {
    const key = this.loaded.rows.get(path);
    const store = this.loaded.store;
    if (!key || !store) return null;
    return this.parsedExtractions.get(key, path, () => store.extraction(key, path));
  }

  /** Whether the file's extraction has an import for types only (`typeOnly`), asked of the store without parsing it; false when unknown. */
  hasTypeOnlyImports(path: string): boolean {
    const key = this.loaded.rows.get(path);
    const store = this.loaded.store;
    return key !== undefined && store !== null && store !== undefined && store.extractionHasTypeOnly(key);
  }

  /** The key of the extraction the in-memory graph was built from for a file (held in memory: no store read), or null. */
  fileExtractionKey(path: string): string | null {
    return this.loaded.rows.get(path) ?? null;
  }

  /** A stored extraction by its key (from a file row), or null. */
  storedExtraction(key: string, path: string): FileExtraction | null {
    return this.loaded.requireStore().extraction(key, path);
  }

  /** Deletes a checkpoint. */
  deleteCheckpoint(name: string): boolean {
    return this.loaded.requireStore().deleteCheckpoint(name);
  }

  /** How the graph got into memory: snapshot loads, re-linked loads, builder states built later, snapshots written. */
  loadStats(): Readonly<LoadStats> {
    return { ...this.loaded.loadStats };
  }

  /** Store status plus what is loaded in memory. */
  status(): StoreStatus & { loadedGeneration: number; nodes: number; edges: number; stale: boolean; searchCacheChars: number; lexical: ReturnType<LexicalIndex['stats']> } {
    const store = this.loaded.requireStore();
    return {
      ...store.status(),
      loadedGeneration: this.loaded.generation,
      nodes: this.graph.nodeCount,
      edges: this.graph.edgeCount,
      stale: this.loaded.stamp().stale || store.generation() !== this.loaded.generation,
      searchCacheChars: this.loaded.contents.size,
      lexical: this.loaded.lexical.stats(),
    };
  }

  /** Generic per-namespace memory tables in the same store (for other features). */
  get memory(): EngineMemory {
    return memoryView(this.loaded.requireStore());
  }
}
