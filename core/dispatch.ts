/**
 * The dispatch pipeline of tools/call, in order: lookup → gates (read-only, proof, validation) →
 * before-call taps → handler (timeout + abort signal) → result shaping → envelope.
 * Every failure becomes an isError result with a corrective hint; nothing here throws to the protocol.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, M1ndError, toM1ndError } from './errors.ts';
import type { Generation } from './generation.ts';
import type { CallContext } from './call-context.ts';
import type { CallState } from './call-state.ts';
import { effectOf } from './verb.ts';
import { UNKNOWN_AGENT } from './session.ts';
import { envelopeOf } from './builtin-taps.ts';
import { refuseUnboundedCall } from './input-bounds.ts';

export interface DispatchOptions {
  /** The request's abort signal (client cancellation). */
  signal?: AbortSignal;
  /** Sends a progress notification; absent when the client did not ask for progress. */
  sendProgress?: (progress: number, total?: number, message?: string) => Promise<void>;
  connectionId?: string;
}

/** Runs one tools/call through the pipeline of a generation. */
export async function dispatchCall(gen: Generation, name: string, rawArgs: unknown, options: DispatchOptions = {}): Promise<CallToolResult> {
  const startedAt = performance.now();
  const tooLarge = refuseUnboundedCall(name, rawArgs, gen.settings.maxArgumentBytes);
  if (tooLarge) return tooLarge;
  const verb = gen.catalog.get(name);
  if (!verb) return unknownVerbResult(gen, name);
  const args = (rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? rawArgs : rawArgs ?? {}) as Record<string, unknown>;
  const agentId = typeof args.agent_id === 'string' && args.agent_id.trim() !== '' ? args.agent_id : UNKNOWN_AGENT;
  // One controller per call, aborted by the client's signal or the timeout. (AbortSignal.any keeps
  // WeakRefs per call and costs more than the rest of the pipeline on small calls.)
  const timeout = new AbortController();
  const signal = timeout.signal;
  const forwardAbort = () => timeout.abort(options.signal?.reason);
  if (options.signal?.aborted) timeout.abort(options.signal.reason);
  else options.signal?.addEventListener('abort', forwardAbort, { once: true });
  const ctx: CallContext = {
    verb: name,
    plugin: verb.plugin,
    agentId,
    signal,
    progress: async (done, total, message) => {
      if (options.sendProgress && !signal.aborted) await options.sendProgress(done, total, message);
    },
    log: gen.log.child(verb.plugin),
    session: gen.session,
    settings: gen.settings,
    service: <T>(service: string) => {
      const entry = gen.services.get(service);
      if (!entry) throw new M1ndError(ErrorCodes.PLUGIN_SERVICE, `service "${service}" is not provided in this generation`);
      return entry.impl as T;
    },
    connectionId: options.connectionId,
  };
  const call: CallState = { name, verb, args, effect: effectOf(verb, args), ctx, tier: gen.tierChoice().tier, startedAt, meta: {} };
  gen.inFlight++;
  try {
    return await withDeadline(call, timeout, verb.timeoutMs ?? gen.settings.handlerTimeoutMs, () => runPipeline(gen, call));
  } catch (thrown) {
    const error = toM1ndError(thrown, verb.plugin);
    gen.hooks.afterCall.call(call, { kind: 'failed', elapsedMs: performance.now() - startedAt, error });
    return errorResult(error, call, gen);
  } finally {
    gen.inFlight--;
    options.signal?.removeEventListener('abort', forwardAbort);
  }
}

/** Gates, before-call taps, handler, shaping and envelope; `call.meta.stage` says where it is. */
async function runPipeline(gen: Generation, call: CallState): Promise<CallToolResult> {
  call.meta.stage = 'gate';
  const refusal = await gen.hooks.gate.promise(call);
  if (refusal) {
    gen.hooks.afterCall.call(call, { kind: 'refused', elapsedMs: performance.now() - call.startedAt, error: refusal.error });
    return errorResult(refusal.error, call, gen);
  }
  call.meta.stage = 'beforeCall';
  await gen.hooks.beforeCall.promise(call);
  call.meta.stage = 'handler';
  const raw = await call.verb.handler(call.args as never, call.ctx);
  const next = typeof call.verb.next === 'function' ? call.verb.next(call.args as never, raw) : call.verb.next;
  if (next) call.meta.nextVerb = next;
  call.meta.stage = 'shapeResult';
  const shaped = await gen.hooks.shapeResult.promise(raw === undefined ? { ok: true } : raw, call);
  call.meta.stage = 'decorateResult';
  const result = gen.hooks.decorateResult.call(shaped, call);
  gen.hooks.afterCall.call(call, { kind: 'ok', elapsedMs: performance.now() - call.startedAt });
  return toCallToolResult(result, call.verb.output !== undefined);
}

/**
 * Races the whole pipeline against the call's deadline and the client's cancellation, so a tap or
 * handler that never settles is reported (naming the stage it hung in), never left hanging.
 */
async function withDeadline<T>(call: CallState, controller: AbortController, ms: number, run: () => Promise<T>): Promise<T> {
  const signal = call.ctx.signal;
  if (signal.aborted) throw cancelled(call.name);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject before aborting: the abort listener below would otherwise report a cancellation.
      const stage = call.meta.stage === 'handler' || !call.meta.stage ? '' : ` (stuck in the ${call.meta.stage} hook)`;
      reject(new M1ndError(ErrorCodes.CALL_TIMEOUT, `${call.name} did not finish within ${ms} ms and was stopped${stage}`, {
        hint: 'narrow the call (smaller scope, top_k or depth) or raise M1ND_HANDLER_TIMEOUT_MS',
        data: { stage: call.meta.stage },
      }));
      controller.abort();
    }, ms);
    onAbort = () => reject(cancelled(call.name));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run(), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

function cancelled(verb: string): M1ndError {
  return new M1ndError(ErrorCodes.CALL_CANCELLED, `${verb} was cancelled by the client`, { hint: 'call it again when needed' });
}

function unknownVerbResult(gen: Generation, name: string): CallToolResult {
  const suggestions = gen.suggest(String(name), 3);
  const error = new M1ndError(ErrorCodes.CALL_UNKNOWN_VERB, `unknown verb "${name}"${suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''}`, {
    hint: suggestions.length
      ? `call ${suggestions[0]} (every registered verb is callable, advertised or not), or help({"agent_id":"…","tool_name":"${suggestions[0]}"})`
      : 'call help({"agent_id":"…","mode":"overview"}) for the verb list',
    data: { suggestions },
  });
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorBody(error) }) }] };
}

function errorBody(error: M1ndError): Record<string, unknown> {
  return { code: error.code, message: error.message, hint: error.hint, plugin: error.plugin, ...(error.data ? { detail: error.data } : {}) };
}

function errorResult(error: M1ndError, call: CallState, gen: Generation): CallToolResult {
  const body: Record<string, unknown> = { error: errorBody(error) };
  if (gen.settings.envelope) body._m1nd = envelopeOf(call, gen.settings);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** MCP content for a result: strings as text, anything else as compact JSON (+ structuredContent with an output schema). */
export function toCallToolResult(result: unknown, structured: boolean): CallToolResult {
  if (typeof result === 'string') return { content: [{ type: 'text', text: result }] };
  const out: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(result) }] };
  if (structured && result && typeof result === 'object' && !Array.isArray(result)) out.structuredContent = result as Record<string, unknown>;
  return out;
}
