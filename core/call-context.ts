/** What a verb handler receives beside its arguments. */
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
  log: Logger;
  session: SessionStore;
  settings: Readonly<HostSettings>;
  /** A service another plugin provides (declared in this plugin's `requires`). */
  service<T>(name: string): T;
  /** The MCP session id of the connection making the call (undefined for stdio / CLI). */
  connectionId?: string;
}

/** What every call of one generation shares (built once per generation). */
export interface CallEnvironment {
  session: SessionStore;
  settings: Readonly<HostSettings>;
  /** The implementation of a provided service; throws PLUGIN_SERVICE for one nobody provides. */
  lookupService(name: string): unknown;
}

/** What the transport says about one request. */
export interface CallRequest {
  /** The request's abort signal (client cancellation). */
  signal?: AbortSignal;
  /** Sends a progress notification; absent when the client did not ask for progress. */
  sendProgress?: (progress: number, total?: number, message?: string) => Promise<void>;
  connectionId?: string;
  /** Set by transports that authenticate callers (HTTP): the credential's grant and the session's pin. */
  identity?: CallIdentity;
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

  async progress(done: number, total?: number, message?: string): Promise<void> {
    if (this.request.sendProgress && !this.aborted) await this.request.sendProgress(done, total, message);
  }

  service<T>(name: string): T {
    return this.env.lookupService(name) as T;
  }
}
