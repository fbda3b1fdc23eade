/**
 * The host's own behaviour, installed as ordinary taps: the read-only gate, the proof gate,
 * argument validation, agent tracking, result shaping and the `_m1nd` envelope.
 */
import { ErrorCodes, M1ndError } from './errors.ts';
import { GATE_STAGES, type HostHooks } from './hooks.ts';
import type { HostSettings } from './settings.ts';
import type { SessionStore } from './session.ts';
import { serialise, shapeToTokenLimit, shapeToTokenLimitPaced, type Shaped } from './shaping.ts';
import { countTokens, utf8Bytes } from './tokens.ts';
import { validateArguments } from './validation.ts';
import type { Catalog } from './catalog.ts';
import type { CallRefusal, CallState } from './call-state.ts';

const HOST = 'm1nd-host';
/** Names of the built-in gate taps (doctor checks they are installed, in stage order). */
export const BUILTIN_GATE_TAPS = Object.freeze({ readOnly: `${HOST}:read-only`, proof: `${HOST}:proof`, validation: `${HOST}:validation` });

/** The read-only gate: refuses a call whose effect, for these arguments, is a write. */
export function readOnlyGate(settings: Readonly<HostSettings>) {
  return (call: CallState): CallRefusal | undefined => {
    if (!settings.readOnly || (call.effect !== 'write' && call.effect !== 'destructive')) return undefined;
    return {
      error: new M1ndError(ErrorCodes.GATE_READ_ONLY, `${call.name} is refused: the server runs read-only and this call would ${call.effect === 'destructive' ? 'destroy' : 'write'} state`, {
        hint: 'read-only mode allows read and session verbs; restart without --read-only / M1ND_READ_ONLY to write',
        data: { verb: call.name, effect: call.effect },
      }),
    };
  };
}

/** The proof gate: a proof-gated write passes only when every target it resolves is proven by this agent. */
export function proofGate(settings: Readonly<HostSettings>, session: SessionStore, catalog: Catalog) {
  return async (call: CallState): Promise<CallRefusal | undefined> => {
    if (!settings.proofGate || !call.verb.proof) return undefined;
    const provers = catalog.all().filter((v) => v.proves).map((v) => v.name);
    const how = provers.length
      ? `prove each target first with ${provers.join(' or ')} (same agent_id)`
      : 'no registered verb proves targets; run without M1ND_PROOF_GATE';
    let targets: string[] | null = null;
    try {
      targets = (await call.verb.proof(call.args as never, call.ctx)).targets;
    } catch {
      targets = null;
    }
    if (!targets || targets.length === 0) {
      return {
        error: new M1ndError(ErrorCodes.GATE_PROOF_UNRESOLVED, `${call.name} is refused by the proof gate: its write targets could not be resolved from the arguments`, {
          hint: how,
          data: { verb: call.name, targets: targets ?? [], provers },
        }),
      };
    }
    const unproven = targets.filter((t) => !session.isProven(call.ctx.agentId, t));
    if (unproven.length === 0) return undefined;
    return {
      error: new M1ndError(ErrorCodes.GATE_PROOF_UNPROVEN, `${call.name} is refused by the proof gate: not proven ready for agent "${call.ctx.agentId}": ${unproven.join(', ')}`, {
        hint: how,
        data: { verb: call.name, agent_id: call.ctx.agentId, targets, unproven, provers },
      }),
    };
  };
}

/** Argument validation as a gate: fills defaults in, or refuses with the path, the expected type and a minimal call. */
export function validationGate(call: CallState): CallRefusal | undefined {
  try {
    call.args = validateArguments(call.name, call.verb.input, call.args);
    return undefined;
  } catch (error) {
    if (error instanceof M1ndError) return { error };
    throw error;
  }
}

/** Results whose text is at least this long are shaped in paced steps (a count of them would hold the loop for long). */
export const PACED_SHAPE_MIN_CHARS = 32_768;

/**
 * Cuts a result to the host's result token limit, leaving room for the envelope as measured (its
 * draft, serialised); the dispatcher measures the text as sent and, if it is still over, runs the
 * shaping again with the overflow added to `call.meta.reserveTokens` (the result's own count is
 * kept from the first round). Nothing is tokenised when the result and the envelope together are
 * no longer in UTF-8 bytes than the limit is in tokens. A long text that must be counted is shaped
 * in steps of a few ms (core/shaping.ts `shapeToTokenLimitPaced`): the tap then calls back later.
 */
export function resultTokenLimit(settings: Readonly<HostSettings>) {
  return (result: unknown, call: CallState, done: (error: Error | null, value?: unknown) => void): void => {
    const limit = settings.resultTokenLimit;
    // The text serialised before (the tokenizer's load, or this tap's previous round), else now.
    const pre = call.meta.serialised?.value === result ? call.meta.serialised : call.meta.counted?.value === result ? call.meta.counted : undefined;
    const text = pre ? pre.text : serialise(result);
    const bytes = pre ? pre.bytes : utf8Bytes(text);
    const finish = (shaped: Shaped): void => {
      call.meta.shaped = shaped;
      call.meta.resultBytes = shaped.bytes;
      call.meta.resultTokens = shaped.tokens;
      if (shaped.truncation) call.meta.truncation = { ...shaped.truncation, limit };
      else call.meta.truncation = undefined;
      const original = shaped.truncation?.original_tokens ?? shaped.tokens;
      if (original !== undefined) call.meta.counted = { value: result, text, bytes, tokens: original };
      done(null, shaped.value);
    };
    let within = limit;
    if (settings.envelope && isPlainObject(result)) {
      if (call.meta.reserveTokens === undefined && bytes + envelopeParts(call, settings).draftBytes <= limit) return finish({ value: result, text, bytes });
      call.meta.reserveTokens ??= countTokens(envelopeParts(call, settings).draft);
      within = Math.max(1, limit - call.meta.reserveTokens);
    }
    const counted = call.meta.counted;
    const known = counted !== undefined && counted.value === result ? counted.tokens : undefined;
    if (bytes <= within || text.length < PACED_SHAPE_MIN_CHARS) return finish(shapeToTokenLimit(result, within, text, known));
    shapeToTokenLimitPaced(result, within, text, known).then(finish, (error: Error) => done(error));
  };
}

/** What the envelope of one (verb, tier, next verb) under one generation's settings always says, serialised once. */
interface EnvelopeParts {
  /** `{"verb":…,"tier":…,"read_only":…,"elapsed_ms":` */
  head: string;
  /** `,"token_limit":…,"truncated":false` plus the next verb, and the closing brace. */
  tail: string;
  /** The envelope as spliced into a result with the fields shaping fills in at their largest (no truncation block). */
  draft: string;
  draftBytes: number;
}
/** Per generation's settings and verb: the parts for the last (tier, next verb) seen (both rarely change). */
const partsCache = new WeakMap<Readonly<HostSettings>, WeakMap<object, EnvelopeParts & { tier: string; next: string | undefined }>>();

function envelopeParts(call: CallState, settings: Readonly<HostSettings>): EnvelopeParts {
  let bySettings = partsCache.get(settings);
  if (!bySettings) partsCache.set(settings, (bySettings = new WeakMap()));
  let parts = bySettings.get(call.verb);
  if (!parts || parts.tier !== call.tier || parts.next !== call.meta.nextVerb) {
    const next = call.meta.nextVerb ? `,"next_suggested_verb":${JSON.stringify(call.meta.nextVerb)}` : '';
    const head = `{"verb":${JSON.stringify(call.name)},"tier":${JSON.stringify(call.tier)},"read_only":${settings.readOnly},"elapsed_ms":`;
    const limit = settings.resultTokenLimit;
    const draft = `,"_m1nd":${head}999999999.99,"result_bytes":${limit * 4},"result_tokens":${limit},"token_limit":${limit},"truncated":false${next}}`;
    parts = { head, tail: `,"token_limit":${limit},"truncated":false${next}}`, draft, draftBytes: utf8Bytes(draft), tier: call.tier, next: call.meta.nextVerb };
    bySettings.set(call.verb, parts);
  }
  return parts;
}

/**
 * Adds the `_m1nd` envelope to object results (never renaming their fields). When the result is
 * the one shaping serialised, the text as sent is that text with the envelope spliced in (the
 * result is not serialised again).
 */
export function envelope(settings: Readonly<HostSettings>) {
  return (result: unknown, call: CallState): unknown => {
    if (!settings.envelope || !isPlainObject(result)) return result;
    const env = envelopeOf(call, settings);
    // Object.assign, not a spread: `{ ...result, _m1nd }` is tens of times slower in V8 here.
    const out = Object.assign({}, result);
    out._m1nd = env;
    const base = call.meta.shaped;
    if (base?.value === result && !Object.hasOwn(result, '_m1nd') && typeof result.toJSON !== 'function' && base.text.endsWith('}')) {
      const envText = call.meta.truncation ? JSON.stringify(env) : envelopeText(call, settings, env);
      call.meta.sent = { value: out, text: base.text === '{}' ? `{"_m1nd":${envText}}` : `${base.text.slice(0, -1)},"_m1nd":${envText}}` };
    }
    return out;
  };
}

/** JSON.stringify(env) for an envelope without a truncation block, from its cached parts. */
function envelopeText(call: CallState, settings: Readonly<HostSettings>, env: Record<string, unknown>): string {
  const parts = envelopeParts(call, settings);
  const tokens = call.meta.resultTokens === undefined ? '' : `,"result_tokens":${call.meta.resultTokens}`;
  return `${parts.head}${env.elapsed_ms},"result_bytes":${call.meta.resultBytes}${tokens}${parts.tail}`;
}

/** Installs the built-in taps on a generation's hooks. */
export function installBuiltinTaps(hooks: HostHooks, settings: Readonly<HostSettings>, session: SessionStore, catalog: Catalog): void {
  // Synchronous taps where the work is synchronous: no promise and no microtask per gate per call.
  hooks.gate.tap({ name: BUILTIN_GATE_TAPS.readOnly, stage: GATE_STAGES.readOnly }, readOnlyGate(settings));
  // Settings are frozen per generation: with the proof gate off, its tap is a synchronous pass.
  if (settings.proofGate) hooks.gate.tapPromise({ name: BUILTIN_GATE_TAPS.proof, stage: GATE_STAGES.proof }, proofGate(settings, session, catalog));
  else hooks.gate.tap({ name: BUILTIN_GATE_TAPS.proof, stage: GATE_STAGES.proof }, () => undefined);
  hooks.gate.tap({ name: BUILTIN_GATE_TAPS.validation, stage: GATE_STAGES.validation }, validationGate);
  hooks.beforeCall.tap(`${HOST}:agent-tracking`, (call) => void session.track(call.ctx.agentId, call.name));
  // A callback tap: it calls back at once (no promise per call) unless a long result is shaped in steps.
  hooks.shapeResult.tapAsync(`${HOST}:result-token-limit`, resultTokenLimit(settings));
  hooks.decorateResult.tap(`${HOST}:envelope`, envelope(settings));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The additive `_m1nd` block: who answered, how, how big, what was cut, what to call next.
 * `result_bytes` (UTF-8, envelope excluded) is always there; `result_tokens` only when the result
 * was tokenised, which happens when its size says it might exceed the limit (a result of N bytes
 * has at most N tokens).
 */
export function envelopeOf(call: CallState, settings: Readonly<HostSettings>): Record<string, unknown> {
  const env: Record<string, unknown> = {
    verb: call.name,
    tier: call.tier,
    read_only: settings.readOnly,
    elapsed_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
  };
  // Keys with no value are left out (the structured result must say what the text says).
  if (call.meta.resultBytes !== undefined) env.result_bytes = call.meta.resultBytes;
  if (call.meta.resultTokens !== undefined) env.result_tokens = call.meta.resultTokens;
  env.token_limit = settings.resultTokenLimit;
  env.truncated = call.meta.truncation !== undefined;
  if (call.meta.truncation) env.truncation = call.meta.truncation;
  if (call.meta.nextVerb) env.next_suggested_verb = call.meta.nextVerb;
  return env;
}
