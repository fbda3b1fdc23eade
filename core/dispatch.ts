/**
 * The dispatch pipeline of tools/call, in order: lookup → gates (read-only, proof, validation) →
 * before-call taps → handler (timeout + abort signal) → result shaping → envelope.
 * Every failure becomes an isError result with a corrective hint; nothing here throws to the protocol.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, M1ndError, toM1ndError } from './errors.ts';
import type { Generation } from './generation.ts';
import { PipelineCallContext, isToolContent, type CallEnvironment, type CallRequest } from './call-context.ts';
import type { Logger } from './log.ts';
import type { CallRefusal, CallState } from './call-state.ts';
import { runBail, runSeries, runWaterfall } from './hook-run.ts';
import { effectOf } from './verb.ts';
import { UNKNOWN_AGENT } from './session.ts';
import { bindAgent, type BoundAgent, type CallIdentity } from './identity.ts';
import { refuseUnboundedCall } from './input-bounds.ts';
import { serialise } from './shaping.ts';
import { cancelled, errorBody, errorResult, toCallToolResult, unknownVerbResult } from './call-results.ts';
import { measureText, tokenizerLoaded, tokenizerReady, utf8Bytes, withinLimit } from './tokens.ts';

/** What the transport says about one request (its abort signal, progress sender, session id). */
export type DispatchOptions = CallRequest;

/** What every call of a generation shares, built on its first call: no per-call loggers or closures. */
interface GenerationCallCache {
  env: CallEnvironment;
  loggers: Map<string, Logger>;
}
const perGeneration = new WeakMap<Generation, GenerationCallCache>();

function callCache(gen: Generation): GenerationCallCache {
  let cache = perGeneration.get(gen);
  if (!cache) {
    const env: CallEnvironment = {
      session: gen.session,
      settings: gen.settings,
      lookupService: (service) => {
        const entry = gen.services.get(service);
        if (!entry) throw new M1ndError(ErrorCodes.PLUGIN_SERVICE, `service "${service}" is not provided in this generation`);
        return entry.impl;
      },
      dispatch: (name, args, request) => dispatchCall(gen, name, args, request),
    };
    perGeneration.set(gen, (cache = { env, loggers: new Map() }));
  }
  return cache;
}

function pluginLogger(gen: Generation, cache: GenerationCallCache, plugin: string): Logger {
  let log = cache.loggers.get(plugin);
  if (!log) cache.loggers.set(plugin, (log = gen.log.child(plugin)));
  return log;
}

const NO_REQUEST: DispatchOptions = Object.freeze({});

/** Runs one tools/call through the pipeline of a generation. */
export async function dispatchCall(gen: Generation, name: string, rawArgs: unknown, options: DispatchOptions = NO_REQUEST): Promise<CallToolResult> {
  const startedAt = performance.now();
  gen.markReady();
  const tooLarge = refuseUnboundedCall(name, rawArgs, gen.settings.maxArgumentBytes);
  if (tooLarge) return tooLarge;
  const verb = gen.catalog.get(name);
  if (!verb) return unknownVerbResult(gen, name);
  const args = (rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? rawArgs : rawArgs ?? {}) as Record<string, unknown>;
  const requested = typeof args.agent_id === 'string' && args.agent_id.trim() !== '' ? args.agent_id : undefined;
  // The one place a client's agent_id becomes the identity plugins see (pinned per HTTP session).
  const effect = effectOf(verb, args);
  let bound: BoundAgent;
  try {
    bound = bindAgent(requested, options.identity, UNKNOWN_AGENT);
    if (bound.role === 'read' && effect !== 'read') {
      throw new M1ndError(ErrorCodes.AUTH_ROLE, `${name} changes state and this credential has the read role`, {
        hint: 'use read verbs only, or a token whose role is "write"',
      });
    }
    options.actingAs?.(bound.agentId);
  } catch (thrown) {
    const error = toM1ndError(thrown, verb.plugin);
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorBody(error) }) }] };
  }
  const cache = callCache(gen);
  const ctx = new PipelineCallContext(name, verb.plugin, bound.agentId, bound.role, pluginLogger(gen, cache, verb.plugin), cache.env, options);
  const call: CallState = { name, verb, args, effect, ctx, tier: gen.tierChoice().tier, startedAt, meta: {} };
  gen.inFlight++;
  try {
    if (options.signal?.aborted) throw cancelled(name);
    // A pipeline whose stages all answer synchronously ends here: no deadline to watch, no promise.
    const done = runFrom(gen, call, Step.Gate, undefined);
    if (!(done instanceof Waiting)) return done;
    return await withDeadline(call, ctx, options.signal, verb.timeoutMs ?? gen.settings.handlerTimeoutMs, gen, done);
  } catch (thrown) {
    const error = toM1ndError(thrown, verb.plugin);
    gen.hooks.afterCall.call(call, { kind: 'failed', elapsedMs: performance.now() - startedAt, error });
    return errorResult(error, call, gen);
  } finally {
    gen.inFlight--;
  }
}

/** Whether a value is a promise or another thenable (awaited); anything else is used as it is, with no microtask. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** More than the envelope's draft ever adds to a result (a few hundred bytes): a result within the limit by this much is never counted. */
const ENVELOPE_BYTES = 1024;
/** Shaping rounds after the first, each with the last overflow kept free, before a result goes out as it is. */
const MAX_SHAPE_ROUNDS = 5;
/** Tokens kept free beyond an overflow: the envelope's numbers may gain a digit or two on the next round. */
const ENVELOPE_SLACK_TOKENS = 3;

/** Whether a verb takes a `token_budget` (its handler counts tokens to pack its result). */
function countsTokens(verb: CallState['verb']): boolean {
  return Object.hasOwn(verb.input.properties, 'token_budget');
}

/** Where a pipeline that had to wait resumes, with the value it waited for. */
const enum Step {
  Gate,
  AfterGate,
  AfterBeforeCall,
  Handler,
  AfterHandler,
  Shape,
  AfterShape,
}

/** A pipeline waiting at a stage that answered with a promise: resumed at `step` with its value. */
class Waiting {
  constructor(
    readonly step: Step,
    readonly pending: PromiseLike<unknown>,
    /** The handler's result and the shaping round, once the pipeline is shaping. */
    readonly value: unknown = undefined,
    readonly round = 0,
  ) {}
}

/**
 * Gates, before-call taps, handler, shaping and envelope, from `step` on (`input`: what the stage
 * before it gave); `call.meta.stage` says where it is. Runs synchronously as long as the stages
 * answer synchronously (every built-in tap, most plugin taps, a synchronous handler) and returns the
 * result; at the first stage that answers with a promise it returns where to resume (Waiting).
 */
function runFrom(gen: Generation, call: CallState, step: Step, input: unknown, value?: unknown, round = 0): CallToolResult | Waiting {
  if (step <= Step.Gate) {
    call.meta.stage = 'gate';
    input = runBail<CallRefusal>(gen.hooks.gate, call);
    if (isThenable(input)) return new Waiting(Step.AfterGate, input);
  }
  if (step <= Step.AfterGate) {
    const refusal = input as CallRefusal | undefined;
    if (refusal) {
      gen.hooks.afterCall.call(call, { kind: 'refused', elapsedMs: performance.now() - call.startedAt, error: refusal.error });
      return errorResult(refusal.error, call, gen);
    }
    call.meta.stage = 'beforeCall';
    const before = runSeries(gen.hooks.beforeCall, call);
    if (isThenable(before)) return new Waiting(Step.AfterBeforeCall, before);
  }
  if (step <= Step.AfterBeforeCall && !tokenizerLoaded() && countsTokens(call.verb)) {
    // A verb that packs its result to a `token_budget` counts inside its handler: a process's first
    // such call loads the tokenizer's table (a few ms from dist/ or the cache folder; built in a worker
    // thread with neither) in event-loop turns of its own first, never inside the handler's stretch.
    return new Waiting(Step.Handler, tokenizerReady());
  }
  if (step <= Step.Handler) {
    call.meta.stage = 'handler';
    input = call.verb.handler(call.args as never, call.ctx);
    if (isThenable(input)) return new Waiting(Step.AfterHandler, input);
  }
  if (step <= Step.AfterHandler) {
    const raw = input;
    const next = typeof call.verb.next === 'function' ? call.verb.next(call.args as never, raw) : call.verb.next;
    if (next) call.meta.nextVerb = next;
    if (isToolContent(raw)) {
      // Content blocks go out as the handler made them: JSON shaping and the envelope are for JSON results.
      gen.hooks.afterCall.call(call, { kind: 'ok', elapsedMs: performance.now() - call.startedAt });
      return { content: [...raw.content], ...(raw.structuredContent ? { structuredContent: raw.structuredContent } : {}) };
    }
    value = raw === undefined ? { ok: true } : raw;
    if (step === Step.AfterHandler && !tokenizerLoaded()) {
      // After an async handler (`step` says the pipeline resumed there), a process's first result
      // that may need counting loads the tokenizer's table (20-35 ms from the cache folder) in an
      // event-loop turn of its own, not inside the handler's last stretch. The text made to tell is
      // the one shaping then uses (call.meta.serialised). A synchronous pipeline is left as it is.
      const text = serialise(value);
      const bytes = utf8Bytes(text);
      call.meta.serialised = { value, text, bytes };
      if (bytes + ENVELOPE_BYTES > gen.settings.resultTokenLimit) return new Waiting(Step.Shape, tokenizerReady(), value);
    }
  }
  if (step <= Step.Shape) {
    round = 0;
    call.meta.stage = 'shapeResult';
    input = runWaterfall(gen.hooks.shapeResult, value, call);
    if (isThenable(input)) return new Waiting(Step.AfterShape, input, value, round);
  }
  // The limit applies to the text as sent: measured (tokenised only when its bytes exceed the
  // limit); an overflow the envelope caused is kept free on the next shaping round, with a few
  // tokens more: the envelope's numbers (elapsed_ms, result_tokens, chars_cut) change between rounds.
  for (const limit = gen.settings.resultTokenLimit; ; ) {
    call.meta.stage = 'decorateResult';
    const result = gen.hooks.decorateResult.call(input, call);
    const spliced = call.meta.sent;
    const text = spliced && spliced.value === result ? spliced.text : serialise(result);
    const sent = measureText(text, limit);
    if (withinLimit(sent, limit) || round === MAX_SHAPE_ROUNDS) {
      gen.hooks.afterCall.call(call, { kind: 'ok', elapsedMs: performance.now() - call.startedAt });
      return toCallToolResult(result, text, call);
    }
    call.meta.reserveTokens = (call.meta.reserveTokens ?? 0) + (sent.tokens! - limit) + ENVELOPE_SLACK_TOKENS;
    call.meta.sent = undefined;
    round++;
    call.meta.stage = 'shapeResult';
    input = runWaterfall(gen.hooks.shapeResult, value, call);
    if (isThenable(input)) return new Waiting(Step.AfterShape, input, value, round);
  }
}

/** Resumes a waiting pipeline until it ends, and settles the race with its result or its error (unless the deadline or the client settled it first). */
async function resume(gen: Generation, race: CallRace, waiting: Waiting): Promise<void> {
  try {
    let r: CallToolResult | Waiting = waiting;
    while (r instanceof Waiting) r = runFrom(gen, race.call, r.step, await r.pending, r.value, r.round);
    finish(race, r);
  } catch (error) {
    if (settle(race)) race.reject!(error);
  }
}

/** Settles the race with the pipeline's result, unless the deadline or the client settled it already. */
function finish(race: CallRace, result: CallToolResult): void {
  if (settle(race)) race.resolve!(result);
}

/**
 * Runs the rest of a pipeline that had to wait (a pipeline that ran through synchronously needs no
 * watch) against the call's deadline and the client's cancellation, so a tap or handler that never
 * settles is reported (naming the stage it hung in), never left hanging. One promise per call and no
 * timer of its own: every call in flight is on one watch list that a shared watchdog
 * (one interval, running only while calls are in flight) checks every WATCH_TICK_MS. A call still
 * running after LISTEN_AFTER_MS also listens to the client's cancellation. A timer per call (armed,
 * then cleared when the call ends) cost more than the rest of a trivial call's pipeline.
 */
function withDeadline(call: CallState, ctx: PipelineCallContext, clientSignal: AbortSignal | undefined, ms: number, gen: Generation, waiting: Waiting): Promise<CallToolResult> {
  const race: CallRace = { settled: false, listening: false, ms, resolve: undefined, reject: undefined, call, ctx, signal: clientSignal, onAbort: undefined, prev: watchedLast, next: undefined };
  const settled = new Promise<CallToolResult>((resolve, reject) => {
    race.resolve = resolve;
    race.reject = reject;
  });
  if (watchedLast) watchedLast.next = race;
  else watchedFirst = race;
  watchedLast = race;
  watchdog ??= setInterval(watchTick, WATCH_TICK_MS);
  void resume(gen, race, waiting);
  return settled;
}

interface CallRace {
  settled: boolean;
  /** Whether it listens to the client's cancellation yet. */
  listening: boolean;
  /** Its deadline, in ms after `call.startedAt`. */
  ms: number;
  resolve: ((result: CallToolResult) => void) | undefined;
  reject: ((error: unknown) => void) | undefined;
  call: CallState;
  ctx: PipelineCallContext;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Its neighbours on the watch list (a list, not a Set: no hash per call to add and delete). */
  prev: CallRace | undefined;
  next: CallRace | undefined;
}

/**
 * A call still running after this long starts listening to the client's cancellation. Most calls end
 * sooner, and an abort listener added and removed costs more than the rest of a small call's
 * pipeline; a handler that reads `call.signal` sees a cancellation at once either way, and the SDK
 * sends no response to a cancelled request.
 */
const LISTEN_AFTER_MS = 20;
/** How often the watchdog looks at the calls in flight: a deadline is reported at most this late. */
const WATCH_TICK_MS = 10;
/** The calls in flight (every generation's), in the order they started: a doubly linked list. */
let watchedFirst: CallRace | undefined;
let watchedLast: CallRace | undefined;
let watchdog: ReturnType<typeof setInterval> | undefined;

function watchTick(): void {
  if (!watchedFirst) {
    clearInterval(watchdog);
    watchdog = undefined;
    return;
  }
  const now = performance.now();
  // A race settled here leaves the list; its `next` is read first.
  for (let race: CallRace | undefined = watchedFirst, next: CallRace | undefined; race; race = next) {
    next = race.next;
    const age = now - race.call.startedAt;
    if (age >= race.ms) onDeadline(race);
    else if (!race.listening && age >= LISTEN_AFTER_MS) listen(race);
  }
}

function listen(race: CallRace): void {
  race.listening = true;
  const signal = race.signal;
  if (!signal) return;
  if (signal.aborted) return onClientAbort(race);
  const onAbort = (): void => onClientAbort(race);
  race.onAbort = onAbort;
  signal.addEventListener('abort', onAbort, { once: true });
}

/** The client cancelled. */
function onClientAbort(race: CallRace): void {
  if (!settle(race)) return;
  race.ctx.stop(race.signal?.reason);
  race.reject!(cancelled(race.call.name));
}

/** Marks the race settled and off the watch list; false when it was settled already (deadline, client, pipeline). */
function settle(race: CallRace): boolean {
  if (race.settled) return false;
  race.settled = true;
  if (race.prev) race.prev.next = race.next;
  else watchedFirst = race.next;
  if (race.next) race.next.prev = race.prev;
  else watchedLast = race.prev;
  race.prev = race.next = undefined;
  if (race.onAbort) race.signal!.removeEventListener('abort', race.onAbort);
  return true;
}

function onDeadline(race: CallRace): void {
  if (!settle(race)) return;
  const call = race.call;
  const stage = call.meta.stage === 'handler' || !call.meta.stage ? '' : ` (stuck in the ${call.meta.stage} hook)`;
  race.reject!(
    new M1ndError(ErrorCodes.CALL_TIMEOUT, `${call.name} did not finish within ${race.ms} ms and was stopped${stage}`, {
      hint: 'narrow the call (smaller scope, top_k or depth) or raise M1ND_HANDLER_TIMEOUT_MS',
      data: { stage: call.meta.stage },
    }),
  );
  race.ctx.stop();
}
