/**
 * Tiers decide what tools/list advertises, never what is callable. `essential` ⊂ `full` are built
 * in; bundles and config curate them and may define named tiers.
 */
import type { VerbRecord } from './verb.ts';

export interface TierTable {
  /** Tier name → verbs it advertises (before dropping non-advertised verbs). */
  tiers: Map<string, Set<string>>;
  /** Tier name → whether its tools/list carries output schemas (curation's `outputSchemas`). */
  outputSchemas?: Map<string, boolean>;
}

/** Curation of one tier: start from another tier's set, then add and remove verbs. */
export interface TierCuration {
  extends?: string;
  add?: string[];
  remove?: string[];
  description?: string;
  /** Advertise verbs' output schemas in this tier's tools/list (default: true, false for `essential`). */
  outputSchemas?: boolean;
}

export const DEFAULT_TIER = 'essential';

/**
 * Whether a tier's tools/list carries output schemas. The essential tier is the context-budget
 * tier (its whole tools/list stays under ~6K tokens), so by default it leaves them out; results
 * carry structuredContent in every tier, and the full tier advertises every schema.
 */
export function advertisesOutputSchemas(table: TierTable, tier: string): boolean {
  return table.outputSchemas?.get(tier) ?? tier !== DEFAULT_TIER;
}

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

/**
 * Applies curation to the declared table. A curated tier is its base (`extends`, itself resolved
 * first, whatever the order of the entries) plus the verbs whose registration names it, plus `add`,
 * minus `remove`; an entry without `extends` keeps the tier's declared set. Returns warnings for
 * unknown names, cycles and contradictions, so a curation never drops a verb silently.
 */
export function curateTiers(
  table: TierTable,
  curation: Record<string, TierCuration>,
  known: ReadonlySet<string>,
): { table: TierTable; warnings: string[] } {
  const tiers = new Map([...table.tiers].map(([k, v]) => [k, new Set(v)]));
  const warnings: string[] = [];
  const done = new Map<string, Set<string>>();
  const resolving: string[] = [];

  const resolve = (name: string): Set<string> | undefined => {
    const c = curation[name];
    if (!c) return tiers.get(name);
    const finished = done.get(name);
    if (finished) return finished;
    if (resolving.includes(name)) {
      warnings.push(`tier "${name}" extends itself through ${[...resolving.slice(resolving.indexOf(name)), name].join(' → ')}; that extends is ignored`);
      return undefined;
    }
    resolving.push(name);
    const set = new Set<string>();
    if (c.extends !== undefined) {
      const base = resolve(c.extends);
      if (!base && !(c.extends in curation) && !tiers.has(c.extends)) warnings.push(`tier "${name}" extends unknown tier "${c.extends}"`);
      for (const v of base ?? []) set.add(v);
    }
    for (const v of table.tiers.get(name) ?? []) set.add(v);
    const removed = new Set(c.remove ?? []);
    for (const v of c.add ?? []) {
      if (!known.has(v)) warnings.push(`tier "${name}" adds unknown verb "${v}"`);
      else if (removed.has(v)) warnings.push(`tier "${name}" both adds and removes "${v}"; it is removed`);
      else set.add(v);
    }
    for (const v of removed) {
      if (!set.delete(v)) warnings.push(`tier "${name}" removes "${v}", which it does not have${known.has(v) ? '' : ' (unknown verb)'}`);
    }
    resolving.pop();
    done.set(name, set);
    return set;
  };

  for (const name of Object.keys(curation)) tiers.set(name, resolve(name)!);
  const outputSchemas = new Map(table.outputSchemas ?? []);
  for (const [name, c] of Object.entries(curation)) if (typeof c.outputSchemas === 'boolean') outputSchemas.set(name, c.outputSchemas);
  // full stays the union of every tier, so curation can never make a verb unreachable by tier.
  const full = tiers.get('full')!;
  for (const [name, set] of tiers) if (name !== 'full') for (const v of set) full.add(v);
  return { table: { tiers, outputSchemas }, warnings };
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
