/**
 * Builds the tokenizer's rank table (token-table.ts) off the main thread, for a first load with no
 * table in the cache folder: compiling gpt-tokenizer's 2.4 MB rank module and building the table
 * cost ~0.4–0.6 s of CPU, which on the main thread held every session's calls. Writes the table to
 * the cache file given (`workerData.file`, or none), then posts `{ table }` (serializeRankTable's
 * bytes, transferred), or `{ table: null }` when the table cannot answer as the package does (the
 * main thread then loads the package's counter itself).
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { writeCacheFile } from './cache-file.ts';
import { buildRankTable, serializeRankTable } from './token-table.ts';

const require = createRequire(import.meta.url);
const ranks = (require('gpt-tokenizer/bpeRanks/o200k_base') as { default: (string | number[])[] }).default;
const table = buildRankTable(ranks);
// Its own buffer, transferred: a copy of the 4 MB through the message held the main thread ~35 ms (writing it, ~45 ms).
const bytes = table ? new Uint8Array(serializeRankTable(table)) : null;
const file = (workerData as { file: string | null }).file;
if (bytes && file !== null) writeCacheFile(file, bytes);
parentPort!.postMessage({ table: bytes }, bytes ? [bytes.buffer] : []);
