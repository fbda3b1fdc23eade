/**
 * The catalog is the set of verb registrations. One compile per (tier, mode) produces a surface:
 * the tools/list payload, the dispatch map, the help index and the counts. They come from the same
 * compile, so they cannot drift apart.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { advertisesOutputSchemas, type TierChoice, type TierTable } from './tiers.ts';
import { staticEffect, strongestEffect, type VerbRecord } from './verb.ts';
import { mustPass } from './validation.ts';
import { boundInputSchema, isDefaultBound } from './input-bounds.ts';
import type { Workflow } from './hooks.ts';

export interface HelpEntry {
  name: string;
  family: string;
  plugin: string;
  description: string;
  effect: string;
  /** Tiers that advertise this verb (empty for never-advertised verbs). */
  advertisedIn: string[];
  advertisedNow: boolean;
  replacedBy?: string;
}

export interface Surface {
  tier: string;
  readOnly: boolean;
  /** tools/list payload, in catalog order. */
  tools: Tool[];
  advertised: ReadonlySet<string>;
  /** Every registered verb: a tier trims what is advertised, never what is callable. */
  dispatch: ReadonlyMap<string, VerbRecord>;
  help: ReadonlyMap<string, HelpEntry>;
  counts: { registry: number; advertised: number; unadvertised: number; byFamily: Record<string, number> };
}

export interface QuarantineRecord {
  plugin: string;
  code: string;
  check: string;
  message: string;
  origin?: string;
  /** Verbs the plugin declared (`verbs`) or registered before it failed: calls to them name this record. */
  verbs?: string[];
}

export interface HostStatus {
  generation: number;
  serving_generation: number;
  last_reload_error?: { generation: number; error?: string; at: string };
}

/** What plugins may read of the catalog (host verbs such as help and health use it). */
export interface CatalogView {
  records(): VerbRecord[];
  get(name: string): VerbRecord | undefined;
  /** The surface being served (selected tier, current mode). */
  surface(): Surface;
  /** The surface of another tier (same mode). */
  surfaceFor(tier: string): Surface;
  tierTable(): TierTable;
  tierChoice(): TierChoice;
  tierWarnings(): string[];
  plugins(): { name: string; version: string; origin?: string; family: string; requires: string[] }[];
  quarantined(): QuarantineRecord[];
  workflows(): Workflow[];
  /** The serving generation and the last failed reload, if the newest attempt failed. */
  hostStatus(): HostStatus;
  /** The health sections other plugins contribute through the `health` hook (e.g. the graph's state). */
  statusReport(): Promise<Record<string, unknown>>;
  /** Up to `max` registered verb names close to `name` (hidden verbs included). */
  suggest(name: string, max?: number): string[];
  /** The taps on the serving generation's `gate` hook, in the order they run (for doctor). */
  gateTaps(): { name: string; stage: number }[];
}

/** The registry: verb records in registration order. */
export class Catalog {
  private readonly byName = new Map<string, VerbRecord>();

  add(record: VerbRecord): void {
    boundInputSchema(record.input);
    this.byName.set(record.name, record);
  }

  get(name: string): VerbRecord | undefined {
    return this.byName.get(name);
  }

  all(): VerbRecord[] {
    return [...this.byName.values()];
  }

  names(): Set<string> {
    return new Set(this.byName.keys());
  }

  get size(): number {
    return this.byName.size;
  }
}

/**
 * MCP annotations derived from a verb's effect and, for effects that depend on the arguments, the
 * strongest case (`persist` load replaces the graph: destructive, though `status` is a read). A read
 * verb says readOnlyHint only (destructiveHint is moot then); others say destructiveHint explicitly,
 * since MCP's default for a non-read-only tool is destructive. openWorldHint is stated because its
 * default is true, and m1nd's verbs stay within the workspace unless a verb says otherwise.
 */
export function annotationsFor(verb: VerbRecord): NonNullable<Tool['annotations']> {
  const e = strongestEffect(verb);
  const title = verb.title ?? titleOf(verb.name);
  if (e === 'read') return { title, readOnlyHint: true, openWorldHint: verb.openWorld ?? false };
  return { title, readOnlyHint: false, destructiveHint: e === 'destructive', openWorldHint: verb.openWorld ?? false };
}

/** `lock_release` → `Lock release`. */
export function titleOf(name: string): string {
  const words = name.split('_').filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A plain JSON Schema copy of a TypeBox schema (drops TypeBox's symbol keys; unions of string literals become `enum`). */
export function plainSchema(schema: unknown): Record<string, unknown> {
  return compactEnums(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
}

function compactEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactEnums);
  if (!node || typeof node !== 'object') return node;
  const o = { ...(node as Record<string, unknown>) };
  // "non-empty" is enforced by validation with a clear error; advertising it costs every agent tokens.
  if (o.minLength === 1) delete o.minLength;
  // The default bounds (core/input-bounds.ts) are enforced the same way; `workspacePath` is internal.
  if (isDefaultBound('maxLength', o.maxLength)) delete o.maxLength;
  if (isDefaultBound('maxItems', o.maxItems)) delete o.maxItems;
  delete o.workspacePath;
  const any = o.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(any) && any.length > 0 && any.every((x) => typeof x.const === 'string')) {
    const { anyOf: _drop, ...rest } = o;
    return { ...rest, type: 'string', enum: any.map((x) => x.const) };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, compactEnums(v)]));
}

/**
 * The output schema as advertised: the top level only (each property's type, unions kept, arrays'
 * item type when it is a scalar), `required` as declared. It is looser than the declared schema,
 * so whatever fits the declared one fits it, and it costs half the tokens in tools/list.
 */
export function advertisedOutput(verb: Pick<VerbRecord, 'output'>): Record<string, unknown> {
  const schema = plainSchema(verb.output);
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, shapeOnly(v)])),
    ...(Array.isArray(schema.required) && schema.required.length > 0 ? { required: schema.required } : {}),
  };
}

/** A nested schema reduced to its kind: type (and enum), anyOf of kinds, an array's scalar item type. */
function shapeOnly(node: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(node.anyOf)) return { anyOf: (node.anyOf as Record<string, unknown>[]).map(shapeOnly) };
  if (node.type === 'array') {
    const items = node.items as Record<string, unknown> | undefined;
    return items && typeof items.type === 'string' && items.type !== 'object' && items.type !== 'array' ? { type: 'array', items: { type: items.type } } : { type: 'array' };
  }
  if (typeof node.type !== 'string') return {};
  return node.enum ? { type: node.type, enum: node.enum } : { type: node.type };
}

/** The input schema as advertised: parameters with a default are optional to the caller (the host fills them in). */
function advertisedInput(verb: VerbRecord): Record<string, unknown> {
  const schema = plainSchema(verb.input);
  const required = ((schema.required as string[] | undefined) ?? []).filter((k) => mustPass(verb.input, k));
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  return schema;
}

/** Whether a verb is left out of tools/list in read-only mode (it could only be refused there). */
function hiddenByMode(verb: VerbRecord, readOnly: boolean): boolean {
  const e = staticEffect(verb);
  return readOnly && (e === 'write' || e === 'destructive');
}

/** Compiles the surface of one (tier, mode) from the registry and the tier table. */
export function compileSurface(catalog: Catalog, table: TierTable, tier: string, readOnly: boolean): Surface {
  const members = table.tiers.get(tier) ?? new Set<string>();
  const records = catalog.all();
  const advertised = new Set<string>();
  const shown: VerbRecord[] = [];
  const help = new Map<string, HelpEntry>();
  const byFamily: Record<string, number> = {};
  const withOutput = advertisesOutputSchemas(table, tier);
  for (const r of records) {
    byFamily[r.family] = (byFamily[r.family] ?? 0) + 1;
    const advertisedIn = r.advertised ? [...table.tiers].filter(([, set]) => set.has(r.name)).map(([t]) => t) : [];
    const now = r.advertised && members.has(r.name) && !hiddenByMode(r, readOnly);
    help.set(r.name, {
      name: r.name,
      family: r.family,
      plugin: r.plugin,
      description: r.description,
      effect: typeof r.effect === 'string' ? r.effect : 'depends on arguments',
      advertisedIn,
      advertisedNow: now,
      replacedBy: r.replacedBy,
    });
    if (!now) continue;
    advertised.add(r.name);
    shown.push(r);
  }
  // The advertised schemas (plain JSON copies of every advertised verb's schemas) are made when
  // tools/list first asks: `m1nd call health` and the counts never need them.
  let tools: Tool[] | undefined;
  return {
    tier,
    readOnly,
    get tools(): Tool[] {
      return (tools ??= shown.map((r) => {
        const tool: Tool = {
          name: r.name,
          description: r.description,
          inputSchema: advertisedInput(r) as Tool['inputSchema'],
          annotations: annotationsFor(r),
        };
        if (r.output && withOutput) tool.outputSchema = advertisedOutput(r) as Tool['outputSchema'];
        return tool;
      }));
    },
    advertised,
    dispatch: new Map(records.map((r) => [r.name, r])),
    help,
    counts: {
      registry: records.length,
      advertised: advertised.size,
      unadvertised: records.length - advertised.size,
      byFamily,
    },
  };
}
