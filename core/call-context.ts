/** What a verb handler receives beside its arguments, and what it may return besides JSON. */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { AgentRole, CallIdentity } from './identity.ts';
import type { Logger } from './log.ts';
import type { SessionStore } from './session.ts';
import type { HostSettings } from './settings.ts';

export interface CallContext {
  verb: string;
  plugin: string;
  /** The calling agent: its `agent_id` as bound to the session (core/identity.ts), or `unknown`. */
  agentId: string;
  /** What the caller's credential may do (`write` for stdio and the CLI, one trusted client). */
  role: AgentRole;
  /** Aborted on client cancellation or handler timeout. */
  signal: AbortSignal;
  /** Sends an MCP progress notification when the client asked for progress; otherwise a no-op. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends an MCP log message (`notifications/message`) to the client making this call, on this
   * request's stream, when its `logging/setLevel` lets the level through; a no-op for the CLI.
   * `log` is the server's own log (stderr and every client); this one is for the caller.
   */
  notify(level: ClientLogLevel, data: unknown): Promise<void>;
  /**
   * Closes this call's SSE stream (Streamable HTTP with resumability, clients of protocol
   * 2025-11-25 or later): the client reconnects after the server's retry interval with
   * Last-Event-ID and receives what was sent since, the result included. For long calls behind
   * proxies that cut quiet connections. Returns false where the transport cannot resume (stdio,
   * in memory, older clients), and the stream stays as it is.
   */
  closeStream(): boolean;
  log: Logger;
  session: SessionStore;
  settings: Readonly<HostSettings>;
  /** A service another plugin provides (declared in this plugin's `requires`). */
  service<T>(name: string): T;
  /** The MCP session id of the connection making the call (undefined for stdio / CLI). */
  connectionId?: string;
  /**
   * Calls another verb through the whole pipeline (gates included: a read-only server refuses a
   * write there too) as this caller, with this call's cancellation; for verbs that compose others.
   * Nesting is limited to MAX_INVOKE_DEPTH.
   */
  invoke(verb: string, args: Record<string, unknown>): Promise<InvokeResult>;
}

/** What a nested call gave: its result value (envelope removed), or its error body. */
export type InvokeResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: { code: string; message: string; hint?: string } };

/** How deep verbs may call verbs. */
export const MAX_INVOKE_DEPTH = 3;

/** What every call of one generation shares (built once per generation). */
export interface CallEnvironment {
  session: SessionStore;
  settings: Readonly<HostSettings>;
  /** The implementation of a provided service; throws PLUGIN_SERVICE for one nobody provides. */
  lookupService(name: string): unknown;
  /** Runs a nested tools/call on the same generation. */
  dispatch(name: string, args: unknown, request: CallRequest): Promise<CallToolResult>;
}

/** What the transport says about one request. */
export interface CallRequest {
  /** The request's abort signal (client cancellation). */
  signal?: AbortSignal;
  /** Sends a progress notification; absent when the client did not ask for progress. */
  sendProgress?: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Closes the request's SSE stream for the client to resume; absent where it cannot resume. */
  closeStream?: () => void;
  /** Sends a log message to the caller (filtered by its level); absent without an MCP client. */
  sendLog?: (level: ClientLogLevel, logger: string, data: unknown) => Promise<void>;
  connectionId?: string;
  /** Set by transports that authenticate callers (HTTP): the credential's grant and the session's pin. */
  identity?: CallIdentity;
  /** Told the agent id the call runs as, once bound (a transport addresses an agent's private log lines with it). */
  actingAs?: (agentId: string) => void;
  /** Nesting depth of a call made by another verb (`invoke`); absent for a client's call. */
  depth?: number;
}

/**
 * The context one call's handler and taps see. Its methods live on the prototype (no closures per
 * call), and its abort signal is made only when someone reads it: most handlers never do, and an
 * AbortController per call costs more than the rest of a small call's pipeline.
 */
export class PipelineCallContext implements CallContext {
  readonly settings: Readonly<HostSettings>;
  readonly session: SessionStore;
  readonly connectionId?: string;
  private controller: AbortController | undefined;
  /** The last progress reported (as given) and sent (placed on the request's one scale). */
  private lastProgress: { done: number; total?: number; sent: number } | undefined;
  private progressOffset = 0;
  /** Set when the pipeline stopped the call (timeout), whether or not anyone read the signal. */
  private stopReason: { reason: unknown } | undefined;

  constructor(
    readonly verb: string,
    readonly plugin: string,
    readonly agentId: string,
    readonly role: AgentRole,
    readonly log: Logger,
    private readonly env: CallEnvironment,
    private readonly request: CallRequest,
  ) {
    this.settings = env.settings;
    this.session = env.session;
    this.connectionId = request.connectionId;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      const client = this.request.signal;
      if (this.stopReason) controller.abort(this.stopReason.reason);
      else if (client?.aborted) controller.abort(client.reason);
      // Once: the listener goes away with the request's own signal when the request ends.
      else client?.addEventListener('abort', () => controller.abort(client.reason), { once: true });
    }
    return this.controller.signal;
  }

  /** True once the client cancelled or the pipeline stopped the call. */
  get aborted(): boolean {
    return this.stopReason !== undefined || this.request.signal?.aborted === true;
  }

  /** Stops the call: aborts the signal handed out (if any), and any handed out later. */
  stop(reason?: unknown): void {
    this.stopReason ??= { reason };
    this.controller?.abort(reason);
  }

  /**
   * One progress per request that only increases, as the spec requires, whoever reports it (a tap
   * loading the graph, then the handler's own phases): a report that starts a new phase (a lower
   * count, or the same count of another total) is placed after everything already sent; a repeated count is dropped.
   */
  async progress(done: number, total?: number, message?: string): Promise<void> {
    if (!this.request.sendProgress || this.aborted) return;
    const last = this.lastProgress;
    if (last && (done < last.done || (done === last.done && total !== last.total))) this.progressOffset = last.sent + 1;
    const sent = this.progressOffset + done;
    if (last && sent <= last.sent) return;
    this.lastProgress = { done, total, sent };
    await this.request.sendProgress(sent, total === undefined ? undefined : this.progressOffset + total, message);
  }

  async notify(level: ClientLogLevel, data: unknown): Promise<void> {
    if (this.request.sendLog && !this.aborted) await this.request.sendLog(level, `m1nd/${this.plugin}`, data);
  }

  closeStream(): boolean {
    if (!this.request.closeStream || this.aborted) return false;
    this.request.closeStream();
    return true;
  }

  service<T>(name: string): T {
    return this.env.lookupService(name) as T;
  }

  async invoke(verb: string, args: Record<string, unknown>): Promise<InvokeResult> {
    const depth = (this.request.depth ?? 0) + 1;
    if (depth > MAX_INVOKE_DEPTH) return { ok: false, error: { code: 'M1ND_ERR_CALL_INVALID_ARGS', message: `verbs nested deeper than ${MAX_INVOKE_DEPTH} calls` } };
    const result = await this.env.dispatch(verb, { ...args, agent_id: this.agentId }, { signal: this.signal, identity: this.request.identity, connectionId: this.request.connectionId, depth });
    return invokeResult(result);
  }
}

/** A tools/call result as a nested caller sees it: the value without its envelope, or the error body. */
export function invokeResult(result: CallToolResult): InvokeResult {
  if (result.structuredContent && !result.isError) {
    const { _m1nd: _envelope, ...value } = result.structuredContent as Record<string, unknown>;
    return { ok: true, value };
  }
  const block = result.content?.[0];
  const text = block && block.type === 'text' ? block.text : '';
  let parsed: Record<string, unknown>;
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { text };
  }
  if (result.isError) return { ok: false, error: (parsed.error as { code: string; message: string; hint?: string }) ?? { code: 'M1ND_ERR_CALL_HANDLER', message: text || 'failed' } };
  delete parsed._m1nd;
  return { ok: true, value: parsed };
}

/** MCP log levels, least severe first (RFC 5424 names, as `logging/setLevel` takes them). */
export type ClientLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** One MCP content block: text, image, audio, an embedded resource or a resource link. */
export type ToolContentBlock = ContentBlock;

const CONTENT = Symbol.for('m1nd.toolContent');

/**
 * A handler result sent as MCP content blocks as they are, instead of the compact JSON text a
 * plain result becomes. Result shaping (token budget, envelope) does not touch it: the handler
 * owns its size. Build one with `toolContent`.
 */
export interface ToolContent {
  readonly [CONTENT]: true;
  readonly content: readonly ToolContentBlock[];
  /** Sent as `structuredContent` beside the blocks (declare `output` on the verb for it). */
  readonly structuredContent?: Record<string, unknown>;
}

/**
 * Wraps MCP content blocks as a handler's result, e.g.
 * `return toolContent([{ type: 'image', data: base64, mimeType: 'image/png' }])`.
 */
export function toolContent(content: ToolContentBlock | readonly ToolContentBlock[], structuredContent?: Record<string, unknown>): ToolContent {
  const blocks = Array.isArray(content) ? [...(content as readonly ToolContentBlock[])] : [content as ToolContentBlock];
  return Object.freeze({ [CONTENT]: true as const, content: blocks, ...(structuredContent ? { structuredContent } : {}) });
}

/** Whether a handler's result is content blocks made by `toolContent` (any copy of m1nd). */
export function isToolContent(value: unknown): value is ToolContent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CONTENT] === true;
}
