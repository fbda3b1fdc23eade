/**
 * Packing a packet into a token budget: sections of ranked items share one budget, the most
 * important section first, each item kept or dropped whole (packToTokenBudget per section).
 */
import { countValueTokens, packToTokenBudget, type BudgetReport } from '../../core/index.ts';

/** Default budget of packet verbs: answers stay under ~2K tokens. */
export const DEFAULT_PACKET_TOKENS = 1500;
export const MAX_PACKET_TOKENS = 8000;

/** Packs `sections` (in priority order) into what remains of `budget` after `fixed`; reports the whole packet. */
export function packSections<T extends Record<string, unknown[]>>(fixed: unknown, sections: T, budget: number): { packed: T; budget: BudgetReport & { by_section: Record<string, number> } } {
  let left = budget - countValueTokens(fixed);
  let dropped = 0;
  let kept = 0;
  const bySection: Record<string, number> = {};
  const packed = {} as Record<string, unknown[]>;
  for (const [name, items] of Object.entries(sections)) {
    if (items.length === 0 || left <= 0) {
      packed[name] = [];
      dropped += items.length;
      bySection[name] = 0;
      continue;
    }
    const r = packToTokenBudget(items, left);
    // packToTokenBudget always keeps one item; past the budget a section gives it back.
    const fits = r.report.used_tokens <= left ? r.kept : [];
    packed[name] = fits;
    left -= fits === r.kept ? r.report.used_tokens : 0;
    kept += fits.length;
    dropped += items.length - fits.length;
    bySection[name] = fits.length;
  }
  return { packed: packed as T, budget: { requested_tokens: budget, used_tokens: budget - left, kept, dropped, by_section: bySection } };
}
