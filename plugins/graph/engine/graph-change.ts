/**
 * What goes into and comes out of the graph builder: the files to add or replace, git facts, the
 * batch handed to `GraphBuilder.apply`, its report, and the unresolved-import record. Kept apart
 * from the builder so the ingest, store and engine layers can name them without the builder.
 */
import type { FileExtraction, Language } from './extraction.ts';
import type { ResolverConfig } from './resolve.ts';
import type { PreciseEdge } from './ts-program/protocol.ts';

/** One file to add or replace. */
export interface FileInput {
  path: string;
  language: Language;
  extraction: FileExtraction;
  /**
   * True when `extraction` holds only symbols, imports and inherits (calls, references and doc
   * links left out to keep memory low); the builder loads the full one when it links the file.
   */
  partial?: boolean;
  /** The checker pass's edges for this content, when known (TS/JS); they replace name-resolved calls. */
  precise?: readonly PreciseEdge[] | null;
  /** Key of the stored extraction (a partial input's full extraction is loaded by it when the store's rows are not current yet). */
  key?: string;
}

/** Per-file git facts and co-change pairs (weights already in (0,1]). */
export interface GitFacts {
  files: Map<string, { lastCommitAt: number; commitCount: number }>;
  pairs: { a: string; b: string; weight: number }[];
}

/** A batch of changes for `GraphBuilder.apply`. */
export interface GraphChange {
  upsert: readonly FileInput[];
  remove: readonly string[];
  /** New git facts; undefined keeps the current ones. */
  git?: GitFacts | null;
  /** New resolver settings; undefined keeps the current ones (a change re-resolves every file). */
  config?: ResolverConfig;
  /**
   * The caller hands the inputs over: the builder drops each input's `extraction` reference once
   * its file state holds it, so a builder that re-loads extractions frees each one as soon as its
   * file is linked rather than when the caller lets go of the whole batch.
   */
  release?: boolean;
  /**
   * Linking (the pass that loads partial inputs' full extractions) waits for this, e.g. the commit
   * that stores them; only `applyAsync` can wait (`apply` throws when given one).
   */
  linkAfter?: Promise<unknown>;
  /**
   * Loads partial inputs' full extractions for this apply instead of the builder's own loader, e.g.
   * from the rows an ingest staged in the store before its commit (so linking overlaps the commit).
   */
  loadExtraction?: (path: string, key?: string) => FileExtraction | null;
}

/** What one `apply` did. */
export interface ApplyReport {
  /** Files whose edges were rebuilt (the changed ones plus those whose resolution could change). */
  resolvedFiles: number;
  nodesAdded: number;
  nodesRemoved: number;
}

/** An import that did not resolve to a workspace file, kept as a record (never as an edge). */
export interface UnresolvedImport {
  from: string;
  specifier: string;
  line: number;
  resolved: false;
  reason: 'external' | 'not_found';
}

/** Builder settings. */
export interface GraphBuilderOptions {
  /**
   * Re-loads a file's extraction when it must be re-linked. When given, extractions are dropped
   * from memory once linked (the graph keeps what queries need); without it they are retained.
   */
  loadExtraction?: (path: string, key?: string) => FileExtraction | null;
}
