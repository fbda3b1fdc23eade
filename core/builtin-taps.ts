/**
 * The host's own behaviour, installed as ordinary taps: the read-only gate, the proof gate,
 * argument validation, agent tracking, result shaping and the `_m1nd` envelope.
 */
import { ErrorCodes, M1ndError } from './errors.ts';
import { GATE_STAGES, type HostHooks } from './hooks.ts';
import type { HostSettings } from './settings.ts';
import type { SessionStore } from './session.ts';
import { serialise, shapeToTokenLimit } from './shaping.ts';
import { countTokens, utf8Bytes } from './tokens.ts';
import { validateArguments } from './validation.ts';
import type { Catalog } from './catalog.ts';
import type { CallRefusal, CallState } from './call-state.ts';

const HOST = 'm1nd-host';
/** Names of the built-in gate taps (doctor checks they are installed, in stage order). */
export const BUILTIN_GATE_TAPS = Object.freeze({ readOnly: `${HOST}:read-only`, proof: `${HOST}:proof`, validation: `${HOST}:validation` });

/** The read-only gate: refuses a call whose effect, for these arguments, is a write. */
export function readOnlyGate(settings: Readonly<HostSettings>) {
  return async (call: CallState): Promise<CallRefusal | undefined> => {
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
export async function validationGate(call: CallState): Promise<CallRefusal | undefined> {
  try {
    call.args = validateArguments(call.name, call.verb.input, call.args);
    return undefined;
  } catch (error) {
    if (error instanceof M1ndError) return { error };
    throw error;
  }
}

/**
 * Cuts a result to the host's result token limit, leaving room for the envelope as measured (its
 * draft, serialised); the dispatcher measures the text as sent and, if it is still over, runs the
 * shaping again with the overflow added to `call.meta.reserveTokens`. Nothing is tokenised when the
 * result and the envelope together are no longer in UTF-8 bytes than the limit is in tokens.
 */
export function resultTokenLimit(settings: Readonly<HostSettings>) {
  return async (result: unknown, call: CallState): Promise<unknown> => {
    const limit = settings.resultTokenLimit;
    const text = serialise(result);
    let room = limit;
    if (settings.envelope && isPlainObject(result)) {
      const draft = envelopeDraft(call, settings);
      if (call.meta.reserveTokens === undefined && utf8Bytes(text) + utf8Bytes(draft) <= limit) room = Number.POSITIVE_INFINITY;
      else room = Math.max(1, limit - (call.meta.reserveTokens ??= countTokens(draft)));
    }
    const shaped = room === Number.POSITIVE_INFINITY ? { value: result, text, bytes: utf8Bytes(text) } : shapeToTokenLimit(result, room, text);
    call.meta.shaped = shaped;
    call.meta.resultBytes = shaped.bytes;
    call.meta.resultTokens = 'tokens' in shaped ? shaped.tokens : undefined;
    if ('truncation' in shaped && shaped.truncation) call.meta.truncation = { ...shaped.truncation, limit };
    else delete call.meta.truncation;
    return shaped.value;
  };
}

/**
 * The envelope as it will be sent, with the fields only shaping fills in set to their largest
 * values (result_bytes and result_tokens at the limit's size, truncated), so its measure is not
 * below the real one's except for a truncation block.
 */
function envelopeDraft(call: CallState, settings: Readonly<HostSettings>): string {
  const env = envelopeOf(call, settings);
  env.result_bytes = settings.resultTokenLimit * 4;
  env.result_tokens = settings.resultTokenLimit;
  env.truncated = false;
  return `,"_m1nd":${JSON.stringify(env)}`;
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
    const out = { ...result, _m1nd: env };
    const base = call.meta.shaped;
    if (base?.value === result && !Object.hasOwn(result, '_m1nd') && typeof result.toJSON !== 'function' && base.text.endsWith('}')) {
      const envText = JSON.stringify(env);
      call.meta.sent = { value: out, text: base.text === '{}' ? `{"_m1nd":${envText}}` : `${base.text.slice(0, -1)},"_m1nd":${envText}}` };
    }
    return out;
  };
}

/** Installs the built-in taps on a generation's hooks. */
export function installBuiltinTaps(hooks: HostHooks, settings: Readonly<HostSettings>, session: SessionStore, catalog: Catalog): void {
  hooks.gate.tapPromise({ name: BUILTIN_GATE_TAPS.readOnly, stage: GATE_STAGES.readOnly }, readOnlyGate(settings));
  hooks.gate.tapPromise({ name: BUILTIN_GATE_TAPS.proof, stage: GATE_STAGES.proof }, proofGate(settings, session, catalog));
  hooks.gate.tapPromise({ name: BUILTIN_GATE_TAPS.validation, stage: GATE_STAGES.validation }, validationGate);
  hooks.beforeCall.tap(`${HOST}:agent-tracking`, (call) => void session.track(call.ctx.agentId, call.name));
  hooks.shapeResult.tapPromise(`${HOST}:result-token-limit`, resultTokenLimit(settings));
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
    result_bytes: call.meta.resultBytes,
    result_tokens: call.meta.resultTokens,
    token_limit: settings.resultTokenLimit,
    truncated: call.meta.truncation !== undefined,
  };
  if (call.meta.truncation) env.truncation = call.meta.truncation;
  if (call.meta.nextVerb) env.next_suggested_verb = call.meta.nextVerb;
  return env;
}
