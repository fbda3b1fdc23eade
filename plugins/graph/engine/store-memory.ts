/**
 * The store's `memory` table: generic per-namespace key/value rows (JSON values) that other
 * features persist beside the graph, in the same database so one file holds a workspace's state.
 */
import type Database from 'better-sqlite3';

/** One memory entry. */
export interface MemoryEntry<T = unknown> {
  namespace: string;
  key: string;
  value: T;
  updatedAt: number;
}

/** Queries of the `memory` table. */
export class MemoryTable {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT value_json, updated_at FROM memory WHERE namespace = ? AND key = ?').raw(),
      put: db.prepare(
        // updated_at only grows per row (a write in the same millisecond adds 1): it doubles as the row's version for compare-and-swap.
        `INSERT INTO memory (namespace, key, value_json, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(namespace, key) DO UPDATE SET value_json = excluded.value_json, updated_at = MAX(excluded.updated_at, memory.updated_at + 1)
         RETURNING updated_at`,
      ).pluck(),
      delete: db.prepare('DELETE FROM memory WHERE namespace = ? AND key = ?'),
      list: db.prepare(`SELECT key, value_json, updated_at FROM memory WHERE namespace = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?`).raw(),
      stamp: db.prepare('SELECT COUNT(*), MAX(updated_at), TOTAL(LENGTH(value_json)) FROM memory WHERE namespace = ?').raw(),
      namespaces: db.prepare('SELECT namespace, COUNT(*) FROM memory GROUP BY namespace ORDER BY namespace').raw(),
    };
  }

  /** A memory value, or undefined. */
  get<T = unknown>(namespace: string, key: string): MemoryEntry<T> | undefined {
    const r = this.stmts.get.get(namespace, key) as [string, number] | undefined;
    return r ? { namespace, key, value: JSON.parse(r[0]) as T, updatedAt: r[1] } : undefined;
  }

  /** Writes a memory value (JSON-serialisable); `updatedAt` of the result grows with every write of the key. */
  set(namespace: string, key: string, value: unknown): MemoryEntry {
    const updatedAt = this.stmts.put.get(namespace, key, JSON.stringify(value ?? null), Date.now()) as number;
    return { namespace, key, value, updatedAt };
  }

  /** Deletes a memory value; false when absent. */
  delete(namespace: string, key: string): boolean {
    return this.stmts.delete.run(namespace, key).changes > 0;
  }

  /** Memory entries of a namespace whose key starts with `prefix`, in key order. */
  list<T = unknown>(namespace: string, prefix = '', limit = 1000): MemoryEntry<T>[] {
    // Range scan on the primary key: [prefix, prefix + U+FFFF).
    return (this.stmts.list.all(namespace, prefix, `${prefix}\uffff`, limit) as [string, string, number][]).map(([key, v, updatedAt]) => ({
      namespace,
      key,
      value: JSON.parse(v) as T,
      updatedAt,
    }));
  }

  /** A cheap fingerprint of a namespace (rows, newest write, bytes) that changes whenever a row of it is written or deleted. */
  stamp(namespace: string): string {
    const [rows, newest, bytes] = this.stmts.stamp.get(namespace) as [number, number | null, number];
    return `${rows}:${newest ?? 0}:${bytes}`;
  }

  /** Each namespace with its number of keys, by name. */
  namespaces(): { namespace: string; keys: number }[] {
    return (this.stmts.namespaces.all() as [string, number][]).map(([namespace, keys]) => ({ namespace, keys }));
  }
}
