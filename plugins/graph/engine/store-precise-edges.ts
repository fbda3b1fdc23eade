/**
 * The store's `precise_edges` table: the TS/JS type-checker pass's edges per file, kept so a restart
 * (or another process) reuses them while the file's hash and the program fingerprint still hold.
 */
import type Database from 'better-sqlite3';

/** The checker pass's edges of one TS/JS file, valid while the file's hash and the program fingerprint hold. */
export interface PreciseRow {
  path: string;
  hash: string;
  fingerprint: string;
  edgesJson: string;
}

/** Queries of the `precise_edges` table. */
export class PreciseEdgeTable {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(db: Database.Database) {
    this.db = db;
    this.stmts = {
      rows: db.prepare('SELECT path, hash, fingerprint, edges_json FROM precise_edges').raw(),
      rowsOf: db.prepare('SELECT path, hash, fingerprint, edges_json FROM precise_edges WHERE path IN (SELECT value FROM json_each(?))').raw(),
      put: db.prepare(
        'INSERT INTO precise_edges (path, hash, fingerprint, edges_json) VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, fingerprint = excluded.fingerprint, edges_json = excluded.edges_json',
      ),
      deleteOrphans: db.prepare('DELETE FROM precise_edges WHERE path NOT IN (SELECT path FROM files)'),
      // A graph snapshot records the version it was built under: any change to these rows makes it stale.
      bumpVersion: db.prepare(`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'precise_version'`),
      version: db.prepare(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'precise_version'`).pluck(),
    };
  }

  /** Every stored checker result, by path. */
  rows(): Map<string, PreciseRow> {
    const out = new Map<string, PreciseRow>();
    for (const [path, hash, fingerprint, edgesJson] of this.stmts.rows.iterate() as IterableIterator<[string, string, string, string]>) {
      out.set(path, { path, hash, fingerprint, edgesJson });
    }
    return out;
  }

  /** The stored checker results of some paths (those stored), by path: one indexed lookup each. */
  rowsOf(paths: Iterable<string>): Map<string, PreciseRow> {
    const out = new Map<string, PreciseRow>();
    const list = [...new Set(paths)];
    for (let i = 0; i < list.length; i += 500) {
      for (const [path, hash, fingerprint, edgesJson] of this.stmts.rowsOf.iterate(JSON.stringify(list.slice(i, i + 500))) as IterableIterator<[string, string, string, string]>) {
        out.set(path, { path, hash, fingerprint, edgesJson });
      }
    }
    return out;
  }

  /** Stores checker results (one transaction) and drops rows of files no longer ingested; returns the rows' version after it. */
  put(rows: readonly PreciseRow[]): number {
    return this.db
      .transaction(() => {
        for (const r of rows) this.stmts.put.run(r.path, r.hash, r.fingerprint, r.edgesJson);
        const orphans = this.stmts.deleteOrphans.run().changes;
        if (rows.length > 0 || orphans > 0) this.stmts.bumpVersion.run();
        return Number(this.stmts.version.get() ?? 0);
      })
      .immediate();
  }
}
