/**
 * The body of an ingest's commit, shared by the main thread's connection and the commit worker's
 * own connection (store-writer/): file rows with their extractions already serialised to JSON, the
 * removed paths, the git history and the meta facts, written in one IMMEDIATE transaction.
 */
import type Database from 'better-sqlite3';
import type { FileExtraction } from './extraction.ts';
import type { ExtensionRow } from './parse-extensions.ts';
import { FileTable, type FileRow } from './store-files.ts';
import { GitCommitTable, type GitCommit } from './store-git-commits.ts';
import { MetaTable, type StoreMeta } from './store-meta.ts';
import { writeExtensionRows } from './store-parse-extensions.ts';
import type { StageTable } from './store-stage.ts';

/** A file to write: its row, and its extraction unless a row with that key is already stored. */
export interface FileWrite {
  row: FileRow;
  extraction: FileExtraction | null;
  /** `extraction` as JSON when it is already serialised (a parse worker sends it so). */
  json?: string;
  /**
   * Set once the commit worker staged this row in the store (store-stage.ts): its extraction and
   * JSON are dropped then, and a commit on the main connection takes the row from the stage.
   */
  staged?: boolean;
}

/** Everything one ingest writes, committed together. */
export interface IngestWrite {
  upserts: readonly FileWrite[];
  removes: readonly string[];
  /** Replace the stored git history (undefined keeps it). */
  gitCommits?: readonly GitCommit[] | null;
  meta: Partial<Pick<StoreMeta, 'root' | 'parserVersion' | 'gitHead' | 'resolverConfig'>>;
  /** Parse extensions' rows of the parsed files (parse-extensions.ts). */
  extensions?: readonly ExtensionRow[];
  /** Called as rows are written (inside the transaction; the main-thread commit only). */
  onProgress?: (done: number, total: number) => void;
}

/** A file row with its extraction's JSON (null: the extraction row is already stored). */
export type SerializedFile = [row: FileRow, json: string | null];

/** An ingest's write with every extraction serialised: what crosses to the commit worker. */
export interface SerializedIngest {
  files: SerializedFile[];
  removes: readonly string[];
  gitCommits?: readonly GitCommit[] | null;
  meta: IngestWrite['meta'];
  extensions?: readonly ExtensionRow[];
}

/** The tables a commit writes, prepared once per connection. */
export interface CommitTables {
  db: Database.Database;
  files: FileTable;
  git: GitCommitTable;
  meta: MetaTable;
}

/** JSON of a write's extraction (null when none is to be written). */
export function extractionJson(w: FileWrite): string | null {
  return w.json ?? (w.extraction ? JSON.stringify(w.extraction) : null);
}

/**
 * Writes one ingest in one IMMEDIATE transaction; returns the new generation and the one it replaced.
 * `staged`: the run's rows staged on this connection (the commit worker's), written before `write.files`.
 */
export function commitSerialized(
  t: CommitTables,
  write: SerializedIngest,
  onProgress?: (done: number, total: number) => void,
  staged?: { table: StageTable; run: string },
): { generation: number; previous: number } {
  const total = write.files.length + write.removes.length;
  const run = t.db.transaction(() => {
    let done = 0;
    let wroteExtraction = false;
    if (staged) wroteExtraction = staged.table.write(staged.run).extractions > 0;
    for (const [row, json] of write.files) {
      t.files.putJson(row, json);
      if (json !== null) wroteExtraction = true;
      if (++done % 200 === 0) onProgress?.(done, total);
    }
    for (const path of write.removes) {
      t.files.delete(path);
      if (++done % 200 === 0) onProgress?.(done, total);
    }
    writeExtensionRows(t.db, write.extensions ?? [], write.removes);
    if (write.gitCommits !== undefined) t.git.replace(write.gitCommits ?? []);
    if (write.removes.length > 0 || wroteExtraction) t.files.gcExtractions();
    const meta = write.meta;
    if (meta.root !== undefined && meta.root !== null) t.meta.set('root', meta.root);
    if (meta.parserVersion) t.meta.set('parser_version', meta.parserVersion);
    if (meta.gitHead !== undefined) t.meta.set('git_head', meta.gitHead ?? '');
    if (meta.resolverConfig !== undefined && meta.resolverConfig !== null) t.meta.set('resolver_config', meta.resolverConfig);
    t.meta.set('ingested_at', String(Date.now()));
    onProgress?.(total, total);
    const generation = t.meta.bumpGeneration();
    return { generation, previous: generation - 1 };
  });
  // The graph rows are a cache of the workspace (re-derivable by re-ingesting), so they need
  // atomicity and process-crash safety (WAL gives both) but not an fsync on every commit.
  t.db.pragma('synchronous = NORMAL');
  try {
    return run.immediate();
  } finally {
    t.db.pragma('synchronous = FULL');
  }
}
