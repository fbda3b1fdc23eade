/**
 * Token counts with a real BPE tokenizer (o200k_base via gpt-tokenizer), never characters/4.
 * The *token budget* bounds one result; it is unrelated to the *tier* (how many verbs are advertised).
 *
 * Counting costs: the tokenizer's tables take ~0.4 s to load and a count takes tens of µs even for a
 * short text. Every o200k token stands for at least one byte of UTF-8 (special tokens are never
 * produced: their text is counted as ordinary text), so a text of at most N bytes has at most N
 * tokens. `measureText` uses that bound and tokenises only what may exceed a limit.
 */
import { createRequire } from 'node:module';
import { deserialize, serialize } from 'node:v8';
import { cacheFileFor, readCacheFile, writeCacheFile } from './cache-file.ts';

type Count = (text: string, options: { disallowedSpecial: Set<string> }) => number;
type Ranks = (string | number[])[];
const require = createRequire(import.meta.url);
let bpeCount: Count | undefined;
/** Special-token text (`<|endoftext|>`) in a result is ordinary text to m1nd: counted, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Loads the tokenizer's tables now, not on the first count that needs them (doctor, benchmarks). */
export function warmTokenizer(): void {
  bpeCount ??= loadCount();
}

/** The folder of the rank table's cache; null (the default) for none. The CLI sets it (core/cli.ts). */
let rankCacheDir: string | null = null;

/** Keeps a copy of the tokenizer's rank table in `dir` (core/cache-file.ts), or none with null; takes effect on the next load. */
export function useTokenizerCache(dir: string | null): void {
  rankCacheDir = dir;
}

/** How the rank table was loaded: from the cache folder, or by evaluating gpt-tokenizer's module (then cached), or through the package entry (a failure). */
export type RankLoad = 'cached' | 'module' | 'package';
let rankLoad: RankLoad | undefined;

/** How the tokenizer's rank table was loaded (undefined until the first count that needed it). */
export function tokenizerRankLoad(): RankLoad | undefined {
  return rankLoad;
}

/**
 * gpt-tokenizer's o200k_base counter, built by the package's own `GptEncoding.getEncodingApi` (what
 * `import { countTokens } from 'gpt-tokenizer'` is) from its rank table. The table is a 2.4 MB
 * JavaScript module whose compile and evaluation cost ~0.37 s of CPU; a `v8.serialize`d copy in the
 * cache folder (`useTokenizerCache`; core/cache-file.ts: checksummed, keyed by the module file and
 * Node) loads in ~0.1 s.
 * The counts are the package's own: same code, same table. Any failure falls back to the package entry.
 */
function loadCount(): Count {
  try {
    const module = require.resolve('gpt-tokenizer/bpeRanks/o200k_base');
    const dir = rankCacheDir;
    const file = dir === null ? null : cacheFileFor(dir, 'gpt-tokenizer-o200k-', module, '.v8ser');
    const cached = readCacheFile(file);
    let ranks: Ranks | undefined;
    if (typeof cached !== 'string') {
      try {
        const value = deserialize(cached) as unknown;
        if (Array.isArray(value) && value.length > 100_000) ranks = value as Ranks;
      } catch {
        ranks = undefined;
      }
    }
    rankLoad = ranks ? 'cached' : 'module';
    if (!ranks) {
      ranks = (require(module) as { default: Ranks }).default;
      if (file !== null) writeCacheFile(file, serialize(ranks));
    }
    const table = ranks;
    const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as { GptEncoding: { getEncodingApi(name: string, ranks: () => Ranks): { countTokens: Count } } };
    return GptEncoding.getEncodingApi('o200k_base', () => table).countTokens;
  } catch {
    rankLoad = 'package';
    return (require('gpt-tokenizer') as { countTokens: Count }).countTokens;
  }
}

/** Whether the tokenizer's tables are loaded (they load on the first count that needs them). */
export function tokenizerLoaded(): boolean {
  return bpeCount !== undefined;
}

/** Longest run without whitespace given to the BPE in one piece (its merges are quadratic in a run's length). */
const MAX_RUN = 256;

/** The end of a slice starting at `from`, at most MAX_RUN long, never splitting a surrogate pair. */
function sliceEnd(text: string, from: number, end: number): number {
  let to = Math.min(end, from + MAX_RUN);
  const last = text.charCodeAt(to - 1);
  if (to < end && last >= 0xd800 && last <= 0xdbff) to--;
  return to;
}

/** BPE token count of a string; runs longer than 256 characters without whitespace are counted in 256-character slices (linear time, a slight over-count). */
export function countTokens(text: string): number {
  if (!bpeCount) warmTokenizer();
  const bpe = bpeCount!;
  const count = (s: string) => bpe(s, AS_TEXT);
  let total = 0;
  let from = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13) continue;
    if (i - runStart > MAX_RUN) {
      total += count(text.slice(from, runStart));
      for (let k = runStart; k < i; ) {
        const to = sliceEnd(text, k, i);
        total += count(text.slice(k, to));
        k = to;
      }
      from = i;
    }
    runStart = i + 1;
  }
  return from === 0 ? count(text) : total + count(text.slice(from));
}

/** UTF-8 length of a text: an upper bound of its token count. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A text's size against a token limit: its bytes always, its exact token count only when the bytes exceed the limit. */
export interface TextMeasure {
  bytes: number;
  /** Counted only when `bytes > limit` (otherwise the text cannot exceed the limit). */
  tokens?: number;
}

/** Measures a text against `limit`, tokenising it only when its byte length says it might exceed it. */
export function measureText(text: string, limit: number): TextMeasure {
  const bytes = utf8Bytes(text);
  return bytes <= limit ? { bytes } : { bytes, tokens: countTokens(text) };
}

/** Whether a measure is within `limit` tokens. */
export function withinLimit(m: TextMeasure, limit: number): boolean {
  return m.bytes <= limit || (m.tokens !== undefined && m.tokens <= limit);
}

/** BPE token count of a value as the host serializes it (compact JSON; strings as they are). */
export function countValueTokens(value: unknown): number {
  return countTokens(typeof value === 'string' ? value : JSON.stringify(value) ?? '');
}

export interface BudgetReport {
  requested_tokens: number;
  used_tokens: number;
  kept: number;
  dropped: number;
}

/**
 * Keeps the longest ranked prefix of `items` whose token cost fits `budget`; always keeps the first
 * item (so an answer is never empty), and reports what was kept, dropped and used.
 */
export function packToTokenBudget<T>(
  items: readonly T[],
  budget: number,
  cost: (item: T) => number = countValueTokens,
): { kept: T[]; report: BudgetReport } {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    const c = cost(item);
    if (kept.length > 0 && used + c > budget) break;
    kept.push(item);
    used += c;
  }
  return { kept, report: { requested_tokens: budget, used_tokens: used, kept: kept.length, dropped: items.length - kept.length } };
}

/** What `packTextsToTokenBudget` kept: `used_tokens` only when something had to be counted. */
export interface TextBudgetReport {
  requested_tokens: number;
  /** Exact BPE count of the kept items; absent when their UTF-8 bytes already fit the budget (then tokens ≤ bytes). */
  used_tokens?: number;
  used_bytes: number;
  kept: number;
  dropped: number;
}

/**
 * `packToTokenBudget` for items measured by a text, tokenising only when bytes cannot settle it:
 * every token is at least one UTF-8 byte, so items whose texts fit the budget in bytes fit it in
 * tokens, and then nothing is tokenised (nor the tokenizer's tables loaded). Otherwise every item
 * up to the cut is counted exactly. Always keeps the first item.
 */
export function packTextsToTokenBudget<T>(items: readonly T[], budget: number, text: (item: T) => string): { kept: T[]; report: TextBudgetReport } {
  const texts = items.map(text);
  const bytes = texts.map(utf8Bytes);
  const totalBytes = bytes.reduce((a, b) => a + b, 0);
  if (totalBytes <= budget) {
    return { kept: [...items], report: { requested_tokens: budget, used_bytes: totalBytes, kept: items.length, dropped: 0 } };
  }
  const kept: T[] = [];
  let used = 0;
  let usedBytes = 0;
  for (let k = 0; k < items.length; k++) {
    const c = countTokens(texts[k]);
    if (kept.length > 0 && used + c > budget) break;
    kept.push(items[k]);
    used += c;
    usedBytes += bytes[k];
  }
  return { kept, report: { requested_tokens: budget, used_tokens: used, used_bytes: usedBytes, kept: kept.length, dropped: items.length - kept.length } };
}
