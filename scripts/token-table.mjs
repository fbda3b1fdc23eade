// Third build step (after tsc and the bundle): the tokenizer's rank table (core/token-table.ts) for the
// installed gpt-tokenizer, written into dist/core/ so that a process without a cache folder, or the first
// one with an empty cache, reads it in a few ms instead of building it (~0.5 s of CPU).
import { writeShippedTable } from '../dist/core/token-table.js';

const file = writeShippedTable();
if (file === null) console.warn('token-table: the installed gpt-tokenizer\'s ranks allow no table; the tokenizer will load from the package');
