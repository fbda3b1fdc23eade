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
import { Worker } from 'node:worker_threads';
import { cacheFileFor, readCacheFile, readCacheFileAsync, writeCacheFile } from './cache-file.ts';
import { buildRankTable, COUNTER_MODULES, deserializeRankTable, loadCounterModule, serializeRankTable, shippedTable, shippedTablePath, pieceSteps, tableCounter, type Core, type CountStep, type RankTable } from './token-table.ts';

type Count = ((text: string, options: { disallowedSpecial: Set<string> }) => number) & { steps?: (text: string) => CountStep };
type Ranks = (string | number[])[];
const require = createRequire(import.meta.url);
let bpeCount: Count | undefined;
/** Special-token text (`<|endoftext|>`) in a result is ordinary text to m1nd: counted, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Loads the tokenizer's tables now, not on the first count that needs them (doctor, benchmarks). */
export function warmTokenizer(): void {
  bpeCount ??= loadCount();
}

/**
 * Loads the tokenizer's tables for async code about to count, without holding the event loop for
 * long: in an event-loop turn of its own, from the cache folder's rank table (20-35 ms); with no
 * table there (a first run, or no cache folder), the table is built in a worker thread (~0.5 s of
 * CPU off this thread; core/token-table-worker.ts), then cached, and only its bytes are read here.
 * A verb that will count later can start it early without awaiting. Resolves at once when loaded.
 */
export function tokenizerReady(): Promise<void> {
  if (bpeCount) return Promise.resolve();
  return (loading ??= loadAsync().finally(() => (loading = null)));
}

let loading: Promise<void> | null = null;
/** Resolves in the event loop's next turn (after I/O and timers due): the pause between slices of work. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function loadAsync(): Promise<void> {
  await nextTurn();
  if (bpeCount) return;
  const module = require.resolve('gpt-tokenizer/bpeRanks/o200k_base');
  const tableFile = rankCacheDir === null ? null : cacheFileFor(rankCacheDir, 'gpt-tokenizer-table-o200k-', module, '.bin');
  // The cache folder's table, else the shipped one: read off this thread, then checked, wrapped and
  // warmed in turns of their own (~5–10 ms each; in one turn they held the loop 38–50 ms).
  for (const [file, load] of [[tableFile, 'table'], [shippedTablePath(), 'shipped']] as const) {
    const stored = await readCacheFileAsync(file);
    if (bpeCount) return;
    const table = typeof stored === 'string' ? null : deserializeRankTable(stored);
    if (!table) continue;
    const count = await counterInTurns(table);
    if (bpeCount) return;
    rankLoad = load;
    bpeCount = count;
    return;
  }
  // Neither table (a first run from sources, or a damaged cache): built in a worker thread, then cached.
  const built = await buildTableOffThread(tableFile);
  const table = built && !bpeCount ? deserializeRankTable(built) : null;
  if (table) {
    // As for a stored table (in the table's turn they held the loop ~60 ms in a server run from sources).
    const count = await counterInTurns(table);
    if (bpeCount) return;
    rankLoad = 'worker';
    bpeCount = count;
    return;
  }
  await nextTurn();
  bpeCount ??= loadCount(); // a table the worker could not build: the package's counter, here
  await nextTurn();
}

/**
 * The counter over `table`: each of its modules loaded, then its first count made, in event-loop
 * turns of their own (in one turn they held the loop 38–60 ms; each takes up to ~6 ms from dist/).
 */
async function counterInTurns(table: RankTable): Promise<Count> {
  for (const name of COUNTER_MODULES) {
    await nextTurn();
    loadCounterModule(name);
  }
  await nextTurn();
  const count = tableCount(table);
  count('warm the split regex and the merge loop', AS_TEXT);
  return count;
}

/** The rank table built in a worker thread and cached there in `file` (its serialised bytes), or null when that failed. */
function buildTableOffThread(file: string | null): Promise<Uint8Array | null> {
  return new Promise((resolve) => {
    try {
      const fromSource = new URL(import.meta.url).pathname.endsWith('.ts');
      const entry = new URL(fromSource ? './token-table-worker.ts' : './token-table-worker.js', import.meta.url).href;
      const code = fromSource
        ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
        : `import(${JSON.stringify(entry)});`;
      const worker = new Worker(code, { eval: true, execArgv: [], workerData: { file } });
      worker.unref();
      worker.once('message', (m: { table?: Uint8Array | null }) => {
        resolve(m.table ?? null);
        void worker.terminate();
      });
      worker.once('error', () => resolve(null));
      worker.once('exit', () => resolve(null));
    } catch {
      resolve(null);
    }
  });
}

/** The folder of the rank table's cache; null (the default) for none. The CLI sets it (core/cli.ts). */
let rankCacheDir: string | null = null;

/** Keeps a copy of the tokenizer's rank table in `dir` (core/cache-file.ts), or none with null; takes effect on the next load. */
export function useTokenizerCache(dir: string | null): void {
  rankCacheDir = dir;
}

/** The folder `useTokenizerCache` set (null: none). */
export function tokenizerCacheDir(): string | null {
  return rankCacheDir;
}

/** Forgets this thread's tables (core/tokens-async.ts `resetTokenizer`: the next count is a first one). */
export function forgetTokenizer(): void {
  bpeCount = undefined;
  rankLoad = undefined;
}

/**
 * How the tokenizer was loaded: the rank table of core/token-table.ts from the cache folder (`table`)
 * or from the one the build wrote into dist/ for the installed gpt-tokenizer (`shipped`), the
 * package's rank list from the cache folder (`cached`) or from gpt-tokenizer's module (`module`; both
 * then cache it and the table), built in a worker thread (`worker`: `tokenizerReady` with no table
 * cached; then cached), or through the package entry (a failure).
 */
export type RankLoad = 'table' | 'shipped' | 'cached' | 'module' | 'package' | 'worker';
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
    // The package's counter over a rank table kept in the cache folder (core/token-table.ts): no 200K-entry Map to build.
    const tableFile = dir === null ? null : cacheFileFor(dir, 'gpt-tokenizer-table-o200k-', module, '.bin');
    const table = cachedTable(tableFile);
    if (table) return table;
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
    const list = ranks;
    if (tableFile !== null) {
      // Built once (~0.2 s), then read in a few ms by every later process.
      const built = buildRankTable(list);
      if (built && writeCacheFile(tableFile, serializeRankTable(built))) return tableCount(built);
    }
    const { GptEncoding } = require('gpt-tokenizer/GptEncoding') as { GptEncoding: { getEncodingApi(name: string, ranks: () => Ranks): { countTokens: Count; bytePairEncodingCoreProcessor: Core } } };
    const api = GptEncoding.getEncodingApi('o200k_base', () => list);
    const count: Count = (text, options) => api.countTokens(text, options);
    count.steps = pieceSteps(api.bytePairEncodingCoreProcessor);
    return count;
  } catch {
    rankLoad = 'package';
    return (require('gpt-tokenizer') as { countTokens: Count }).countTokens;
  }
}

/** The counter over the cache folder's rank table when it holds a sound one, else over the one the build shipped (core/token-table.ts `shippedTable`). */
function cachedTable(tableFile: string | null): Count | null {
  const stored = readCacheFile(tableFile);
  const table = typeof stored === 'string' ? null : deserializeRankTable(stored);
  if (table) {
    rankLoad = 'table';
    return tableCount(table);
  }
  const shipped = shippedTable();
  if (!shipped) return null;
  rankLoad = 'shipped';
  return tableCount(shipped);
}

/** The `Count` of a rank table (options are always AS_TEXT here: special-token text counted as text). */
function tableCount(table: RankTable): Count {
  return tableCounter(table);
}

/** The loaded counter's count in steps (core/tokens-paced.ts), or undefined when none is loaded or it is the package's own (no steps). */
export function countSteps(): ((text: string) => CountStep) | undefined {
  return bpeCount?.steps;
}

/** Whether the tokenizer's tables are loaded (they load on the first count that needs them). */
export function tokenizerLoaded(): boolean {
  return bpeCount !== undefined;
}

/**
 * BPE token count of `text` with the counter `bpe`; runs longer than 256 characters of whitespace,
 * or of anything else, are counted in 256-character slices (the BPE's merges are quadratic in a
 * piece's length, and a run of whitespace, or of anything but whitespace, is one piece or feeds one:
 * 140K characters of blank lines took 13 s in one piece). This keeps a count linear, at the cost of
 * a slight miscount of such runs. Self-contained (its source also runs in the counting worker of
 * core/tokens-async.ts), so the worker's counts are this thread's.
 */
export function countWith(bpe: (s: string) => number, text: string): number {
  const MAX_RUN = 256;
  let total = 0;
  let from = 0;
  let runStart = 0;
  let runSpace = false;
  for (let i = 0; i <= text.length; i++) {
    // JavaScript's \s, as the tokenizer's split regex reads whitespace (inline: no helper function,
    // whose name a bundler would wrap in a helper the worker does not have).
    let space = false;
    if (i < text.length) {
      const c = text.charCodeAt(i);
      space = c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
    }
    if (i === 0) {
      runSpace = space;
      continue;
    }
    if (i < text.length && space === runSpace) continue;
    if (i - runStart > MAX_RUN) {
      total += bpe(text.slice(from, runStart));
      for (let k = runStart; k < i; ) {
        // A slice ends at most MAX_RUN later, never between the halves of a surrogate pair.
        let to = Math.min(i, k + MAX_RUN);
        const last = text.charCodeAt(to - 1);
        if (to < i && last >= 0xd800 && last <= 0xdbff) to--;
        total += bpe(text.slice(k, to));
        k = to;
      }
      from = i;
    }
    runStart = i;
    runSpace = space;
  }
  return from === 0 ? bpe(text) : total + bpe(text.slice(from));
}

/** BPE token count of a string; runs longer than 256 characters of one kind (whitespace or not) are counted in 256-character slices (linear time, a slight miscount). */
export function countTokens(text: string): number {
  if (!bpeCount) warmTokenizer();
  const bpe = bpeCount!;
  return countWith((s) => bpe(s, AS_TEXT), text);
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
  const steps = packSteps(items, budget, cost);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `packToTokenBudget` giving the event loop its turn through `pace` between items: counting a budget
 * of thousands of tokens exactly is tens of ms of BPE (a `scan_all` page of 5,000 tokens: ~45 ms).
 */
export async function packToTokenBudgetPaced<T>(
  items: readonly T[],
  budget: number,
  pace: () => Promise<void>,
  cost: (item: T) => number = countValueTokens,
): Promise<{ kept: T[]; report: BudgetReport }> {
  if (items.length > 0) await tokenizerReady();
  const steps = packSteps(items, budget, cost);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pace();
  }
}

function* packSteps<T>(items: readonly T[], budget: number, cost: (item: T) => number): Generator<void, { kept: T[]; report: BudgetReport }, void> {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    const c = cost(item);
    if (kept.length > 0 && used + c > budget) break;
    kept.push(item);
    used += c;
    yield;
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
