/**
 * The host's own behaviour, installed as ordinary taps: the read-only gate, the proof gate,
 * argument validation, agent tracking, result shaping and the `_m1nd` envelope.
 */
import { ErrorCodes, M1ndError } from './errors.ts';
import { GATE_STAGES, type HostHooks } from './hooks.ts';
import type { HostSettings } from './settings.ts';
import type { SessionStore } from './session.ts';
import { shapeToTokenLimit } from './shaping.ts';
import { validateArguments } from './validation.ts';
import type { Catalog } from './catalog.ts';
import type { CallRefusal, CallState } from './call-state.ts';

const HOST = 'm1nd-host';
/** Names of the built-in gate taps (doctor checks they are installed, in stage order). */
export const BUILTIN_GATE_TAPS = Object.freeze({ readOnly: `${HOST}:read-only`, proof: `${HOST}:proof`, validation: `${HOST}:validation` });
/** Tokens kept free under the limit for the envelope that is added after shaping. */
const ENVELOPE_RESERVE = 300;

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

/** Cuts a result to the host's result token limit (room left for the envelope), noting the cut. */
export function resultTokenLimit(settings: Readonly<HostSettings>) {
  return async (result: unknown, call: CallState): Promise<unknown> => {
    const room = Math.max(1, settings.resultTokenLimit - (settings.envelope ? ENVELOPE_RESERVE : 0));
    const shaped = shapeToTokenLimit(result, room);
    call.meta.resultTokens = shaped.tokens;
    if (shaped.truncation) call.meta.truncation = { ...shaped.truncation, limit: settings.resultTokenLimit };
    return shaped.value;
  };
}

/** Adds the `_m1nd` envelope to object results (never renaming their fields). */
export function envelope(settings: Readonly<HostSettings>) {
  return (result: unknown, call: CallState): unknown => {
    if (!settings.envelope || !isPlainObject(result)) return result;
    return { ...result, _m1nd: envelopeOf(call, settings) };
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

/** The additive `_m1nd` block: who answered, how, how big, what was cut, what to call next. */
export function envelopeOf(call: CallState, settings: Readonly<HostSettings>): Record<string, unknown> {
  const env: Record<string, unknown> = {
    verb: call.name,
    tier: call.tier,
    read_only: settings.readOnly,
    elapsed_ms: Math.round((performance.now() - call.startedAt) * 100) / 100,
    result_tokens: call.meta.resultTokens,
    token_limit: settings.resultTokenLimit,
    truncated: call.meta.truncation !== undefined,
  };
  if (call.meta.truncation) env.truncation = call.meta.truncation;
  if (call.meta.nextVerb) env.next_suggested_verb = call.meta.nextVerb;
  return env;
}
