/** A binary max-heap of (key, node index) pairs in typed arrays; duplicates allowed (callers skip stale pops). */
export class MaxHeap {
  private keys: Float64Array;
  private vals: Int32Array;
  size = 0;
  /** Key of the last popped entry. */
  lastKey = 0;

  constructor(capacity = 1024) {
    this.keys = new Float64Array(capacity);
    this.vals = new Int32Array(capacity);
  }

  /** Empties the heap (keeps its storage). */
  clear(): void {
    this.size = 0;
  }

  /** The largest key, or -Infinity when empty. */
  peekKey(): number {
    return this.size > 0 ? this.keys[0] : -Infinity;
  }

  /** Adds an entry. */
  push(key: number, val: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const vals = this.vals;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p] >= key) break;
      keys[i] = keys[p];
      vals[i] = vals[p];
      i = p;
    }
    keys[i] = key;
    vals[i] = val;
  }

  /** Removes the entry with the largest key and returns its value (its key is left in `lastKey`). */
  pop(): number {
    const keys = this.keys;
    const vals = this.vals;
    const top = vals[0];
    this.lastKey = keys[0];
    const n = --this.size;
    if (n > 0) {
      const key = keys[n];
      const val = vals[n];
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && keys[r] > keys[l] ? r : l;
        if (keys[c] <= key) break;
        keys[i] = keys[c];
        vals[i] = vals[c];
        i = c;
      }
      keys[i] = key;
      vals[i] = val;
    }
    return top;
  }

  private grow(): void {
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    const vals = new Int32Array(this.vals.length * 2);
    vals.set(this.vals);
    this.keys = keys;
    this.vals = vals;
  }
}

/**
 * Per-node work arrays reused across queries: an epoch stamp says which entries belong to the
 * current run, so starting a run is O(1) instead of clearing O(nodes). Algorithms are synchronous,
 * so one module-level instance per algorithm is enough.
 */
export class NodeScratch {
  capacity = 0;
  private epoch = 0;
  stamp = new Uint32Array(0);
  done = new Uint32Array(0);
  value = new Float64Array(0);
  depth = new Uint16Array(0);
  parent = new Int32Array(0);
  parentEdge = new Int32Array(0);
  backward = new Uint8Array(0);
  origin = new Int32Array(0);
  cross = new Float64Array(0);
  seed = new Uint32Array(0);
  readonly heap = new MaxHeap();

  /** Starts a run over a graph with `capacity` node slots; returns the run's epoch. */
  begin(capacity: number): number {
    if (capacity > this.capacity) {
      const c = Math.max(capacity, Math.ceil(this.capacity * 1.5));
      this.capacity = c;
      this.stamp = new Uint32Array(c);
      this.done = new Uint32Array(c);
      this.value = new Float64Array(c);
      this.depth = new Uint16Array(c);
      this.parent = new Int32Array(c);
      this.parentEdge = new Int32Array(c);
      this.backward = new Uint8Array(c);
      this.origin = new Int32Array(c);
      this.cross = new Float64Array(c);
      this.seed = new Uint32Array(c);
      this.epoch = 0;
    }
    if (this.epoch >= 0xfffffff0) {
      this.stamp.fill(0);
      this.done.fill(0);
      this.seed.fill(0);
      this.epoch = 0;
    }
    this.heap.clear();
    return ++this.epoch;
  }

  /** The current epoch. */
  get current(): number {
    return this.epoch;
  }
}
