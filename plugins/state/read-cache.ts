/**
 * The team store's read cache: results of `get`, `list` and `stamp` kept in memory (bounded, LRU by
 * rows held) and dropped when the change feed says their namespace changed. It is used only while
 * the feed is up: keys carry the feed's id (a reconnection starts afresh, since notifications may
 * have been missed meanwhile) and the namespace's generation, which every change bumps, so a read
 * that was in flight while its namespace changed is never stored. Before answering from memory it
 * waits until the feed has caught up with the last fence (the start of the current call), so a
 * write another server acknowledged before the call began is never missed; a miss goes straight
 * to the database (which answers with what is committed). Writes and reads inside
 * transactions always go to the database, so compare-and-swap still checks the real row: a stale
 * cached read can make a call lose a race (STATE_CONFLICT), never overwrite another's write.
 */
import { LRUCache } from 'lru-cache';

type Entry = { value: unknown; rows: number };

export class ReadCache {
  private readonly lru: LRUCache<string, Entry> | null;
  private readonly generations = new Map<string, number>();
  hits = 0;
  misses = 0;

  /** `maxRows` bounds the rows held (0 disables the cache); a larger single result is not kept. */
  constructor(
    readonly maxRows: number,
    private readonly feed: () => number,
    private readonly caughtUp: () => Promise<boolean>,
  ) {
    this.lru = maxRows > 0 ? new LRUCache<string, Entry>({ maxSize: maxRows, sizeCalculation: (e) => e.rows, maxEntrySize: maxRows }) : null;
  }

  private generation(namespace: string): number {
    return this.generations.get(namespace) ?? 0;
  }

  /** A change to the namespace (pushed, or written by this server): its entries are no longer served. */
  invalidate(namespace: string): void {
    this.generations.set(namespace, this.generation(namespace) + 1);
  }

  /** `read()` through the cache under (namespace, what); `rows` sizes a result. Callers get their own copy. */
  async through<T>(namespace: string, what: string, rows: (value: T) => number, read: () => Promise<T>): Promise<T> {
    const feed = this.feed();
    if (!this.lru || feed === 0) return read();
    const key = () => `${feed}\u0000${namespace}\u0000${this.generation(namespace)}\u0000${what}`;
    // A hit is served only once the feed has caught up with the call (its notifications may drop the entry);
    // a miss needs no wait: the database answers with what is committed.
    if (this.lru.has(key()) && (await this.caughtUp()) && this.feed() === feed) {
      const hit = this.lru.get(key());
      if (hit) {
        this.hits++;
        return structuredClone(hit.value) as T;
      }
    }
    this.misses++;
    const generation = this.generation(namespace);
    const value = await read();
    // Kept only if nothing changed the namespace (or the feed) while the read was in flight.
    if (this.feed() === feed && this.generation(namespace) === generation) this.lru.set(key(), { value: structuredClone(value), rows: 1 + rows(value) });
    return value;
  }

  clear(): void {
    this.lru?.clear();
  }
}
