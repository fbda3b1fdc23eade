/**
 * The store's graph snapshot: the built graph of one store state in a compact binary form
 * (graph-snapshot.ts), so a load reads it instead of re-linking every stored extraction. One row
 * records the format, the generation and checker-results version it was built under, and its size;
 * the bytes are rows of at most CHUNK_BYTES, so a load reads them a chunk at a time between yields
 * (a multi-megabyte blob read at once holds the thread for tens of milliseconds). A load uses it only
 * while the key still holds; a write lands only if the key still holds when it commits.
 *
 * A write stages its chunks one short transaction each, between yields, in a range of chunk numbers
 * of its own (`meta.snapshot_chunk_base` names the range the stored snapshot's chunk 0 is at), then
 * swaps the range in and drops the other ranges in one short IMMEDIATE transaction: the writing
 * server never holds the event loop for the whole snapshot's inserts at once (one transaction of
 * every chunk was ~20–120 ms), and a reader never sees a half-written one.
 */
import { randomInt } from 'node:crypto';
import type Database from 'better-sqlite3';
import { chunksOf, type ChunkStep, type SnapshotSize } from './graph-snapshot-chunks.ts';

/** Bytes per stored chunk (a chunk's insert is one background step: 256 KB took 3–4 ms of CPU under load). */
export const CHUNK_BYTES = 128 * 1024;
/** Chunk numbers per range (a snapshot has far fewer chunks: 2^20 × 256 KB). */
const RANGE = 2 ** 20;

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
      chunk: db.prepare(`SELECT data FROM graph_snapshot_chunks WHERE seq = COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'snapshot_chunk_base'), 0) + ?`).pluck(),
      base: db.prepare(`SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'snapshot_chunk_base'`).pluck(),
      setBase: db.prepare(`INSERT INTO meta (key, value) VALUES ('snapshot_chunk_base', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      dropOthers: db.prepare('DELETE FROM graph_snapshot_chunks WHERE seq < ? OR seq >= ?'),
      dropRange: db.prepare('DELETE FROM graph_snapshot_chunks WHERE seq >= ? AND seq < ?'),
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

  /** One chunk (0 ≤ seq < chunks) of the stored snapshot's bytes, or null when missing. */
  chunk(seq: number): Buffer | null {
    return (this.stmts.chunk.get(seq) as Buffer | undefined) ?? null;
  }

  /**
   * Stores a snapshot built under `key`; false when the key no longer held at the swap (another
   * writer committed since the graph was built). Runs `putSteps` to the end.
   */
  put(format: number, key: SnapshotKey, data: Uint8Array | Iterator<ChunkStep, SnapshotSize>): boolean {
    const steps = this.putSteps(format, key, data);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * `put` as steps: each chunk (a whole blob cut in CHUNK_BYTES, or the chunks an encoder hands out
   * in any order, chunk 0 last; graph-snapshot-chunks.ts) inserted in its own transaction into a
   * fresh range (a yield point after each, and at each pause of the encoder), then one IMMEDIATE
   * transaction that checks the key still holds, points the stamp and the base at the new range and
   * deletes every other range (an earlier snapshot, a write that was interrupted). When the key moved
   * on, or the encoder throws, the staged range is deleted and nothing changes.
   */
  *putSteps(format: number, key: SnapshotKey, data: Uint8Array | Iterator<ChunkStep, SnapshotSize>): Generator<void, boolean> {
    const chunks = data instanceof Uint8Array ? chunksOf(data, CHUNK_BYTES) : data;
    const current = Number(this.stmts.base.get() ?? 0);
    let base = RANGE * randomInt(1, 2 ** 30);
    if (base === current) base += RANGE;
    const end = base + RANGE;
    try {
      let size: SnapshotSize;
      for (;;) {
        const step = chunks.next();
        if (step.done) {
          size = step.value;
          break;
        }
        const chunk = step.value;
        if (chunk) {
          // The insert in a step of its own, not after the encoder's work on the chunk (the view
          // stays valid: the encoder does not resume until the insert is done).
          yield;
          if (this.key().generation !== key.generation) {
            this.db.transaction(() => this.stmts.dropRange.run(base, end))();
            return false; // moved on meanwhile: no point staging the rest
          }
          if (chunk.seq >= RANGE) throw new Error(`graph snapshot: chunk ${chunk.seq} past the range`);
          // A staged chunk needs no fsync of its own: the swap's commit (the connection's synchronous
          // setting, FULL) syncs the log with every frame before it, and a crash before the swap leaves
          // a range the next write drops. The fsync per chunk blocked the thread for its disk wait.
          const sync = this.db.pragma('synchronous', { simple: true }) as number;
          this.db.pragma('synchronous = NORMAL');
          try {
            // The bytes are copied into the row here (the encoder reuses its buffer for the next chunk).
            this.stmts.putChunk.run(base + chunk.seq, chunk.data);
          } finally {
            this.db.pragma(`synchronous = ${sync}`);
          }
        }
        yield;
      }
      return this.db
        .transaction(() => {
          const now = this.key();
          if (now.generation !== key.generation || now.preciseVersion !== key.preciseVersion) {
            this.stmts.dropRange.run(base, end);
            return false;
          }
          this.stmts.dropOthers.run(base, end);
          this.stmts.setBase.run(String(base));
          this.stmts.put.run(format, key.generation, key.preciseVersion, size.bytes, size.chunks);
          return true;
        })
        .immediate();
    } catch (err) {
      try {
        this.db.transaction(() => this.stmts.dropRange.run(base, end))();
      } catch {
        // the store is gone or busy: the next successful write drops the staged range
      }
      throw err;
    }
  }

  /** Removes the snapshot (loads rebuild from extractions until the next one is written). */
  drop(): void {
    this.db.transaction(() => {
      this.stmts.drop.run();
      this.stmts.dropChunks.run();
    })();
  }
}
