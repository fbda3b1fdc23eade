/**
 * The registration record of one verb. Everything the host says about a verb — tools/list entry,
 * annotations, dispatch, help, gates — is derived from this one record.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { CallContext } from './call-context.ts';

/** What a call does to the world: decides the read-only gate and the MCP annotations. */
export type Effect = 'read' | 'session' | 'write' | 'destructive';

/** Built-in tiers, smallest first; a verb in `essential` is in `full` too. */
export const BUILTIN_TIERS = ['essential', 'full'] as const;
export type BuiltinTier = (typeof BUILTIN_TIERS)[number];

/** Task stages `help` routes by (an agent says where it is; help says which verbs fit). */
export const STAGES = ['orient', 'find', 'ground', 'diagnose', 'plan', 'edit', 'review', 'operate', 'handoff'] as const;
export type Stage = (typeof STAGES)[number];

export interface ProofTargets {
  /** Workspace paths the write touches; `null` when they cannot be resolved from the arguments. */
  targets: string[] | null;
}

export interface VerbDefinition<S extends TObject = TObject> {
  /** snake_case verb name, unique across all plugins. */
  name: string;
  /** One or two short sentences for tools/list (long guidance goes in `guide`). */
  description: string;
  input: S;
  /** Output schema, where the result has a fixed shape (also sent as MCP outputSchema). */
  output?: TObject;
  /** Tiers that advertise this verb; `essential` implies `full`. Default: ['full']. */
  tiers?: string[];
  /** Static effect, or a function of the arguments (e.g. `persist` is read for `status`). */
  effect: Effect | ((args: Static<S>) => Effect);
  /** With a functional effect: the strongest effect any arguments can have (annotations say this). Default `destructive`. */
  maxEffect?: Effect;
  /** Human-readable name for clients' UIs (MCP `title`). Default: the name, words capitalised. */
  title?: string;
  /** True when the verb reaches outside the workspace and its store (MCP `openWorldHint`). Default false. */
  openWorld?: boolean;
  /** For proof-gated writes: the workspace paths the call will write. */
  proof?: (args: Static<S>, ctx: CallContext) => ProofTargets | Promise<ProofTargets>;
  /** True for verbs that mark write targets proven (`ctx.session.markProven`); the proof gate names them. */
  proves?: boolean;
  /** false for back-compat verbs: registered and callable, never in tools/list. Default true. */
  advertised?: boolean;
  /** Where this verb replaces another or is replaced (shown by help for back-compat verbs). */
  replacedBy?: string;
  /** Stages of a task this verb serves (help's route mode). */
  stages?: Stage[];
  /** Longer guidance shown by `help` for this verb (markdown). */
  guide?: string;
  /** The verb an agent usually calls next, or a function of args and result. */
  next?: string | ((args: Static<S>, result: unknown) => string | undefined);
  /** Per-verb handler timeout in ms (default: the host's). */
  timeoutMs?: number;
  handler: (args: Static<S>, ctx: CallContext) => unknown | Promise<unknown>;
}

/** A verb definition as registered, stamped with its plugin and family. */
export interface VerbRecord extends VerbDefinition {
  plugin: string;
  family: string;
  tiers: string[];
  advertised: boolean;
}

/** Identity helper that types a verb definition (one verb per file exports one of these). */
export function defineVerb<S extends TObject>(def: VerbDefinition<S>): VerbDefinition<S> {
  return def;
}

/** The effect of a call with these arguments; a throwing effect function counts as `write` (fail closed). */
export function effectOf(verb: Pick<VerbRecord, 'effect'>, args: unknown): Effect {
  if (typeof verb.effect === 'string') return verb.effect;
  try {
    return verb.effect((args ?? {}) as never);
  } catch {
    return 'write';
  }
}

/** The effect a verb can have at most (functional effects are judged by their strongest case). */
export function staticEffect(verb: Pick<VerbRecord, 'effect'>): Effect | 'depends' {
  return typeof verb.effect === 'string' ? verb.effect : 'depends';
}

/** The strongest effect any call of the verb can have. */
export function strongestEffect(verb: Pick<VerbRecord, 'effect' | 'maxEffect'>): Effect {
  return typeof verb.effect === 'string' ? verb.effect : (verb.maxEffect ?? 'destructive');
}

export type { TSchema };
