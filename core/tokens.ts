/**
 * Token counts with a real BPE tokenizer (o200k_base via gpt-tokenizer), never characters/4.
 * The *token budget* bounds one result; it is unrelated to the *tier* (how many verbs are advertised).
 */
import { createRequire } from 'node:module';

// The BPE ranks take ~0.4 s to load: load them on first count (or warmTokenizer), not at start-up.
const require = createRequire(import.meta.url);
let bpeCount: ((text: string) => number) | undefined;

/** Loads the tokenizer now (servers call this right after start so the first call does not wait). */
export function warmTokenizer(): void {
  bpeCount ??= (require('gpt-tokenizer') as { countTokens: (text: string) => number }).countTokens;
}

/** Longest run without whitespace given to the BPE in one piece (its merges are quadratic in a run's length). */
const MAX_RUN = 256;

/** BPE token count of a string; runs longer than 256 characters without whitespace are counted in 256-character slices (linear time, a slight over-count). */
export function countTokens(text: string): number {
  if (!bpeCount) warmTokenizer();
  const count = bpeCount!;
  let total = 0;
  let from = 0;
  let runStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13) continue;
    if (i - runStart > MAX_RUN) {
      total += count(text.slice(from, runStart));
      for (let k = runStart; k < i; k += MAX_RUN) total += count(text.slice(k, Math.min(i, k + MAX_RUN)));
      from = i;
    }
    runStart = i + 1;
  }
  return from === 0 ? count(text) : total + count(text.slice(from));
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
