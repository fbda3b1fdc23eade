/**
 * The store's `graph_snapshot` row: the built graph of one store state in a compact binary form
 * (graph-snapshot.ts), so a load reads it instead of re-linking every stored extraction. The row
 * records the generation and checker-results version it was built under; a load uses it only while
 * both still hold, and a write lands only if they still hold when it commits.
 */
import type Database from 'better-sqlite3';

/** The state a snapshot was built from: the store's generation and its checker results' version. */
export interface SnapshotKey {
  generation: number;
  preciseVersion: number;
}

/** A stored snapshot: its format, key and bytes. */
export interface StoredSnapshot extends SnapshotKey {
  format: number;
  data: Buffer;
}

/** Queries of the `graph_snapshot` table. */
export class SnapshotTable {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(db: Database.Database) {
    this.db = db;
    this.stmts = {
      key: db.prepare(`SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation') AS generation, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'precise_version') AS preciseVersion`),
      stamp: db.prepare('SELECT format, generation, precise_version AS preciseVersion FROM graph_snapshot WHERE id = 1'),
      read: db.prepare('SELECT format, generation, precise_version AS preciseVersion, data FROM graph_snapshot WHERE id = 1'),
      put: db.prepare(
        'INSERT INTO graph_snapshot (id, format, generation, precise_version, data) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET format = excluded.format, generation = excluded.generation, precise_version = excluded.precise_version, data = excluded.data',
      ),
      drop: db.prepare('DELETE FROM graph_snapshot'),
    };
  }

  /** The store's current key (what a snapshot written now would be keyed by). */
  key(): SnapshotKey {
    const row = this.stmts.key.get() as { generation: number | null; preciseVersion: number | null };
    return { generation: Number(row.generation ?? 0), preciseVersion: Number(row.preciseVersion ?? 0) };
  }

  /** The stored snapshot's format and key (its bytes left unread), or null. */
  stamp(): (SnapshotKey & { format: number }) | null {
    const row = this.stmts.stamp.get() as (SnapshotKey & { format: number }) | undefined;
    return row ? { format: row.format, generation: Number(row.generation), preciseVersion: Number(row.preciseVersion) } : null;
  }

  /** The stored snapshot, or null. */
  read(): StoredSnapshot | null {
    const row = this.stmts.read.get() as StoredSnapshot | undefined;
    return row ? { format: row.format, generation: Number(row.generation), preciseVersion: Number(row.preciseVersion), data: row.data } : null;
  }

  /**
   * Stores a snapshot built under `key`, in one IMMEDIATE transaction that first checks the key
   * still holds (another writer may have committed since the graph was built); false when it did not.
   */
  put(format: number, key: SnapshotKey, data: Uint8Array): boolean {
    return this.db
      .transaction(() => {
        const now = this.key();
        if (now.generation !== key.generation || now.preciseVersion !== key.preciseVersion) return false;
        this.stmts.put.run(format, key.generation, key.preciseVersion, data);
        return true;
      })
      .immediate();
  }

  /** Removes the snapshot (loads rebuild from extractions until the next one is written). */
  drop(): void {
    this.stmts.drop.run();
  }
}
