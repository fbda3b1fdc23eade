/** What a verb handler receives beside its arguments. */
import type { AgentRole } from './identity.ts';
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
