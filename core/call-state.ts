/** The in-flight state of one tools/call as it moves through the call hooks. */
import type { CallContext } from './call-context.ts';
import type { M1ndError } from './errors.ts';
import type { Effect, VerbRecord } from './verb.ts';

export interface Truncation {
  original_tokens: number;
  limit: number;
  /** What was cut, by JSON path. */
  cuts: { path: string; kept?: number; dropped?: number; chars_cut?: number }[];
}

export interface CallState {
  name: string;
  verb: VerbRecord;
  /** The arguments; the validation gate replaces them with defaults filled in. */
  args: Record<string, unknown>;
  /** The effect of this call with these arguments. */
  effect: Effect;
  ctx: CallContext;
  /** The advertised tier of the generation serving the call. */
  tier: string;
  startedAt: number;
  /** Filled in as the call proceeds (shaping, envelope). */
  meta: {
    /** The pipeline stage running now (reported when a call times out). */
    stage?: 'gate' | 'beforeCall' | 'handler' | 'shapeResult' | 'decorateResult';
    /** UTF-8 length of the result as sent, envelope excluded. */
    resultBytes?: number;
    /** Its BPE count, when it was counted (only results that may exceed the limit are). */
    resultTokens?: number;
    /** Tokens kept under the limit for the envelope: its measured draft, raised by any overflow the dispatcher measured. */
    reserveTokens?: number;
    /** The handler's result serialised before shaping (only while the tokenizer is not loaded), reused by the shaping. */
    serialised?: { value: unknown; text: string; bytes: number };
    /** The handler's result, its text and its exact count, once counted: a second shaping round (a larger envelope reserve) neither serialises nor counts it again. */
    counted?: { value: unknown; text: string; bytes: number; tokens: number };
    /** The shaped result and its text (serialised once). */
    shaped?: { value: unknown; text: string };
    /** The final result and its text as sent, when the envelope could splice it without serialising the result again. */
    sent?: { value: unknown; text: string };
    truncation?: Truncation;
    nextVerb?: string;
  };
}

/** A gate's refusal: the call ends with this error as an isError result. */
export interface CallRefusal {
  error: M1ndError;
}

export type CallOutcome =
  | { kind: 'ok'; elapsedMs: number }
  | { kind: 'refused'; elapsedMs: number; error: M1ndError }
  | { kind: 'failed'; elapsedMs: number; error: M1ndError };
