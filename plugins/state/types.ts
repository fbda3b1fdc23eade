/**
 * The state store: namespaced rows (JSON values) with a version per row, what the memory, lock,
 * trail and mission families persist. Two implementations: the embedded SQLite store (the graph
 * store's `memory` table, the default) and PostgreSQL (a team store shared by many servers).
 */

/** One stored row. `version` grows with every write of the key (compare-and-swap compares it). */
export interface StateRow<T = unknown> {
  namespace: string;
  key: string;
  value: T;
  version: number;
  updatedAt: number;
}

/** A write condition: `ifVersion: null` writes only when the key is absent, a number only when the row has that version. */
export interface WriteCondition {
  ifVersion?: number | null;
}

/** The row operations, on the store or inside one of its transactions. */
export interface StateOps {
  get<T = unknown>(namespace: string, key: string): Promise<StateRow<T> | undefined>;
  /** Rows of a namespace whose key starts with `prefix`, in key order. */
  list<T = unknown>(namespace: string, prefix?: string, limit?: number): Promise<StateRow<T>[]>;
  /** Writes a row; null when the condition does not hold (nothing written). In a transaction, the row's version is final once it commits. */
  put<T = unknown>(namespace: string, key: string, value: T, when?: WriteCondition): Promise<StateRow<T> | null>;
  /** Deletes a row; false when absent or the condition does not hold. */
  delete(namespace: string, key: string, when?: WriteCondition): Promise<boolean>;
}

/** A change another process (or this one) made, as pushed to listeners. */
export interface StateChange {
  namespace: string;
  key: string;
  op: 'put' | 'delete';
  /** True when it came from another server (PostgreSQL NOTIFY). */
  remote: boolean;
}

/** What health and doctor report about a store. */
export interface StoreStatus {
  kind: 'sqlite' | 'postgres';
  /** The store's address without credentials (PostgreSQL) or its folder (SQLite). */
  location: string;
  schema_version: number | null;
  /** Newest schema this server knows; a store ahead of it is read-only for this server. */
  known_schema_version: number | null;
  connected: boolean;
  round_trip_ms: number | null;
  /** SQLite: false while the store file does not exist yet (the first write creates it). */
  created?: boolean;
  repository?: string;
  /** The read cache (PostgreSQL): rows it may hold, reads served from memory and from the database since start. */
  read_cache?: { max_rows: number; hits: number; misses: number; feed_live: boolean };
  error?: string;
}

export interface StateStore extends StateOps {
  readonly kind: 'sqlite' | 'postgres';
  /** True when other machines share this store (team store). */
  readonly shared: boolean;
  /**
   * The change feed: 0 while other servers' writes are not pushed to `onChange` (SQLite, or the
   * PostgreSQL feed down), otherwise a number that changes each time the feed (re)connects — a
   * cache that trusts `onChange` is valid only while this stays the same non-zero value.
   */
  readonly feed: number;
  /**
   * Marks the start of a call: reads after it must see every write committed (on any server)
   * before this moment. The state plugin calls it before every verb.
   */
  fence(): void;
  /**
   * True once the change feed has delivered every change committed before the last fence (a round
   * trip on the feed's connection, shared by concurrent callers); false when there is no feed or it
   * failed — then a cache must not be trusted for this read.
   */
  caughtUp(): Promise<boolean>;
  /** Runs `fn` in one transaction: all its writes or none. */
  transaction<T>(fn: (tx: StateOps) => Promise<T>): Promise<T>;
  /** A fingerprint of a namespace that changes whenever one of its rows does (for caches). */
  stamp(namespace: string): Promise<string>;
  /** Listens to changes; returns the unsubscribe function. */
  onChange(listener: (change: StateChange) => void): () => void;
  status(): Promise<StoreStatus>;
  close(): Promise<void>;
}

/** The `state` service: the team store (PostgreSQL when configured) and the local one (always SQLite). */
export interface StateService {
  /** Team state: claims of project/team scope, locks, trails, missions, learned feedback. */
  readonly team: StateStore;
  /** Machine-local state (private claims); the same object as `team` when no team store is configured. */
  readonly local: StateStore;
}
