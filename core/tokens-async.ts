/**
 * Token counts nobody waits on, off the main thread: a worker thread loads the tokenizer's tables
 * once per process and counts there (core/tokens.ts counts the same way on this thread).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { cacheFileFor, readCacheFile, writeCacheFile } from './cache-file.ts';
import { countTokens, countWith, forgetTokenizer, tokenizerCacheDir, tokenizerLoaded } from './tokens.ts';

const require = createRequire(import.meta.url);

/**
 * The counting worker's code (evaluated as CommonJS in a worker thread): builds the same counter as
 * `loadCount` from the rank table the main thread hands over (the cache folder's copy, already
 * checked) or from gpt-tokenizer's module (then sends the table back, serialised, for the cache),
 * and answers `{ id, text }` with `{ id, tokens }`.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { deserialize, serialize } = require('node:v8');
const countWith = ${countWith.toString()};
let ranks;
if (workerData.cached) {
  try {
    const value = deserialize(workerData.cached);
    if (Array.isArray(value) && value.length > 100000) ranks = value;
  } catch {}
}
if (!ranks) {
  ranks = require(workerData.rankModule).default;
  if (workerData.writeCache) parentPort.postMessage({ ranks: serialize(ranks) });
}
const table = ranks;
const api = require(workerData.encodingModule).GptEncoding.getEncodingApi('o200k_base', () => table);
const asText = { disallowedSpecial: new Set() };
const bpe = (s) => api.countTokens(s, asText);
parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, tokens: countWith(bpe, m.text) }));
`;

interface CountingWorker {
  worker: Worker;
  waiting: Map<number, { resolve: (n: number) => void; text: string }>;
  next: number;
}
let counter: CountingWorker | null | undefined;

/** The counting worker, started on first use; null when it cannot run (counts then happen on this thread). */
function countingWorker(): CountingWorker | null {
  if (counter !== undefined) return counter;
  try {
    const rankModule = require.resolve('gpt-tokenizer/bpeRanks/o200k_base');
    const dir = tokenizerCacheDir();
    const file = dir === null ? null : cacheFileFor(dir, 'gpt-tokenizer-o200k-', rankModule, '.v8ser');
    const cached = readCacheFile(file);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Not the parent's flags: `--input-type=module` would evaluate this CommonJS source as a module.
      execArgv: [],
      workerData: { rankModule, encodingModule: require.resolve('gpt-tokenizer/GptEncoding'), cached: typeof cached === 'string' ? null : cached, writeCache: file !== null },
    });
    const state: CountingWorker = { worker, waiting: new Map(), next: 0 };
    worker.on('message', (m: { id?: number; tokens?: number; ranks?: Uint8Array }) => {
      if (m.ranks && file !== null) writeCacheFile(file, m.ranks);
      if (m.id === undefined) return;
      const w = state.waiting.get(m.id);
      state.waiting.delete(m.id);
      w?.resolve(m.tokens!);
      if (state.waiting.size === 0) worker.unref();
    });
    // A worker that fails (no threads, an unreadable module): this count and the next happen here.
    const fail = () => {
      if (counter === state) counter = null;
      for (const w of state.waiting.values()) w.resolve(countTokens(w.text));
      state.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    worker.unref();
    counter = state;
  } catch {
    counter = null;
  }
  return counter;
}

/**
 * A text's BPE count (`countTokens`'s) without holding the event loop for the tokenizer's tables:
 * counted here when this thread has them loaded, else in a worker thread that loads them once per
 * process (~0.3–0.5 s of CPU off the main thread) and counts there. For counts nobody waits on
 * (the dashboard's statistics).
 */
export function countTokensAsync(text: string): Promise<number> {
  if (tokenizerLoaded()) return Promise.resolve(countTokens(text));
  const w = countingWorker();
  if (!w) return Promise.resolve(countTokens(text));
  return new Promise((resolve) => {
    const id = w.next++;
    w.waiting.set(id, { resolve, text });
    w.worker.ref();
    w.worker.postMessage({ id, text });
  });
}

/** Stops the counting worker and forgets this thread's tables (tests: the next count is a first one). */
export async function resetTokenizer(): Promise<void> {
  forgetTokenizer();
  const w = counter;
  counter = undefined;
  if (w) await w.worker.terminate();
}

