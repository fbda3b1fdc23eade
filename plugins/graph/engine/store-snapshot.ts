/**
 * The store's graph snapshot: the built graph of one store state in a compact binary form
 * (graph-snapshot.ts), so a load reads it instead of re-linking every stored extraction. One row
 * records the format, the generation and checker-results version it was built under, and its size;
 * the bytes are rows of at most CHUNK_BYTES, so a load reads them a chunk at a time between yields
 * (a multi-megabyte blob read at once holds the thread for tens of milliseconds). A load uses it only
 * while the key still holds; a write lands only if the key still holds when it commits.
 */
import type Database from 'better-sqlite3';

/** Bytes per stored chunk. */
export const CHUNK_BYTES = 256 * 1024;

/** The state a snapshot was built from: the store's generation and its checker results' version. */
export interface SnapshotKey {
  generation: number;
  preciseVersion: number;
}

/** A stored snapshot's description (its bytes are read chunk by chunk). */
export interface SnapshotStamp extends SnapshotKey {
  format: number;
  bytes: number;
  chunks: number;
}

/** Queries of the `graph_snapshot` tables. */
export class SnapshotTable {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(db: Database.Database) {
    this.db = db;
    this.stmts = {
      key: db.prepare(`SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation') AS generation, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'precise_version') AS preciseVersion`),
      stamp: db.prepare('SELECT format, generation, precise_version AS preciseVersion, bytes, chunks FROM graph_snapshot WHERE id = 1'),
      chunk: db.prepare('SELECT data FROM graph_snapshot_chunks WHERE seq = ?').pluck(),
      put: db.prepare(
        'INSERT INTO graph_snapshot (id, format, generation, precise_version, bytes, chunks) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET format = excluded.format, generation = excluded.generation, precise_version = excluded.precise_version, bytes = excluded.bytes, chunks = excluded.chunks',
      ),
      putChunk: db.prepare('INSERT INTO graph_snapshot_chunks (seq, data) VALUES (?, ?)'),
      dropChunks: db.prepare('DELETE FROM graph_snapshot_chunks'),
      drop: db.prepare('DELETE FROM graph_snapshot'),
    };
  }

  /** The store's current key (what a snapshot written now would be keyed by). */
  key(): SnapshotKey {
    const row = this.stmts.key.get() as { generation: number | null; preciseVersion: number | null };
    return { generation: Number(row.generation ?? 0), preciseVersion: Number(row.preciseVersion ?? 0) };
  }

  /** The stored snapshot's format, key and size, or null. */
  stamp(): SnapshotStamp | null {
    const row = this.stmts.stamp.get() as SnapshotStamp | undefined;
    return row ? { format: row.format, generation: Number(row.generation), preciseVersion: Number(row.preciseVersion), bytes: Number(row.bytes), chunks: Number(row.chunks) } : null;
  }

  /** One chunk of the stored snapshot's bytes, or null when missing. */
  chunk(seq: number): Buffer | null {
    return (this.stmts.chunk.get(seq) as Buffer | undefined) ?? null;
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
        this.stmts.dropChunks.run();
        let seq = 0;
        for (let at = 0; at < data.length; at += CHUNK_BYTES) this.stmts.putChunk.run(seq++, data.subarray(at, Math.min(data.length, at + CHUNK_BYTES)));
        this.stmts.put.run(format, key.generation, key.preciseVersion, data.length, seq);
        return true;
      })
      .immediate();
  }

  /** Removes the snapshot (loads rebuild from extractions until the next one is written). */
  drop(): void {
    this.db.transaction(() => {
      this.stmts.drop.run();
      this.stmts.dropChunks.run();
    })();
  }
}
