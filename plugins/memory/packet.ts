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

/**
 * Packs `sections` (in priority order) into what remains of `budget` after `fixed`; reports the whole
 * packet. Each section's first item is placed before any section's second, so a tight budget keeps
 * the best claim beside the best node instead of spending it all on nodes; then each section takes
 * what is left in priority order.
 */
export function packSections<T extends Record<string, unknown[]>>(fixed: unknown, sections: T, budget: number): { packed: T; budget: BudgetReport & { by_section: Record<string, number> } } {
  let left = budget - countValueTokens(fixed);
  const names = Object.keys(sections);
  const packed = Object.fromEntries(names.map((name) => [name, [] as unknown[]])) as Record<string, unknown[]>;
  for (const name of names) {
    const first = sections[name][0];
    if (first === undefined) continue;
    const cost = countValueTokens(first);
    if (cost > left) continue;
    packed[name].push(first);
    left -= cost;
  }
  for (const name of names) {
    // A section whose first item did not fit takes nothing more (items are kept in rank order).
    const rest = packed[name].length ? sections[name].slice(1) : [];
    if (rest.length === 0 || left <= 0) continue;
    const r = packToTokenBudget(rest, left);
    // packToTokenBudget always keeps one item; past the budget a section gives it back.
    if (r.report.used_tokens > left) continue;
    packed[name].push(...r.kept);
    left -= r.report.used_tokens;
  }
  const bySection = Object.fromEntries(names.map((name) => [name, packed[name].length]));
  const kept = names.reduce((n, name) => n + packed[name].length, 0);
  const dropped = names.reduce((n, name) => n + sections[name].length, 0) - kept;
  return { packed: packed as T, budget: { requested_tokens: budget, used_tokens: budget - left, kept, dropped, by_section: bySection } };
}
