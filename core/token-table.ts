/**
 * gpt-tokenizer's o200k_base counter without building its 200K-entry Map. Building the package's
 * encoder costs ~0.25–0.35 s of CPU on every process start (200K strings hashed into a Map; a
 * `v8.serialize`d Map costs the same to read back), and a `m1nd call` of a verb that packs results to
 * a token budget paid it every time. Here the package's own `BytePairEncodingCore` (its split regex,
 * special tokens, merge loop and merge cache) runs over a *rank table*: every token's bytes, and an
 * open-addressing hash index over them, in three typed arrays built once from the package's rank list
 * and kept in the cache folder (~4 MB, read in a few ms). Only the two lookups the core makes are
 * replaced (a piece as a string, a byte pair as bytes), and they answer what the package's own would:
 * a well-formed string is looked up by its UTF-8 bytes (a string with a lone surrogate is in no
 * token: the package's Map does not hold it either), and bytes by their bytes. That is the package's
 * answer only when no byte-array token is valid UTF-8 (the package looks those up as strings) and no
 * two tokens share their bytes; `buildRankTable` checks both and returns null otherwise (the caller
 * then uses the package as it is). test/core/token-table.test.ts compares the counts with the package's.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCacheFile, withHeader } from './cache-file.ts';

const require = createRequire(import.meta.url);

type Ranks = (string | number[])[];

/** The table: `bytes[offsets[r] .. offsets[r + 1]]` are token r's bytes; `index` holds rank + 1 per slot (0: empty). */
export interface RankTable {
  offsets: Uint32Array;
  bytes: Uint8Array;
  index: Int32Array;
}

/** No lone surrogate (`String.prototype.isWellFormed`, Node 20; not in this project's TypeScript lib). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], FNV_PRIME);
  return h >>> 0;
}

/** Builds the table from the package's rank list; null when its lookups would not answer as the package's do. */
export function buildRankTable(ranks: Ranks): RankTable | null {
  // The package's own test of which byte keys it looks up as strings.
  const { tryConvertToString } = require('gpt-tokenizer/cjs/utfUtil') as { tryConvertToString(b: Uint8Array): string | undefined };
  const encoded: (Uint8Array | undefined)[] = new Array(ranks.length);
  const unreachable = new Set<number>();
  let total = 0;
  for (let r = 0; r < ranks.length; r++) {
    const v = ranks[r];
    if (v === undefined || v === null) continue;
    // A string token with a lone surrogate has no UTF-8 bytes of its own: the lookups below would differ.
    if (typeof v === 'string' && !wellFormed(v)) return null;
    const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : Uint8Array.from(v);
    encoded[r] = b;
    total += b.length;
    // A byte-array token that is valid UTF-8 (o200k has 9, each starting with a byte-order mark) the
    // package looks up as a decoded string, which its Map does not hold: it never finds them. Neither does the index.
    if (typeof v !== 'string' && tryConvertToString(b) !== undefined) unreachable.add(r);
  }
  const offsets = new Uint32Array(ranks.length + 1);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (let r = 0; r < ranks.length; r++) {
    offsets[r] = at;
    const b = encoded[r];
    if (b) {
      bytes.set(b, at);
      at += b.length;
    }
  }
  offsets[ranks.length] = at;
  let capacity = 1;
  while (capacity < ranks.length * 2) capacity <<= 1;
  const index = new Int32Array(capacity);
  const table = { offsets, bytes, index };
  for (let r = 0; r < ranks.length; r++) {
    const b = encoded[r];
    if (!b || unreachable.has(r)) continue;
    // Two tokens with the same bytes: the package's answer would depend on its Map's insertion order.
    if (lookup(table, b, 0, b.length) !== undefined) return null;
    let slot = hashBytes(b, 0, b.length) & (capacity - 1);
    while (index[slot] !== 0) slot = (slot + 1) & (capacity - 1);
    index[slot] = r + 1;
  }
  return table;
}

/** The rank of the token whose bytes are `key[from..to)`, or undefined. */
export function lookup(table: RankTable, key: Uint8Array, from: number, to: number): number | undefined {
  const { offsets, bytes, index } = table;
  const mask = index.length - 1;
  const len = to - from;
  for (let slot = hashBytes(key, from, to) & mask; ; slot = (slot + 1) & mask) {
    const entry = index[slot];
    if (entry === 0) return undefined;
    const r = entry - 1;
    const start = offsets[r];
    if (offsets[r + 1] - start !== len) continue;
    let same = true;
    for (let i = 0; i < len; i++) {
      if (bytes[start + i] !== key[from + i]) {
        same = false;
        break;
      }
    }
    if (same) return r;
  }
}

const NOT_ASCII = -1;

/** `lookup` of an ASCII string's bytes without encoding it (most pieces); NOT_ASCII for any other string. */
function lookupAscii(table: RankTable, key: string): number | undefined {
  let h = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) return NOT_ASCII;
    h = Math.imul(h ^ c, FNV_PRIME);
  }
  const { offsets, bytes, index } = table;
  const mask = index.length - 1;
  const len = key.length;
  for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
    const entry = index[slot];
    if (entry === 0) return undefined;
    const r = entry - 1;
    const start = offsets[r];
    if (offsets[r + 1] - start !== len) continue;
    let i = 0;
    while (i < len && bytes[start + i] === key.charCodeAt(i)) i++;
    if (i === len) return r;
  }
}

/** The table as one buffer (for the cache folder): three lengths, then the arrays. */
export function serializeRankTable(t: RankTable): Buffer {
  const head = new Uint32Array([t.offsets.length, t.bytes.length, t.index.length, 0]);
  return Buffer.concat([Buffer.from(head.buffer), Buffer.from(t.offsets.buffer, t.offsets.byteOffset, t.offsets.byteLength), Buffer.from(t.index.buffer, t.index.byteOffset, t.index.byteLength), Buffer.from(t.bytes)]);
}

/** A table read back from `serializeRankTable`'s buffer (views on it, or on an aligned copy), or null when its lengths do not add up. */
export function deserializeRankTable(buf: Uint8Array): RankTable | null {
  if (buf.length < 16) return null;
  // Typed-array views need 4-byte alignment: a cache file's payload (core/cache-file.ts) usually has it.
  const b = buf.byteOffset % 4 === 0 ? buf : Uint8Array.from(buf);
  const [n, nb, ni] = new Uint32Array(b.buffer, b.byteOffset, 4);
  if (16 + n * 4 + ni * 4 + nb !== b.length || n === 0 || ni === 0 || (ni & (ni - 1)) !== 0) return null;
  const offsets = new Uint32Array(b.buffer, b.byteOffset + 16, n);
  const index = new Int32Array(b.buffer, b.byteOffset + 16 + n * 4, ni);
  const bytes = new Uint8Array(b.buffer, b.byteOffset + 16 + n * 4 + ni * 4, nb);
  if (offsets[n - 1] !== nb) return null;
  return { offsets, bytes, index };
}

export type Core = {
  getBpeRankFromString(key: string): number | undefined;
  getBpeRankFromBytes(key: Uint8Array): number | undefined;
  countNative(text: string, allowedSpecial?: Set<string>): number;
  bytePairEncode(piece: string): number[];
  tokenSplitRegex: RegExp;
};

/**
 * A count made in steps: each call counts pieces until `performance.now()` reaches `until` (checked
 * every 256 pieces) and says whether the text is done; `tokens` is the count so far.
 */
export type CountStep = (until: number) => { tokens: number; done: boolean };

/** A table's count, and the same count made in steps (core/tokens.ts `countTokensPaced`). */
export interface TableCount {
  (text: string): number;
  steps(text: string): CountStep;
}

/**
 * The count of a BytePairEncodingCore (gpt-tokenizer's, or `tableCounter`'s) made in steps:
 * `countNative` with no special token allowed walks every piece of the split regex over the whole
 * text (one token when the piece is a rank, else its merges); this is the same walk, resumable.
 */
export function pieceSteps(core: Pick<Core, 'getBpeRankFromString' | 'bytePairEncode' | 'tokenSplitRegex'>): (text: string) => CountStep {
  return (text) => {
    const pieces = text.matchAll(core.tokenSplitRegex);
    let tokens = 0;
    return (until) => {
      for (let n = 1; ; n++) {
        if ((n & 255) === 0 && performance.now() >= until) return { tokens, done: false };
        const next = pieces.next();
        if (next.done) return { tokens, done: true };
        const piece = next.value[0];
        tokens += core.getBpeRankFromString(piece) !== undefined ? 1 : core.bytePairEncode(piece).length;
      }
    };
  };
}

/**
 * The package's o200k_base count over `table`: `count(text)` equals gpt-tokenizer's
 * `countTokens(text, { disallowedSpecial: new Set() })` (special-token text counted as text).
 */
export function tableCounter(table: RankTable): TableCount {
  const { BytePairEncodingCore } = require('gpt-tokenizer/cjs/BytePairEncodingCore') as { BytePairEncodingCore: new (params: object) => Core };
  const { getEncodingParams } = require('gpt-tokenizer/cjs/modelParams') as { getEncodingParams(name: string, ranks: () => Ranks): Record<string, unknown> };
  // The split regex and special tokens of o200k_base, without its ranks (the table stands for them).
  const params = getEncodingParams('o200k_base', () => []);
  const core = new BytePairEncodingCore({ ...params, bytePairRankDecoder: [] });
  const encoder = new TextEncoder();
  core.getBpeRankFromString = (key) => {
    const ascii = lookupAscii(table, key);
    if (ascii !== NOT_ASCII) return ascii;
    if (!wellFormed(key)) return undefined;
    const b = encoder.encode(key);
    return lookup(table, b, 0, b.length);
  };
  // The package decodes a valid UTF-8 key to a string (TextDecoder drops one leading byte-order mark)
  // and looks that up; the index holds every other key by its bytes.
  const { tryConvertToString } = require('gpt-tokenizer/cjs/utfUtil') as { tryConvertToString(b: Uint8Array): string | undefined };
  core.getBpeRankFromBytes = (key) => {
    const bom = key.length >= 3 && key[0] === 0xef && key[1] === 0xbb && key[2] === 0xbf && tryConvertToString(key) !== undefined;
    return lookup(table, key, bom ? 3 : 0, key.length);
  };
  const count = (text: string) => core.countNative(text);
  count.steps = pieceSteps(core);
  return count;
}

/**
 * The table as the build writes it into dist/ (scripts/token-table.mjs), named by the installed
 * gpt-tokenizer's version: a process with no cache folder, or a first run with an empty one, reads it
 * in a few ms instead of building it (~0.5 s of CPU, in a worker thread or on this one).
 */
export function shippedTableName(): string {
  return `o200k-table-${(require('gpt-tokenizer/package.json') as { version: string }).version}.bin`;
}

/** The folder the build writes the table to: this module's own (dist/core/ when built). */
function shippedTableDir(): string {
  return fileURLToPath(new URL('.', import.meta.url));
}

/** Where the build ships the table for the installed gpt-tokenizer, or null when the package cannot be read. */
export function shippedTablePath(dir = shippedTableDir()): string | null {
  try {
    return join(dir, shippedTableName());
  } catch {
    return null;
  }
}

/** The modules `tableCounter` uses; the first load of each costs up to ~6 ms from dist/ (~14 ms through the TypeScript loader). */
export const COUNTER_MODULES = ['gpt-tokenizer/cjs/BytePairEncodingCore', 'gpt-tokenizer/cjs/modelParams', 'gpt-tokenizer/cjs/utfUtil'] as const;

/** Loads one of COUNTER_MODULES (async callers load each in a turn of its own). */
export function loadCounterModule(name: (typeof COUNTER_MODULES)[number]): void {
  require(name);
}

/** The table shipped for the installed gpt-tokenizer in `dir`, or null (none built, another version's, or damaged). */
export function shippedTable(dir = shippedTableDir()): RankTable | null {
  const file = shippedTablePath(dir);
  if (file === null) return null;
  const stored = readCacheFile(file);
  return typeof stored === 'string' ? null : deserializeRankTable(stored);
}

/** Builds the table from the installed gpt-tokenizer and writes it into `dir` (readable by all: it ships); its path, or null when the package's ranks do not allow one. */
export function writeShippedTable(dir = shippedTableDir()): string | null {
  const table = buildRankTable((require('gpt-tokenizer/bpeRanks/o200k_base') as { default: Ranks }).default);
  if (!table) return null;
  const file = join(dir, shippedTableName());
  writeFileSync(file, withHeader(serializeRankTable(table)), { mode: 0o644 });
  return file;
}
