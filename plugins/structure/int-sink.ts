/** A growable Int32Array written front to back: a batch's packed result made without an object per entry. */
export class IntSink {
  data = new Int32Array(1 << 14);
  at = 0;

  /** Makes room for `n` more values (`data` may be a new array afterwards). */
  reserve(n: number): void {
    if (this.at + n <= this.data.length) return;
    const grown = new Int32Array(Math.max(this.data.length * 2, this.at + n));
    grown.set(this.data.subarray(0, this.at));
    this.data = grown;
  }

  push(value: number): void {
    this.reserve(1);
    this.data[this.at++] = value;
  }

  /** The values written, in an array of their own size. */
  done(): Int32Array<ArrayBuffer> {
    return this.data.slice(0, this.at);
  }
}
