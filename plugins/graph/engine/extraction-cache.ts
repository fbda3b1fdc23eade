/**
 * A small LRU of parsed extractions by key, for verbs that read source sites file after file.
 * Keys are content-addressed, so a cached parse never goes stale; JSON parsing dominates the cost.
 */
import type { FileExtraction } from './extraction.ts';

/** Keeps the `capacity` most recently used parsed extractions. */
export class ParsedExtractionCache {
  private readonly byKey = new Map<string, FileExtraction>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The extraction under `key` with its path set to `path`, from the cache or else from `load` (null when absent). */
  get(key: string, path: string, load: () => FileExtraction | null): FileExtraction | null {
    const hit = this.byKey.get(key);
    if (hit) {
      // Re-inserting moves the key to the most recently used end of the Map's order.
      this.byKey.delete(key);
      this.byKey.set(key, hit);
      return hit.path === path ? hit : { ...hit, path };
    }
    const ex = load();
    if (!ex) return null;
    this.byKey.set(key, ex);
    if (this.byKey.size > this.capacity) this.byKey.delete(this.byKey.keys().next().value!);
    return ex;
  }
}
