/**
 * The store's on-disk layout: the SQLite schema and how the database file is opened (WAL, busy
 * timeout, durability), kept apart from the tables' queries so the layout is read in one place.
 */
import type Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// better-sqlite3 (a native addon and a dozen modules, ~15–30 ms) is required on the first open, not
// when the engine is imported: a process that opens no store (`m1nd call health`) never loads it.
const requireModule = createRequire(import.meta.url);
let sqlite: typeof Database | undefined;

/** The better-sqlite3 constructor, required on first use. */
export function sqliteDatabase(): typeof Database {
  return (sqlite ??= requireModule('better-sqlite3') as typeof Database);
}

/**
 * better-sqlite3 loads its native binary on the first `new Database`, so a package whose install
 * script never ran (npm 12 runs a dependency's install script only once approved) fails there with
 * a list of a dozen paths. This names the cause and the command that fixes it; other errors pass.
 */
export function explainSqliteLoadError(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!/Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(message)) return error;
  const first = message.split('\n')[0].replace(/\s*Tried:\s*$/, '');
  return new Error(
    `the SQLite store cannot open: better-sqlite3's native binary is missing or built for another Node (${first}). ` +
      'Its install script provides it: run `npm rebuild better-sqlite3` where m1nd is installed ' +
      '(npm 12 runs it only when approved: `npm install-scripts approve better-sqlite3`, then rebuild).',
    { cause: error },
  );
}

/** Bumped when the stored layout or the meaning of stored extractions changes. */
export const STORE_SCHEMA_VERSION = 1;

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
CREATE TABLE IF NOT EXISTS graph_snapshot (
  id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, generation INTEGER NOT NULL,
  precise_version INTEGER NOT NULL, bytes INTEGER NOT NULL, chunks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS graph_snapshot_chunks (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS ingest_stage (
  run TEXT NOT NULL, seq INTEGER NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL, language TEXT NOT NULL, loc INTEGER NOT NULL, parse_errors INTEGER NOT NULL,
  extraction_key TEXT NOT NULL, json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (run, seq));
CREATE TABLE IF NOT EXISTS parse_extensions (
  key TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL, version TEXT NOT NULL, json TEXT, PRIMARY KEY (key, path));
`;

/**
 * Page cache per connection (KiB), not better-sqlite3's 16 MB default. The main connection keeps
 * SQLite's own 2 MB: another connection's commit (the commit worker's, another process's) empties
 * it on its next read, and freeing a full 16 MB cache held the main thread 25–55 ms in that read
 * (perf; docs/benchmarks.md, stop 56). The commit worker's 4 MB: on the python3 prefix (13,665
 * files) the ingest's peak RSS fell from 597–599 to 574–587 MB against 16 MB, the persist phase
 * and the wall the same (stop 57). The OS keeps the file's pages either way.
 */
export const STORE_CACHE_KIB = { main: 2000, writer: 4000 } as const;

/** Opens (creating if needed) `<dir>/m1nd.db` in WAL mode with a busy timeout, a page cache of `cacheKib` and the schema applied. */
export function openStoreDatabase(dir: string, busyTimeoutMs = 10_000, cacheKib: number = STORE_CACHE_KIB.main): { path: string; db: Database.Database } {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    // The store is machine-local state: keep it out of the user's commits without touching their .gitignore.
    writeFileSync(join(dir, '.gitignore'), '*\n');
  }
  const path = join(dir, 'm1nd.db');
  let db: Database.Database;
  try {
    db = new (sqliteDatabase())(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw explainSqliteLoadError(error);
  }
  db.pragma('journal_mode = WAL');
  // FULL by default: memory-table writes are user data and survive power loss. Ingest commits
  // switch to NORMAL (see GraphStore.commitIngest): still atomic and crash-safe, without the fsync wait.
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  db.pragma(`cache_size = -${cacheKib}`);
  db.exec(SCHEMA);
  db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', '0'), ('precise_version', '0'), ('schema_version', ?)`).run(String(STORE_SCHEMA_VERSION));
  return { path, db };
}
