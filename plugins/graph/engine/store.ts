/**
 * The embedded store: SQLite (better-sqlite3, WAL) at `<storeDir>/m1nd.db`. It holds what the graph
 * is rebuilt from — one row per ingested file pointing at its extraction (content-addressed, so
 * unchanged files and checkpoints share rows) — plus the scanned git history, named checkpoints, and
 * generic per-namespace memory tables for other features. Each ingest commits in one IMMEDIATE
 * transaction, so a process killed mid-ingest leaves the previous generation intact, and several
 * processes can share the file (one writes at a time; `busy_timeout` makes the others wait).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { FileExtraction, Language } from './extraction.ts';

/** Bumped when the stored layout or the meaning of stored extractions changes. */
export const STORE_SCHEMA_VERSION = 1;

/** One ingested file as stored (without its extraction). */
export interface FileRow {
  path: string;
  /** sha1 of the file bytes. */
  hash: string;
  size: number;
  mtimeMs: number;
  language: Language;
  loc: number;
  parseErrors: number;
  /** Key of the extraction row: language, parser version and content hash. */
  extractionKey: string;
}

/** One commit of the scanned git history. */
export interface GitCommit {
  hash: string;
  /** Unix seconds (committer date). */
  time: number;
  subject: string;
  files: string[];
}

/** Graph-level facts kept beside the files. */
export interface StoreMeta {
  generation: number;
  ingestedAt: number | null;
  root: string | null;
  parserVersion: string | null;
  gitHead: string | null;
  resolverConfig: string | null;
  schemaVersion: number;
}

/** A file to write: its row, and its extraction unless a row with that key is already stored. */
export interface FileWrite {
  row: FileRow;
  extraction: FileExtraction | null;
}

/** Everything one ingest writes, committed together. */
export interface IngestWrite {
  upserts: readonly FileWrite[];
  removes: readonly string[];
  /** Replace the stored git history (undefined keeps it). */
  gitCommits?: readonly GitCommit[] | null;
  meta: Partial<Pick<StoreMeta, 'root' | 'parserVersion' | 'gitHead' | 'resolverConfig'>>;
  /** Called as rows are written (inside the transaction). */
  onProgress?: (done: number, total: number) => void;
}

/** The checker pass's edges of one TS/JS file, valid while the file's hash and the program fingerprint hold. */
export interface PreciseRow {
  path: string;
  hash: string;
  fingerprint: string;
  edgesJson: string;
}

/** A named checkpoint. */
export interface CheckpointInfo {
  name: string;
  createdAt: number;
  generation: number;
  files: number;
}

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

/** One memory entry. */
export interface MemoryEntry<T = unknown> {
  namespace: string;
  key: string;
  value: T;
  updatedAt: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL,
  language TEXT NOT NULL, loc INTEGER NOT NULL, parse_errors INTEGER NOT NULL, extraction_key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS files_extraction ON files (extraction_key);
CREATE TABLE IF NOT EXISTS extractions (key TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS git_commits (
  seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, time INTEGER NOT NULL, subject TEXT NOT NULL, files_json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
  name TEXT PRIMARY KEY, created_at INTEGER NOT NULL, generation INTEGER NOT NULL, file_count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoint_files (
  name TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL,
  language TEXT NOT NULL, loc INTEGER NOT NULL, parse_errors INTEGER NOT NULL, extraction_key TEXT NOT NULL,
  PRIMARY KEY (name, path));
CREATE INDEX IF NOT EXISTS checkpoint_files_extraction ON checkpoint_files (extraction_key);
CREATE TABLE IF NOT EXISTS memory (
  namespace TEXT NOT NULL, key TEXT NOT NULL, value_json TEXT NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, key));
CREATE TABLE IF NOT EXISTS precise_edges (
  path TEXT PRIMARY KEY, hash TEXT NOT NULL, fingerprint TEXT NOT NULL, edges_json TEXT NOT NULL);
`;

const FILE_COLUMNS = 'path, hash, size, mtime_ms, language, loc, parse_errors, extraction_key';

type RawFileRow = [string, string, number, number, string, number, number, string];

function toRow(r: RawFileRow): FileRow {
  return { path: r[0], hash: r[1], size: r[2], mtimeMs: r[3], language: r[4] as Language, loc: r[5], parseErrors: r[6], extractionKey: r[7] };
}

/** The SQLite-backed store of one workspace. */
export class GraphStore {
  readonly path: string;
  private db: Database.Database | null;
  private readonly stmts: ReturnType<GraphStore['prepare']>;

  /** Opens (creating if needed) `<dir>/m1nd.db` in WAL mode with a busy timeout. */
  constructor(dir: string, options: { busyTimeoutMs?: number } = {}) {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      // The store is machine-local state: keep it out of the user's commits without touching their .gitignore.
      writeFileSync(join(dir, '.gitignore'), '*\n');
    }
    this.path = join(dir, 'm1nd.db');
    const db = new Database(this.path, { timeout: options.busyTimeoutMs ?? 10_000 });
    db.pragma('journal_mode = WAL');
    // FULL by default: memory-table writes are user data and survive power loss. Ingest commits
    // switch to NORMAL (see commitIngest): still atomic and crash-safe, without the fsync wait.
    db.pragma('synchronous = FULL');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    db.exec(SCHEMA);
    db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', '0'), ('schema_version', ?)`).run(String(STORE_SCHEMA_VERSION));
    this.db = db;
    this.stmts = this.prepare(db);
  }

  private prepare(db: Database.Database) {
    return {
      getMeta: db.prepare('SELECT key, value FROM meta'),
      getGeneration: db.prepare(`SELECT value FROM meta WHERE key = 'generation'`).pluck(),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      bumpGeneration: db.prepare(`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation' RETURNING CAST(value AS INTEGER)`).pluck(),
      fileRows: db.prepare(`SELECT ${FILE_COLUMNS} FROM files`).raw(),
      fileWithJson: db.prepare(`SELECT ${FILE_COLUMNS.split(', ').map((c) => `f.${c}`).join(', ')}, e.json FROM files f JOIN extractions e ON e.key = f.extraction_key`).raw(),
      extractionByKey: db.prepare('SELECT json FROM extractions WHERE key = ?').pluck(),
      hasExtraction: db.prepare('SELECT 1 FROM extractions WHERE key = ?').pluck(),
      putExtraction: db.prepare('INSERT OR IGNORE INTO extractions (key, json) VALUES (?, ?)'),
      putFile: db.prepare(
        `INSERT INTO files (${FILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
           language = excluded.language, loc = excluded.loc, parse_errors = excluded.parse_errors, extraction_key = excluded.extraction_key`,
      ),
      deleteFile: db.prepare('DELETE FROM files WHERE path = ?'),
      gcExtractions: db.prepare(
        `DELETE FROM extractions WHERE key NOT IN (SELECT extraction_key FROM files)
           AND key NOT IN (SELECT extraction_key FROM checkpoint_files)`,
      ),
      clearGit: db.prepare('DELETE FROM git_commits'),
      putGit: db.prepare('INSERT INTO git_commits (seq, hash, time, subject, files_json) VALUES (?, ?, ?, ?, ?)'),
      gitRows: db.prepare('SELECT hash, time, subject, files_json FROM git_commits ORDER BY seq').raw(),
      countFiles: db.prepare('SELECT COUNT(*) FROM files').pluck(),
      countExtractions: db.prepare('SELECT COUNT(*) FROM extractions').pluck(),
      countGit: db.prepare('SELECT COUNT(*) FROM git_commits').pluck(),
      checkpointList: db.prepare('SELECT name, created_at, generation, file_count FROM checkpoints ORDER BY created_at').raw(),
      checkpointGet: db.prepare('SELECT name FROM checkpoints WHERE name = ?').pluck(),
      checkpointDelete: db.prepare('DELETE FROM checkpoints WHERE name = ?'),
      checkpointFilesDelete: db.prepare('DELETE FROM checkpoint_files WHERE name = ?'),
      checkpointFileRows: db.prepare(`SELECT ${FILE_COLUMNS} FROM checkpoint_files WHERE name = ?`).raw(),
      checkpointPut: db.prepare('INSERT INTO checkpoints (name, created_at, generation, file_count) VALUES (?, ?, ?, ?)'),
      checkpointCopyIn: db.prepare(`INSERT INTO checkpoint_files (name, ${FILE_COLUMNS}) SELECT ?, ${FILE_COLUMNS} FROM files`),
      checkpointRestore: db.prepare(`INSERT INTO files (${FILE_COLUMNS}) SELECT ${FILE_COLUMNS} FROM checkpoint_files WHERE name = ?`),
      clearFiles: db.prepare('DELETE FROM files'),
      memGet: db.prepare('SELECT value_json, updated_at FROM memory WHERE namespace = ? AND key = ?').raw(),
      memPut: db.prepare(
        `INSERT INTO memory (namespace, key, value_json, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(namespace, key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
      ),
      memDelete: db.prepare('DELETE FROM memory WHERE namespace = ? AND key = ?'),
      memList: db.prepare(`SELECT key, value_json, updated_at FROM memory WHERE namespace = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?`).raw(),
      preciseRows: db.prepare('SELECT path, hash, fingerprint, edges_json FROM precise_edges').raw(),
      putPrecise: db.prepare(
        'INSERT INTO precise_edges (path, hash, fingerprint, edges_json) VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, fingerprint = excluded.fingerprint, edges_json = excluded.edges_json',
      ),
      deletePrecise: db.prepare('DELETE FROM precise_edges WHERE path NOT IN (SELECT path FROM files)'),
      memNamespaces: db.prepare('SELECT namespace, COUNT(*) FROM memory GROUP BY namespace ORDER BY namespace').raw(),
    };
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
    return Number(this.stmts.getGeneration.get());
  }

  /** Graph-level facts. */
  meta(): StoreMeta {
    this.assertOpen();
    const m = new Map((this.stmts.getMeta.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const num = (k: string): number | null => (m.has(k) ? Number(m.get(k)) : null);
    return {
      generation: num('generation') ?? 0,
      ingestedAt: num('ingested_at'),
      root: m.get('root') ?? null,
      parserVersion: m.get('parser_version') ?? null,
      gitHead: m.get('git_head') ?? null,
      resolverConfig: m.get('resolver_config') ?? null,
      schemaVersion: num('schema_version') ?? STORE_SCHEMA_VERSION,
    };
  }

  /** Every stored file row (no extraction), by path. */
  fileRows(): Map<string, FileRow> {
    this.assertOpen();
    const out = new Map<string, FileRow>();
    for (const r of this.stmts.fileRows.iterate() as IterableIterator<RawFileRow>) out.set(r[0], toRow(r));
    return out;
  }

  /**
   * Every stored file with its extraction, read in one consistent snapshot. With `light`, calls,
   * references and doc links are left out of each extraction (they are the bulk of the memory;
   * the builder re-reads them file by file when it links).
   */
  loadAll(options: { light?: boolean } = {}): { generation: number; files: { row: FileRow; extraction: FileExtraction }[] } {
    const db = this.conn;
    return db.transaction(() => {
      const generation = Number(this.stmts.getGeneration.get());
      const files: { row: FileRow; extraction: FileExtraction }[] = [];
      for (const r of this.stmts.fileWithJson.iterate() as IterableIterator<[...RawFileRow, string]>) {
        const row = toRow(r as unknown as RawFileRow);
        const extraction = JSON.parse(r[8]) as FileExtraction;
        extraction.path = row.path;
        if (options.light) {
          extraction.calls = [];
          extraction.references = [];
          extraction.docLinks = [];
          // Only class fields are read before a file is linked (receiver types of other files).
          if (extraction.bindings) extraction.bindings = fieldBindings(extraction);
        }
        files.push({ row, extraction });
      }
      return { generation, files };
    })();
  }

  /** The extraction stored under a key, with its path set, or null. */
  extraction(key: string, path: string): FileExtraction | null {
    const json = this.stmts.extractionByKey.get(key) as string | undefined;
    if (json === undefined) return null;
    const ex = JSON.parse(json) as FileExtraction;
    ex.path = path;
    return ex;
  }

  /** True when an extraction with this key is stored. */
  hasExtraction(key: string): boolean {
    return this.stmts.hasExtraction.get(key) !== undefined;
  }

  /** Commits one ingest atomically; returns the new generation and the one it replaced. */
  commitIngest(write: IngestWrite): { generation: number; previous: number } {
    const db = this.conn;
    const s = this.stmts;
    const total = write.upserts.length + write.removes.length;
    const run = db.transaction(() => {
      let done = 0;
      for (const { row, extraction } of write.upserts) {
        if (extraction) s.putExtraction.run(row.extractionKey, JSON.stringify(extraction));
        s.putFile.run(row.path, row.hash, row.size, row.mtimeMs, row.language, row.loc, row.parseErrors, row.extractionKey);
        if (++done % 200 === 0) write.onProgress?.(done, total);
      }
      for (const path of write.removes) {
        s.deleteFile.run(path);
        if (++done % 200 === 0) write.onProgress?.(done, total);
      }
      if (write.gitCommits !== undefined) {
        s.clearGit.run();
        (write.gitCommits ?? []).forEach((c, i) => s.putGit.run(i, c.hash, c.time, c.subject, JSON.stringify(c.files)));
      }
      if (write.removes.length > 0 || write.upserts.some((u) => u.extraction)) s.gcExtractions.run();
      const meta = write.meta;
      if (meta.root !== undefined && meta.root !== null) s.setMeta.run('root', meta.root);
      if (meta.parserVersion) s.setMeta.run('parser_version', meta.parserVersion);
      if (meta.gitHead !== undefined) s.setMeta.run('git_head', meta.gitHead ?? '');
      if (meta.resolverConfig !== undefined && meta.resolverConfig !== null) s.setMeta.run('resolver_config', meta.resolverConfig);
      s.setMeta.run('ingested_at', String(Date.now()));
      write.onProgress?.(total, total);
      const generation = Number(s.bumpGeneration.get());
      return { generation, previous: generation - 1 };
    });
    // The graph rows are a cache of the workspace (re-derivable by re-ingesting), so they need
    // atomicity and process-crash safety (WAL gives both) but not an fsync on every commit.
    db.pragma('synchronous = NORMAL');
    try {
      return run.immediate();
    } finally {
      db.pragma('synchronous = FULL');
    }
  }

  /** Number of stored commits. */
  gitCommitCount(): number {
    return Number(this.stmts.countGit.get());
  }

  /** The stored git history, newest first. */
  gitCommits(): GitCommit[] {
    return (this.stmts.gitRows.all() as [string, number, string, string][]).map(([hash, time, subject, files]) => ({
      hash,
      time,
      subject,
      files: JSON.parse(files) as string[],
    }));
  }

  /** Saves the current files state under a name (replacing a checkpoint of that name). */
  checkpoint(name: string): CheckpointInfo {
    const db = this.conn;
    checkName(name);
    return db
      .transaction(() => {
        this.stmts.checkpointFilesDelete.run(name);
        this.stmts.checkpointDelete.run(name);
        const files = this.stmts.checkpointCopyIn.run(name).changes;
        const generation = Number(this.stmts.getGeneration.get());
        const createdAt = Date.now();
        this.stmts.checkpointPut.run(name, createdAt, generation, files);
        return { name, createdAt, generation, files };
      })
      .immediate();
  }

  /** Makes a checkpoint's files state current (a new generation) and returns that generation. */
  restoreCheckpoint(name: string): number {
    const db = this.conn;
    return db
      .transaction(() => {
        if (this.stmts.checkpointGet.get(name) === undefined) {
          throw new EngineError(EngineErrorCodes.CHECKPOINT_NOT_FOUND, `no checkpoint named "${name}"`, `list checkpoints with persist status; known: ${this.listCheckpoints().map((c) => c.name).join(', ') || 'none'}`);
        }
        this.stmts.clearFiles.run();
        this.stmts.checkpointRestore.run(name);
        this.stmts.setMeta.run('ingested_at', String(Date.now()));
        return Number(this.stmts.bumpGeneration.get());
      })
      .immediate();
  }

  /** Deletes a checkpoint; returns false when there was none. */
  deleteCheckpoint(name: string): boolean {
    const db = this.conn;
    return db
      .transaction(() => {
        this.stmts.checkpointFilesDelete.run(name);
        const gone = this.stmts.checkpointDelete.run(name).changes > 0;
        this.stmts.gcExtractions.run();
        return gone;
      })
      .immediate();
  }

  /** The file rows a named checkpoint saved, or null when there is no such checkpoint. */
  checkpointFiles(name: string): { info: CheckpointInfo; files: Map<string, FileRow> } | null {
    this.assertOpen();
    const info = this.listCheckpoints().find((c) => c.name === name);
    if (!info) return null;
    const files = new Map<string, FileRow>();
    for (const r of this.stmts.checkpointFileRows.iterate(name) as IterableIterator<RawFileRow>) files.set(r[0], toRow(r));
    return { info, files };
  }

  /** Named checkpoints, oldest first. */
  listCheckpoints(): CheckpointInfo[] {
    return (this.stmts.checkpointList.all() as [string, number, number, number][]).map(([name, createdAt, generation, files]) => ({ name, createdAt, generation, files }));
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
      files: Number(this.stmts.countFiles.get()),
      extractions: Number(this.stmts.countExtractions.get()),
      gitCommits: Number(this.stmts.countGit.get()),
      dbBytes: size(this.path),
      walBytes: size(`${this.path}-wal`),
      checkpoints: this.listCheckpoints(),
      memoryNamespaces: (this.stmts.memNamespaces.all() as [string, number][]).map(([namespace, keys]) => ({ namespace, keys })),
    };
  }

  // --- memory tables ----------------------------------------------------------------------------

  /** A memory value, or undefined. */
  memoryGet<T = unknown>(namespace: string, key: string): MemoryEntry<T> | undefined {
    const r = this.stmts.memGet.get(namespace, key) as [string, number] | undefined;
    return r ? { namespace, key, value: JSON.parse(r[0]) as T, updatedAt: r[1] } : undefined;
  }

  /** Writes a memory value (JSON-serialisable). */
  memorySet(namespace: string, key: string, value: unknown): MemoryEntry {
    const updatedAt = Date.now();
    this.stmts.memPut.run(namespace, key, JSON.stringify(value ?? null), updatedAt);
    return { namespace, key, value, updatedAt };
  }

  /** Deletes a memory value; false when absent. */
  memoryDelete(namespace: string, key: string): boolean {
    return this.stmts.memDelete.run(namespace, key).changes > 0;
  }

  /** Memory entries of a namespace whose key starts with `prefix`, in key order. */
  memoryList<T = unknown>(namespace: string, prefix = '', limit = 1000): MemoryEntry<T>[] {
    // Range scan on the primary key: [prefix, prefix + U+FFFF).
    return (this.stmts.memList.all(namespace, prefix, `${prefix}\uffff`, limit) as [string, string, number][]).map(([key, v, updatedAt]) => ({
      namespace,
      key,
      value: JSON.parse(v) as T,
      updatedAt,
    }));
  }

  /** Every stored checker result, by path. */
  preciseRows(): Map<string, PreciseRow> {
    const out = new Map<string, PreciseRow>();
    for (const [path, hash, fingerprint, edgesJson] of this.stmts.preciseRows.iterate() as IterableIterator<[string, string, string, string]>) {
      out.set(path, { path, hash, fingerprint, edgesJson });
    }
    return out;
  }

  /** Stores checker results (one transaction) and drops rows of files no longer ingested. */
  putPrecise(rows: readonly PreciseRow[]): void {
    this.conn
      .transaction(() => {
        for (const r of rows) this.stmts.putPrecise.run(r.path, r.hash, r.fingerprint, r.edgesJson);
        this.stmts.deletePrecise.run();
      })
      .immediate();
  }

  /** Runs `fn` in one write transaction (for features writing several memory rows atomically). */
  transaction<T>(fn: () => T): T {
    return this.conn.transaction(fn).immediate();
  }

  /** Closes the connection. */
  close(): void {
    if (this.db) {
      this.db.close();
      this.db = null;
    }
  }
}

function checkName(name: string): void {
  if (!/^[\w.-]{1,64}$/.test(name)) {
    throw new EngineError(EngineErrorCodes.CHECKPOINT_NAME, `invalid checkpoint name "${name}"`, 'use 1-64 letters, digits, ".", "_" or "-"');
  }
}

/** The bindings of an extraction that belong to its classes (fields), the only ones read before linking. */
function fieldBindings(extraction: FileExtraction): FileExtraction['bindings'] {
  const classes = new Set(extraction.symbols.filter((s) => s.kind === 'class' || s.kind === 'interface' || s.kind === 'type').map((s) => s.qualifiedName));
  return extraction.bindings!.filter((b) => b.scope !== null && classes.has(b.scope));
}
