/**
 * What the graph is rebuilt from besides extractions, read back from the store: git facts, the
 * resolver config, and which files another process changed since this one last loaded.
 */
import type { FileInput, GitFacts } from './build.ts';
import type { FileExtraction } from './extraction.ts';
import { yieldToLoop } from './steps.ts';
import { lightenExtraction } from './store-files.ts';
import { gitFactsFrom } from './git-history.ts';
import { emptyResolverConfig, type ResolverConfig } from './resolve.ts';
import type { FileRow, GraphStore } from './store.ts';

/** Per-file git facts derived from the stored commits, or null when no history is stored. */
export function storedGitFacts(store: GraphStore): GitFacts | null {
  const commits = store.gitCommits();
  return commits.length ? gitFactsFrom(commits) : null;
}

/** The resolver config the last ingest recorded; the empty config when none or unreadable. */
export function storedResolverConfig(store: GraphStore): ResolverConfig {
  const json = store.meta().resolverConfig;
  try {
    return json ? (JSON.parse(json) as ResolverConfig) : emptyResolverConfig();
  } catch {
    return emptyResolverConfig();
  }
}

/** The stored files that differ (by extraction key) from `loaded` (path → key): what to upsert and remove. */
export function storedFileChanges(store: GraphStore, loaded: ReadonlyMap<string, string>): { stored: Map<string, FileRow>; upsert: FileInput[]; remove: string[] } {
  const stored = store.fileRows();
  const upsert: FileInput[] = [];
  const remove: string[] = [];
  for (const [path, row] of stored) {
    if (loaded.get(path) === row.extractionKey) continue;
    const extraction = store.extraction(row.extractionKey, path);
    if (extraction) upsert.push({ path, language: row.language, extraction });
  }
  for (const path of loaded.keys()) if (!stored.has(path)) remove.push(path);
  return { stored, upsert, remove };
}

/**
 * The stored files with their (light) extractions for a load, read in slices of about `sliceMs` of
 * main-thread time with a macrotask between them, so a big store never holds the event loop in one
 * piece. The rows are read in one statement; each extraction is a short read by its key (content
 * addressed, so it never changes under the load). An extraction that is gone (another process
 * re-ingested the file and collected it meanwhile) loads as absent: that process's commit raised
 * the generation, and the next freshness check re-reads the file.
 */
export async function readStoredFilesSliced(store: GraphStore, sliceMs: number): Promise<{ generation: number; files: { row: FileRow; extraction: FileExtraction }[] }> {
  const generation = store.generation();
  const rows = [...store.fileRows().values()];
  const files: { row: FileRow; extraction: FileExtraction }[] = [];
  let sliceStart = performance.now();
  for (const row of rows) {
    const extraction = store.extraction(row.extractionKey, row.path);
    if (extraction) {
      lightenExtraction(extraction);
      files.push({ row, extraction });
    }
    if (performance.now() - sliceStart >= sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return { generation, files };
}
