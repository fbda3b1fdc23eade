/**
 * Child of heap-growth.test.ts: keeps ~40 MB live, then allocates garbage that survives a few
 * scavenges (so it is promoted and dies in the old generation), with or without the build's heap
 * growth bound. Prints the peak heap and the live heap after a full GC, in MB, as JSON.
 */
import { boundHeapGrowth } from '../../../../../plugins/graph/engine/heap-growth.ts';

const release = process.argv[2] === 'bounded' ? boundHeapGrowth({}) : () => {};
const live: { a: number; b: string }[][] = [];
for (let i = 0; i < 200; i++) live.push(Array.from({ length: 2000 }, (_, j) => ({ a: j, b: `x${j}` })));
let peak = 0;
const ring: ({ a: number }[] | null)[] = new Array(300).fill(null);
for (let i = 0; i < 12_000; i++) {
  ring[i % ring.length] = Array.from({ length: 1000 }, (_, j) => ({ a: j }));
  if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  peak = Math.max(peak, process.memoryUsage().heapUsed);
}
ring.fill(null);
release();
(globalThis as { gc?: () => void }).gc?.();
const mb = (b: number): number => Math.round(b / 1048576);
console.log(JSON.stringify({ peak: mb(peak), live: mb(process.memoryUsage().heapUsed), kept: live.length }));
