/** The engine's view of the store's memory tables: what other features persist beside the graph. */
import type { GraphStore, MemoryEntry } from './store.ts';

/** Generic per-namespace memory tables in the same store (for other features). */
export interface EngineMemory {
  get<T = unknown>(namespace: string, key: string): MemoryEntry<T> | undefined;
  set(namespace: string, key: string, value: unknown): MemoryEntry;
  delete(namespace: string, key: string): boolean;
  list<T = unknown>(namespace: string, prefix?: string, limit?: number): MemoryEntry<T>[];
  transaction<T>(fn: () => T): T;
  /** A fingerprint of a namespace that changes whenever one of its rows does (for caches). */
  stamp(namespace: string): string;
}

/** The memory operations of a store, without the rest of its API. */
export function memoryView(store: GraphStore): EngineMemory {
  return {
    get: (ns, key) => store.memoryGet(ns, key),
    set: (ns, key, value) => store.memorySet(ns, key, value),
    delete: (ns, key) => store.memoryDelete(ns, key),
    list: (ns, prefix, limit) => store.memoryList(ns, prefix, limit),
    transaction: (fn) => store.transaction(fn),
    stamp: (ns) => store.memoryStamp(ns),
  };
}
