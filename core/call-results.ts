/**
 * The results the dispatcher builds itself: errors (an unknown or quarantined verb, a refusal, a
 * cancellation) and the MCP content of a shaped result.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { envelopeOf } from './builtin-taps.ts';
import type { CallState } from './call-state.ts';
import { ErrorCodes, M1ndError } from './errors.ts';
import type { Generation } from './generation.ts';
import { checkerFor } from './validation.ts';

export function cancelled(verb: string): M1ndError {
  return new M1ndError(ErrorCodes.CALL_CANCELLED, `${verb} was cancelled by the client`, { hint: 'call it again when needed' });
}

/** The hint of a verb missing because its plugin is quarantined: fix it, then reload. */
const QUARANTINE_NEXT = 'fix the plugin (the reason above) and save it under `m1nd dev` (or `serve --watch`) to hot-reload, or restart the server; health and `m1nd list` show every quarantined plugin';

export function unknownVerbResult(gen: Generation, name: string): CallToolResult {
  const quarantined = gen.quarantined();
  const owner = quarantined.find((q) => q.verbs?.includes(name));
  if (owner) {
    const error = new M1ndError(
      ErrorCodes.CALL_VERB_QUARANTINED,
      `verb "${name}" belongs to plugin "${owner.plugin}", which is quarantined (${owner.check} check, ${owner.code}): ${owner.message}`,
      { hint: QUARANTINE_NEXT, plugin: owner.plugin, data: { quarantine: { plugin: owner.plugin, check: owner.check, code: owner.code, origin: owner.origin } } },
    );
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorBody(error) }) }] };
  }
  const suggestions = gen.suggest(String(name), 3);
  // A quarantined plugin that never got to register its verbs may own this name: say so.
  const unnamed = quarantined.filter((q) => !q.verbs);
  const maybe = unnamed.length > 0 ? `; ${unnamed.length === 1 ? 'plugin' : 'plugins'} ${unnamed.map((q) => `"${q.plugin}"`).join(', ')} quarantined before registering ${unnamed.length === 1 ? 'its' : 'their'} verbs may provide it (${unnamed.map((q) => `${q.plugin}: ${q.message}`).join('; ')})` : '';
  const error = new M1ndError(ErrorCodes.CALL_UNKNOWN_VERB, `unknown verb "${name}"${suggestions.length ? `; did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : ''}${maybe}`, {
    hint: suggestions.length
      ? `call ${suggestions[0]} (every registered verb is callable, advertised or not), or help({"agent_id":"…","tool_name":"${suggestions[0]}"})`
      : unnamed.length > 0
        ? `if the verb is one of the quarantined plugins': ${QUARANTINE_NEXT}; otherwise call help({"agent_id":"…","mode":"overview"}) for the verb list`
        : 'call help({"agent_id":"…","mode":"overview"}) for the verb list',
    data: { suggestions, ...(unnamed.length > 0 ? { quarantined: unnamed.map((q) => q.plugin) } : {}) },
  });
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorBody(error) }) }] };
}

export function errorBody(error: M1ndError): Record<string, unknown> {
  return { code: error.code, message: error.message, hint: error.hint, plugin: error.plugin, ...(error.data ? { detail: error.data } : {}) };
}

export function errorResult(error: M1ndError, call: CallState, gen: Generation): CallToolResult {
  const body: Record<string, unknown> = { error: errorBody(error) };
  if (gen.settings.envelope) body._m1nd = envelopeOf(call, gen.settings);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * MCP content for a result: its text as sent (strings as they are, anything else compact JSON) and,
 * for a verb with an output schema, the object as structuredContent. A result the token limit cut
 * is checked against the schema again: one that no longer fits it is refused with a hint rather
 * than sent as structured content a client would reject.
 */
export function toCallToolResult(result: unknown, text: string, call: Pick<CallState, 'name' | 'verb' | 'meta'>): CallToolResult {
  const out: CallToolResult = { content: [{ type: 'text', text }] };
  const schema = call.verb.output;
  if (!schema || typeof result !== 'object' || result === null || Array.isArray(result)) return out;
  if (call.meta.truncation && !checkerFor(schema, call.name).Check(result)) {
    const error = new M1ndError(ErrorCodes.CALL_RESULT_TOO_LARGE, `${call.name}: the result is over the result token limit (${call.meta.truncation.limit}) and could not be cut to fit its output schema`, {
      hint: 'narrow the call (smaller scope, top_k, depth or token_budget) or raise M1ND_RESULT_TOKEN_LIMIT',
      data: { truncation: call.meta.truncation },
    });
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorBody(error) }) }] };
  }
  out.structuredContent = result as Record<string, unknown>;
  return out;
}
