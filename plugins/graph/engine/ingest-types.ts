/** The shapes of an ingest run: its options, what the engine hands it, and what it reports. */
import type { GraphBuilder } from './build.ts';
import type { NodeKind, Relation } from './graph.ts';
import type { ParseExtensionRegistry } from './parse-extensions.ts';
import type { ParseErrorReport } from './parse-report.ts';
import type { SourceParser } from './source-parser.ts';
import type { FileRow, GraphStore } from './store.ts';
import type { SkipReason, SkippedPath } from './walk.ts';

/** Ingest phases reported to the progress callback. */
export type IngestPhase = 'walk' | 'read' | 'parse' | 'git' | 'persist' | 'build';

/** Options of one ingest. */
export interface IngestOptions {
  /** Re-parse only files whose size/mtime and then content hash changed (default false: re-parse all). */
  incremental?: boolean;
  /** Only look at these workspace-relative files (implies incremental; deleted ones are removed). */
  paths?: readonly string[];
  /**
   * An incremental run over a loaded graph: only the walked files and stored rows whose path this
   * accepts are compared, read and removed (a watcher over some folders re-ingests those folders);
   * everything else stays as stored. Ignored by a full run, and by `paths`.
   */
  within?: (path: string) => boolean;
  onProgress?: (done: number, total: number, phase: IngestPhase) => void;
  signal?: AbortSignal;
  /** Parse worker threads (default: the engine's setting, one per core); 0 parses on the main thread. */
  workers?: number;
  /**
   * A large run hands its rows to the store's commit worker every this many files while it still
   * parses (default 64), so the JSON of every extraction is never held on the main thread at once.
   */
  commitBatchFiles?: number;
  /**
   * After committing at least this many files through the commit worker, stop it at once (default
   * 5,000: the python3 prefix's 13.7K files are, the stdlib's ~1K are not, so repeated stdlib-sized
   * ingests keep their worker instead of starting one during each parse).
   */
  releaseCommitWorkerFiles?: number;
  /**
   * Main-thread work between two yields to the event loop (default 8 ms); background callers (the
   * daemon) pass a few ms, so a request arriving meanwhile waits no longer than that.
   */
  sliceMs?: number;
  /**
   * Told after the commit which files the run re-parsed (new, or their content changed) and which it
   * removed: an incremental run finds them by its walk, so a caller learns what no event reported.
   */
  onFiles?: (files: { changed: readonly string[]; removed: readonly string[] }) => void;
}

/** What an ingest did. */
export interface IngestSummary {
  mode: 'full' | 'incremental' | 'paths';
  generation: number;
  files: {
    /** Files that qualified for the graph. */
    scanned: number;
    /** Files read and parsed. */
    parsed: number;
    /** Files read whose content hash matched the stored one (no parse). */
    reused: number;
    /** Files skipped by size + mtime without reading. */
    unchanged: number;
    removed: number;
    skipped: number;
  };
  /** Skipped files and directories (capped; `unsupported` files are only counted). */
  skipped: SkippedPath[];
  skippedTruncated: boolean;
  skippedByReason: Partial<Record<SkipReason, number>>;
  nodes: number;
  nodesByKind: Record<NodeKind, number>;
  edges: number;
  edgesByRelation: Record<Relation, number>;
  imports: { resolved: number; unresolved: number; external: number; notFound: number };
  /** Files whose parse had errors: totals and the worst few, with the line of their first error. */
  parseErrors: ParseErrorReport;
  git: { scanned: boolean; commits: number; head: string | null } | null;
  /** Files whose edges were rebuilt by the graph patch (incremental) or all files (full). */
  relinkedFiles: number;
  /** Worker threads that read and parsed the files (0: the main thread did). */
  parseWorkers: number;
  elapsedMs: number;
  phases: Record<'walk' | 'read' | 'parse' | 'git' | 'persist' | 'build', number>;
}

/** What the engine hands an ingest run. */
export interface IngestContext {
  root: string;
  store: GraphStore;
  /** The current graph builder (patched in place by incremental runs; replaced by full runs). */
  builder: GraphBuilder;
  /** Makes an empty builder for a full run (the engine wires its extraction loader in). */
  newBuilder: () => GraphBuilder;
  parser: SourceParser;
  maxFileBytes: number;
  exclude: readonly string[];
  gitMaxCommits: number;
  /** Parse worker threads when the run does not say (default one per core; 0: main thread only). */
  parseWorkers?: number;
  /** How much lower the parse workers' threads run than the main thread (Linux nice; default 10, 0: the same). */
  workerNice?: number;
  /**
   * Takes each parsed file's text as it arrives (the engine's bounded search cache), so a big run
   * never holds every text at once; without it the texts come back in `IngestOutcome.texts`.
   */
  keepText?: (path: string, text: string) => void;
  /**
   * Characters `keepText` can hold. A full run whose files total more bytes keeps no text at all:
   * the cache would hold an arbitrary first part of the workspace, and the workers then send no text
   * (a search reads files from disk on a miss, as it does for what did not fit).
   */
  keepTextChars?: number;
  /** Parse extensions to run on each parsed tree, whose rows the commit writes (parse-extensions.ts). */
  extensions?: ParseExtensionRegistry;
  /** Called just before an incremental run starts patching `builder` in place (until then it only read it). */
  beforePatch?: () => void;
}

/** An ingest's result: the builder to use from now on, the summary, and texts read (for search). */
export interface IngestOutcome {
  builder: GraphBuilder;
  summary: IngestSummary;
  /** Texts of files parsed in this run (empty when the context's `keepText` took them). */
  texts: Map<string, string>;
  /** Paths whose content changed or that were removed. */
  changed: string[];
  removed: string[];
  /** True when the builder was replaced (callers rebuild their indexes). */
  rebuilt: boolean;
  /** Rows written by this run (new keys for changed files). */
  rows: FileRow[];
  /** Generation the store had just before this run committed (differs from the loaded one when another process wrote meanwhile). */
  previousGeneration: number;
}
