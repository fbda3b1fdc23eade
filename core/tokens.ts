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

/** BPE token count of a string. */
export function countTokens(text: string): number {
  if (!bpeCount) warmTokenizer();
  return bpeCount!(text);
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
