/**
 * A preload that gives a bench process the young generation of `m1nd serve`:
 *   node --import tsx/esm --import ./bench/server-heap.mjs bench/<child>.ts
 * It holds the young generation at its initial size before the bench's modules load, as bin/m1nd.js does
 * for a server command from sources (after tsx: the start of tsx's loader thread, a new isolate, would put
 * V8's default growth back); the bench then calls `leanServerHeap()` (core/cli-heap.ts) as `serve` does.
 * M1ND_LEAN_HEAP=0: V8's default, as the server with that setting.
 */
import { setFlagsFromString } from 'node:v8';

if (process.env.M1ND_LEAN_HEAP !== '0') {
  setFlagsFromString('--semi-space-growth-factor=1');
  globalThis[Symbol.for('m1nd.youngGeneration')] = { factor: 1 };
}
