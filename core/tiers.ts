/**
 * Tiers decide what tools/list advertises, never what is callable. `essential` ⊂ `full` are built
 * in; bundles and config curate them and may define named tiers.
 */
import type { VerbRecord } from './verb.ts';

export interface TierTable {
  /** Tier name → verbs it advertises (before dropping non-advertised verbs). */
  tiers: Map<string, Set<string>>;
}

/** Curation of one tier: start from another tier's set, then add and remove verbs. */
export interface TierCuration {
  extends?: string;
  add?: string[];
  remove?: string[];
  description?: string;
}

export const DEFAULT_TIER = 'essential';

/** The tier table the registrations declare: essential, full (⊇ essential) and any named tiers. */
export function declaredTierTable(records: Iterable<VerbRecord>): TierTable {
  const tiers = new Map<string, Set<string>>([
    ['essential', new Set()],
    ['full', new Set()],
  ]);
  for (const r of records) {
    for (const t of r.tiers) {
      if (!tiers.has(t)) tiers.set(t, new Set());
      tiers.get(t)!.add(r.name);
    }
    if (r.tiers.length > 0) tiers.get('full')!.add(r.name);
  }
  return { tiers };
}

/** Applies curation entries in order; returns the new table and warnings for unknown names. */
export function curateTiers(
  table: TierTable,
  curation: Record<string, TierCuration>,
  known: ReadonlySet<string>,
): { table: TierTable; warnings: string[] } {
  const tiers = new Map([...table.tiers].map(([k, v]) => [k, new Set(v)]));
  const warnings: string[] = [];
  for (const [name, c] of Object.entries(curation)) {
    let set = tiers.get(name);
    if (c.extends !== undefined) {
      const base = tiers.get(c.extends);
      if (!base) warnings.push(`tier "${name}" extends unknown tier "${c.extends}"`);
      set = new Set(base ?? []);
    }
    set ??= new Set();
    for (const v of c.add ?? []) {
      if (!known.has(v)) warnings.push(`tier "${name}" adds unknown verb "${v}"`);
      else set.add(v);
    }
    for (const v of c.remove ?? []) set.delete(v);
    tiers.set(name, set);
  }
  // full stays the union of every tier, so curation can never make a verb unreachable by tier.
  const full = tiers.get('full')!;
  for (const [name, set] of tiers) if (name !== 'full') for (const v of set) full.add(v);
  return { table: { tiers }, warnings };
}

export interface TierChoice {
  /** The tier actually advertised. */
  tier: string;
  /** What was asked for, as given. */
  requested?: string;
  /** True when the request named no known tier (then the smallest tier is used, never full). */
  unknown: boolean;
}

/** Picks the tier to advertise: case-insensitive match, else the essential tier. */
export function chooseTier(requested: string | undefined, table: TierTable, fallback = DEFAULT_TIER): TierChoice {
  if (requested === undefined || requested.trim() === '') return { tier: fallback, unknown: false };
  const want = requested.trim().toLowerCase();
  for (const name of table.tiers.keys()) if (name.toLowerCase() === want) return { tier: name, requested, unknown: false };
  return { tier: DEFAULT_TIER, requested, unknown: true };
}
