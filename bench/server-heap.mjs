/**
 * A preload that gives a bench process the young generation of `m1nd serve`:
 *   node --import ./bench/server-heap.mjs --import tsx/esm bench/<child>.ts
 * It holds the young generation at its initial size from the first line, as bin/m1nd.js does for a server
 * command; the bench then calls `leanServerHeap()` (core/cli-heap.ts) where `serve` does, once its host is up.
 * M1ND_LEAN_HEAP=0: V8's default, as the server with that setting.
 */
import { setFlagsFromString } from 'node:v8';

if (process.env.M1ND_LEAN_HEAP !== '0') {
  setFlagsFromString('--semi-space-growth-factor=1');
  globalThis[Symbol.for('m1nd.youngGeneration')] = { factor: 1 };
}
