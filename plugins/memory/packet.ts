/**
 * Packing a packet into a token budget: sections of ranked items share one budget, the most
 * important section first, each item kept or dropped whole (packToTokenBudget per section).
 */
import { AgentId, countValueTokens, packToTokenBudget, Type, type BudgetReport } from '../../core/index.ts';
import { TierParam } from './scopes.ts';

/** Default budget of packet verbs: answers stay under ~2K tokens. */
export const DEFAULT_PACKET_TOKENS = 1500;
export const MAX_PACKET_TOKENS = 8000;

/** The parameters of the task packets (orient, north): the task, how many nodes, where, which memory, how big. */
export const TaskPacketParams = {
  agent_id: AgentId,
  task: Type.String({ minLength: 1 }),
  top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 8 })),
  scope: Type.Optional(Type.String({ description: 'Path prefix' })),
  tier: Type.Optional(TierParam),
  token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: MAX_PACKET_TOKENS, default: DEFAULT_PACKET_TOKENS })),
};

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
