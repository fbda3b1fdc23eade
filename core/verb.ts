/**
 * The registration record of one verb. Everything the host says about a verb — tools/list entry,
 * annotations, dispatch, help, gates — is derived from this one record.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { CallContext } from './call-context.ts';
import { ErrorCodes, M1ndError } from './errors.ts';

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
  /** Runs a call. Give either this or `load`. */
  handler?: VerbHandler<Static<S>>;
  /**
   * Imports the handler on the verb's first call instead of at start (give either this or `handler`),
   * e.g. `load: () => import('./x.run.ts')`. It resolves to the handler, or to an object (a module, a
   * verb definition) whose `handler` or `default` is the handler. Gates, validation and `proof` run
   * before it; a module that fails to load fails the call with M1ND_ERR_VERB_LOAD.
   */
  load?: () => Promise<LoadedHandler<Static<S>>>;
}

/** A verb's handler. */
export type VerbHandler<A = any> = (args: A, ctx: CallContext) => unknown | Promise<unknown>;

/** What a verb's `load` resolves to: the handler, or a module or definition holding it as `handler` or `default`. */
export type LoadedHandler<A = any> = VerbHandler<A> | { handler?: VerbHandler<A>; default?: VerbHandler<A> | { handler?: VerbHandler<A> } };

/** A verb definition as registered, stamped with its plugin and family. */
export interface VerbRecord extends VerbDefinition {
  /** Always set on a record: a lazily loaded verb's is a stand-in that loads `load` on its first call. */
  handler: VerbHandler;
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

/** The handler `load` resolved to, or undefined when it holds none. */
export function handlerOf(loaded: unknown): VerbHandler | undefined {
  if (typeof loaded === 'function') return loaded as VerbHandler;
  if (!loaded || typeof loaded !== 'object') return undefined;
  const { handler, default: fallback } = loaded as { handler?: unknown; default?: unknown };
  if (typeof handler === 'function') return handler as VerbHandler;
  if (typeof fallback === 'function') return fallback as VerbHandler;
  if (fallback && typeof fallback === 'object' && typeof (fallback as { handler?: unknown }).handler === 'function') return (fallback as { handler: VerbHandler }).handler;
  return undefined;
}

/**
 * The handler a lazily loaded verb is registered with: its first call imports `load` (once; a
 * failed import is retried on the next call) and every call then runs the loaded handler directly.
 */
export function lazyHandler(verb: string, load: () => Promise<unknown>): VerbHandler {
  let loaded: VerbHandler | undefined;
  let pending: Promise<VerbHandler> | undefined;
  const first = async (args: unknown, ctx: CallContext) => {
    pending ??= load().then(
      (module) => {
        const handler = handlerOf(module);
        if (!handler) throw new M1ndError(ErrorCodes.VERB_LOAD, `verb "${verb}": its handler module (${moduleOf(load)}) has no \`handler\` or default export`, { hint: HINT });
        return handler;
      },
      (error: unknown) => {
        throw new M1ndError(ErrorCodes.VERB_LOAD, `verb "${verb}": its handler module (${moduleOf(load)}) failed to load: ${(error as Error)?.message ?? String(error)}`, { hint: HINT, cause: error });
      },
    );
    try {
      loaded = await pending;
    } catch (error) {
      pending = undefined;
      throw error;
    }
    return loaded(args, ctx);
  };
  const standIn: VerbHandler = (args, ctx) => (loaded ? loaded(args, ctx) : first(args, ctx));
  standIns.add(standIn);
  return standIn;
}

const standIns = new WeakSet<VerbHandler>();

/** True for the stand-in `lazyHandler` made (the verb was registered with `load`). */
export function isLazyHandler(handler: unknown): boolean {
  return typeof handler === 'function' && standIns.has(handler as VerbHandler);
}

const HINT = 'the other verbs still work; fix the module (see `health` and the server log), then reload the plugin or restart the server';

/** The module a `load` function imports, as written in it (`import('./x.run.ts')`), or "its load function". */
function moduleOf(load: () => Promise<unknown>): string {
  return /import\(\s*(['"`])([^'"`]+)\1/.exec(String(load))?.[2] ?? 'its load function';
}
