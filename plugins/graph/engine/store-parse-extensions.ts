/**
 * The `parse_extensions` table: what parse extensions (parse-extensions.ts) made of each file, one
 * row per extension key and path, with the content hash and extension version it was made from.
 * Rows are written inside an ingest's commit transaction and deleted with their file; a row whose
 * hash is not the file's current one, or whose version is not the registered one, is never served.
 */
import type Database from 'better-sqlite3';
import type { ExtensionRow } from './parse-extensions.ts';

/** Paths looked up per statement. */
const PATHS_PER_LOOKUP = 500;

const prepared = new WeakMap<Database.Database, ReturnType<typeof statements>>();

function statements(db: Database.Database) {
  return {
    put: db.prepare(
      `INSERT INTO parse_extensions (key, path, hash, version, json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(key, path) DO UPDATE SET hash = excluded.hash, version = excluded.version, json = excluded.json`,
    ),
    deletePath: db.prepare('DELETE FROM parse_extensions WHERE path = ?'),
    all: db.prepare(
      `SELECT e.path, e.json FROM parse_extensions e JOIN files f ON f.path = e.path AND f.hash = e.hash
       WHERE e.key = ? AND e.version = ? AND e.json IS NOT NULL`,
    ).raw(),
    some: db.prepare(
      `SELECT e.path, e.json FROM parse_extensions e JOIN files f ON f.path = e.path AND f.hash = e.hash
       WHERE e.key = ? AND e.version = ? AND e.json IS NOT NULL AND e.path IN (SELECT value FROM json_each(?))`,
    ).raw(),
  };
}

function stmts(db: Database.Database): ReturnType<typeof statements> {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = statements(db)));
  return s;
}

/** Writes an ingest's extension rows and drops the removed paths' rows (call inside the commit's transaction). */
export function writeExtensionRows(db: Database.Database, rows: readonly ExtensionRow[], removes: readonly string[]): void {
  if (rows.length === 0 && removes.length === 0) return;
  const s = stmts(db);
  for (const r of rows) s.put.run(r.key, r.path, r.hash, r.version, r.json);
  for (const path of removes) s.deletePath.run(path);
}

/** The stored outputs (JSON) of one extension version whose hash is their file's current one, by path. */
export function readExtensionRows(db: Database.Database, key: string, version: string, paths?: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const s = stmts(db);
  if (!paths) {
    for (const [path, json] of s.all.iterate(key, version) as IterableIterator<[string, string]>) out.set(path, json);
    return out;
  }
  for (let i = 0; i < paths.length; i += PATHS_PER_LOOKUP) {
    for (const [path, json] of s.some.iterate(key, version, JSON.stringify(paths.slice(i, i + PATHS_PER_LOOKUP))) as IterableIterator<[string, string]>) out.set(path, json);
  }
  return out;
}
