/**
 * The embedded store: SQLite (better-sqlite3, WAL) at `<storeDir>/m1nd.db`. It holds what the graph
 * is rebuilt from — one row per ingested file pointing at its extraction (content-addressed, so
 * unchanged files and checkpoints share rows) — plus the scanned git history, named checkpoints, and
 * generic per-namespace memory tables for other features. Each ingest commits in one IMMEDIATE
 * transaction, so a process killed mid-ingest leaves the previous generation intact, and several
 * processes can share the file (one writes at a time; `busy_timeout` makes the others wait).
 *
 * GraphStore is the one entry point; each table's queries live in their own store-*.ts module.
 */
import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { FileExtraction } from './extraction.ts';
import type { ChunkStep, SnapshotSize } from './graph-snapshot-chunks.ts';
import { CheckpointTable, type CheckpointInfo } from './store-checkpoints.ts';
import { commitSerialized, extractionJson, type FileWrite, type IngestWrite } from './store-commit.ts';
import { FileTable, type FileRow } from './store-files.ts';
import { GitCommitTable, type GitCommit } from './store-git-commits.ts';
import { MemoryTable, type MemoryEntry } from './store-memory.ts';
import { MetaTable, type StoreMeta } from './store-meta.ts';
import { readExtensionRows } from './store-parse-extensions.ts';
import { PreciseEdgeTable, type PreciseRow } from './store-precise-edges.ts';
import { openStoreDatabase } from './store-schema.ts';
import { SnapshotTable, type SnapshotKey, type SnapshotStamp } from './store-snapshot.ts';
import { StageTable } from './store-stage.ts';
import { CommitError, sharedCommitWorker, type CommitStream } from './store-writer/writer.ts';

// Re-exported: callers import the store's types from this module.
export { STORE_SCHEMA_VERSION } from './store-schema.ts';
export type { CheckpointInfo, FileRow, FileWrite, GitCommit, IngestWrite, MemoryEntry, PreciseRow, SnapshotKey, SnapshotStamp, StoreMeta };

/** Store health and sizes. */
export interface StoreStatus {
  path: string;
  generation: number;
  ingestedAt: number | null;
  root: string | null;
  files: number;
  extractions: number;
  gitCommits: number;
  dbBytes: number;
  walBytes: number;
  checkpoints: CheckpointInfo[];
  memoryNamespaces: { namespace: string; keys: number }[];
}

/** The SQLite-backed store of one workspace. */
export class GraphStore {
  readonly path: string;
  /** The directory holding m1nd.db. */
  readonly dir: string;
  private readonly busyTimeoutMs: number;
  private db: Database.Database | null;
  private readonly metaTable: MetaTable;
  private readonly files: FileTable;
  private readonly git: GitCommitTable;
  private readonly checkpoints: CheckpointTable;
  private readonly precise: PreciseEdgeTable;
  private readonly memory: MemoryTable;
  private readonly snapshots: SnapshotTable;
  /** Rows a stopped commit worker staged (created when a fallback commit needs them). */
  private stage: StageTable | null = null;

  /** Opens (creating if needed) `<dir>/m1nd.db` in WAL mode with a busy timeout. */
  constructor(dir: string, options: { busyTimeoutMs?: number } = {}) {
    this.busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    const { path, db } = openStoreDatabase(dir, this.busyTimeoutMs);
    this.path = path;
    this.dir = dir;
    this.db = db;
    this.metaTable = new MetaTable(db);
    this.files = new FileTable(db);
    this.git = new GitCommitTable(db);
    this.checkpoints = new CheckpointTable(db, this.metaTable, this.files);
    this.precise = new PreciseEdgeTable(db);
    this.memory = new MemoryTable(db);
    this.snapshots = new SnapshotTable(db);
  }

  private assertOpen(): void {
    void this.conn;
  }

  private get conn(): Database.Database {
    if (!this.db) throw new EngineError(EngineErrorCodes.STORE_CLOSED, `the store ${this.path} is closed`, 'open a new engine');
    return this.db;
  }

  /** The committed generation (cheap; other processes' commits are visible at once). */
  generation(): number {
    this.assertOpen();
    return this.metaTable.generation();
  }

  /** Graph-level facts. */
  meta(): StoreMeta {
    this.assertOpen();
    return this.metaTable.read();
  }

  /** Every stored file row (no extraction), by path. */
  fileRows(): Map<string, FileRow> {
    this.assertOpen();
    return this.files.rows();
  }

  /** `fileRows()` read in pages, yielding between them every `sliceMs` (see FileTable.rowsSliced). */
  fileRowsSliced(sliceMs: number): Promise<ReadonlyMap<string, FileRow>> {
    this.assertOpen();
    return this.files.rowsSliced(sliceMs);
  }

  /** The stored rows of some paths (those stored), by path: indexed lookups, not a read of every row. */
  fileRowsOf(paths: Iterable<string>): Map<string, FileRow> {
    this.assertOpen();
    return this.files.rowsOf(paths);
  }

  /**
   * Every stored file with its extraction, read in one consistent snapshot. With `light`, calls,
   * references and doc links are left out of each extraction (they are the bulk of the memory;
   * the builder re-reads them file by file when it links).
   */
  loadAll(options: { light?: boolean } = {}): { generation: number; files: { row: FileRow; extraction: FileExtraction }[] } {
    const db = this.conn;
    return db.transaction(() => ({ generation: this.metaTable.generation(), files: this.files.rowsWithExtractions(options.light === true) }))();
  }

  /** The extraction stored under a key, with its path set, or null. */
  extraction(key: string, path: string): FileExtraction | null {
    return this.files.extraction(key, path);
  }

  /** Whether the stored extraction under a key has a type-only import (nothing parsed). */
  extractionHasTypeOnly(key: string): boolean {
    return this.files.extractionHasTypeOnly(key);
  }

  /**
   * The extraction staged as row `seq` of an ingest's stage run, before its commit (the commit
   * worker stages rows in short transactions of their own; the commit moves them): null when that
   * row has none (its key was stored already) or the run is committed or dropped.
   */
  stagedExtraction(run: string, seq: number, path: string): FileExtraction | null {
    this.assertOpen();
    const json = (this.stage ??= new StageTable(this.conn)).json(run, seq);
    if (json === null) return null;
    const ex = JSON.parse(json) as FileExtraction;
    ex.path = path;
    return ex;
  }

  /** A parse extension's stored outputs (JSON) for the files' current content, by path (store-parse-extensions.ts). */
  extensionRows(key: string, version: string, paths?: readonly string[]): Map<string, string> {
    return readExtensionRows(this.conn, key, version, paths);
  }

  /** True when an extraction with this key is stored. */
  hasExtraction(key: string): boolean {
    return this.files.hasExtraction(key);
  }

  /**
   * Commits one ingest atomically on this connection; returns the new generation and the one it
   * replaced. `stageRun`: rows the commit worker staged before it stopped (rows marked `staged`
   * come from there).
   */
  commitIngest(write: IngestWrite, stageRun?: string): { generation: number; previous: number } {
    const db = this.conn;
    const files = write.upserts.filter((w) => !w.staged).map((w): [FileWrite['row'], string | null] => [w.row, extractionJson(w)]);
    const staged = stageRun !== undefined ? { table: (this.stage ??= new StageTable(db)), run: stageRun } : undefined;
    return commitSerialized({ db, files: this.files, git: this.git, meta: this.metaTable }, { files, removes: write.removes, gitCommits: write.gitCommits, meta: write.meta, extensions: write.extensions }, write.onProgress, staged);
  }

  /**
   * Commits one ingest atomically from the commit worker's own connection (store-writer/), so the
   * event loop stays free while SQLite writes: extractions are serialised here in slices of
   * `sliceMs`, the worker stages them in the store as they come and writes them in one transaction.
   * Falls back to `commitIngest` when the worker cannot run (its transaction did not happen then;
   * what it staged is taken from the stage). Other writers on this connection wait for the worker's
   * transaction through the busy timeout, as they would for another process.
   */
  async commitIngestAsync(write: IngestWrite, sliceMs = 20, stream?: CommitStream): Promise<{ generation: number; previous: number }> {
    this.assertOpen();
    try {
      return await sharedCommitWorker().commit(this.dir, this.busyTimeoutMs, write, sliceMs, stream);
    } catch (err) {
      if (err instanceof CommitError) throw Object.assign(new Error(err.message), { code: err.code });
      return this.commitIngest(write, (err as { stageRun?: string }).stageRun ?? stream?.run);
    }
  }

  /**
   * Opens a stream of a large ingest's rows to the commit worker (started now, so its start-up
   * overlaps the parse): the rows sent through it are the leading rows of the write later given to
   * `commitIngestAsync` with it, which then sends only the rest. Drop it if the ingest stops first.
   */
  openCommitStream(): CommitStream {
    this.assertOpen();
    return sharedCommitWorker().open(this.dir, this.busyTimeoutMs);
  }

  /** Starts the commit worker ahead of a large ingest's commit (its start-up overlaps the parse). */
  warmCommitWorker(): void {
    sharedCommitWorker().warm();
  }

  /** Number of stored commits. */
  gitCommitCount(): number {
    return this.git.count();
  }

  /** The stored git history, newest first. */
  gitCommits(): GitCommit[] {
    return this.git.all();
  }

  /** Saves the current files state under a name (replacing a checkpoint of that name). */
  checkpoint(name: string): CheckpointInfo {
    this.assertOpen();
    return this.checkpoints.save(name);
  }

  /** Makes a checkpoint's files state current (a new generation) and returns that generation. */
  restoreCheckpoint(name: string): number {
    this.assertOpen();
    return this.checkpoints.restore(name);
  }

  /** Deletes a checkpoint; returns false when there was none. */
  deleteCheckpoint(name: string): boolean {
    this.assertOpen();
    return this.checkpoints.delete(name);
  }

  /** The file rows a named checkpoint saved, or null when there is no such checkpoint. */
  checkpointFiles(name: string): { info: CheckpointInfo; files: Map<string, FileRow> } | null {
    this.assertOpen();
    return this.checkpoints.fileRows(name);
  }

  /** Named checkpoints, oldest first. */
  listCheckpoints(): CheckpointInfo[] {
    return this.checkpoints.list();
  }

  /** Folds the WAL into the database file (what "save" means when every ingest already committed). */
  flush(): void {
    this.conn.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Sizes, counts and checkpoints. */
  status(): StoreStatus {
    this.assertOpen();
    const meta = this.meta();
    const size = (p: string): number => {
      try {
        return statSync(p).size;
      } catch {
        return 0;
      }
    };
    return {
      path: this.path,
      generation: meta.generation,
      ingestedAt: meta.ingestedAt,
      root: meta.root,
      ...this.files.counts(),
      gitCommits: this.git.count(),
      dbBytes: size(this.path),
      walBytes: size(`${this.path}-wal`),
      checkpoints: this.listCheckpoints(),
      memoryNamespaces: this.memory.namespaces(),
    };
  }

  /** A memory value, or undefined. */
  memoryGet<T = unknown>(namespace: string, key: string): MemoryEntry<T> | undefined {
    return this.memory.get<T>(namespace, key);
  }

  /** Writes a memory value (JSON-serialisable). */
  memorySet(namespace: string, key: string, value: unknown): MemoryEntry {
    return this.memory.set(namespace, key, value);
  }

  /** A fingerprint of a memory namespace that changes whenever one of its rows does (for caches). */
  memoryStamp(namespace: string): string {
    return this.memory.stamp(namespace);
  }

  /** Deletes a memory value; false when absent. */
  memoryDelete(namespace: string, key: string): boolean {
    return this.memory.delete(namespace, key);
  }

  /** Memory entries of a namespace whose key starts with `prefix`, in key order. */
  memoryList<T = unknown>(namespace: string, prefix = '', limit = 1000): MemoryEntry<T>[] {
    return this.memory.list<T>(namespace, prefix, limit);
  }

  /** Every stored checker result, by path. */
  preciseRows(): Map<string, PreciseRow> {
    return this.precise.rows();
  }

  /** The stored checker results of some paths (those stored), by path. */
  preciseRowsOf(paths: Iterable<string>): Map<string, PreciseRow> {
    return this.precise.rowsOf(paths);
  }

  /** Stores checker results (one transaction) and drops rows of files no longer ingested; returns the checker results' version after it. */
  putPrecise(rows: readonly PreciseRow[]): number {
    this.assertOpen();
    return this.precise.put(rows);
  }

  /** The store state a graph snapshot is keyed by (generation and checker-results version). */
  snapshotKey(): SnapshotKey {
    this.assertOpen();
    return this.snapshots.key();
  }

  /** The stored graph snapshot's format, key and size (its bytes left unread), or null. */
  snapshotStamp(): SnapshotStamp | null {
    this.assertOpen();
    return this.snapshots.stamp();
  }

  /** One chunk of the stored graph snapshot's bytes (0 ≤ seq < stamp.chunks), or null. */
  snapshotChunk(seq: number): Buffer | null {
    this.assertOpen();
    return this.snapshots.chunk(seq);
  }

  /** Stores a graph snapshot built under `key`; false (nothing written) when the store moved on since. */
  writeSnapshot(format: number, key: SnapshotKey, data: Uint8Array | Iterator<ChunkStep, SnapshotSize>): boolean {
    this.assertOpen();
    return this.snapshots.put(format, key, data);
  }

  /** `writeSnapshot` as steps: a chunk per transaction with a yield point after each, then the swap (SnapshotTable.putSteps). */
  *writeSnapshotSteps(format: number, key: SnapshotKey, data: Uint8Array | Iterator<ChunkStep, SnapshotSize>): Generator<void, boolean> {
    this.assertOpen();
    return yield* this.snapshots.putSteps(format, key, data);
  }

  /** Removes the graph snapshot. */
  dropSnapshot(): void {
    this.assertOpen();
    this.snapshots.drop();
  }

  /** Runs `fn` in one write transaction (for features writing several memory rows atomically). */
  transaction<T>(fn: () => T): T {
    return this.conn.transaction(fn).immediate();
  }

  /**
   * Closes the connection at once; the promise settles (never rejects) when the commit worker has
   * closed its own connection to this store too (after a dropped ingest's clean-up), so the
   * store's files can then be moved or removed.
   */
  close(): Promise<void> {
    if (this.db) {
      this.db.close();
      this.db = null;
    }
    return sharedCommitWorker().forget(this.dir);
  }
}
