/**
 * Child of heap-growth.test.ts: holds the build's heap growth bound (following the live heap), grows
 * the live heap in steps of plain JavaScript arrays, and prints the growing percent the bound set
 * after a full GC at each step, with the live heap then (MB), as JSON lines.
 */
import { boundHeapGrowth, heapGrowingPercent } from '../../../../../plugins/graph/engine/heap-growth.ts';

const gc = (globalThis as { gc?: () => void }).gc!;
const release = boundHeapGrowth({});
const live: number[][] = [];
const settle = () => new Promise((r) => setTimeout(r, 50));
for (const targetMb of [60, 200, 420]) {
  // Doubles in a JS array: 8 bytes each, on the V8 heap (a typed array's store would not be).
  while (process.memoryUsage().heapUsed < targetMb * 1048576) live.push(new Array(1 << 20).fill(1.5));
  gc();
  await settle();
  console.log(JSON.stringify({ liveMb: Math.round(process.memoryUsage().heapUsed / 1048576), percent: heapGrowingPercent() }));
}
release();
console.log(JSON.stringify({ released: heapGrowingPercent(), kept: live.length }));
