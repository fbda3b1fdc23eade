/**
 * Who may act as which agent. A transport that authenticates its callers (HTTP) hands dispatch a
 * CallIdentity per call: the grant of the credential (which agent ids, which role) and the pin of
 * the MCP session (the agent id bound on first use). `bindAgent` is the one place that turns the
 * `agent_id` a client sent into the identity every plugin sees as `ctx.agentId`.
 * Calls without a CallIdentity (stdio, the CLI, in-process clients) are one trusted client.
 */
import { ErrorCodes, M1ndError } from './errors.ts';

/** What a role may do: `read` runs read-effect verbs only; `write` runs everything. */
export type AgentRole = 'read' | 'write';

/** What one credential (a static token or a validated JWT) allows. */
export interface AgentGrant {
  /** Agent ids this credential may act as: exact ids or `prefix-*`; `'*'` allows every id. */
  agents: readonly string[] | '*';
  role: AgentRole;
  /** A non-secret name of the credential for logs and errors (never the token itself). */
  subject: string;
}

/** The agent id pinned to one MCP session (mutable: set by the first call that names an agent). */
export interface SessionPin {
  agentId?: string;
  /** The server allows any agent id per call in this session (`--allow-agent-switch`). */
  allowSwitch: boolean;
}

/** What an authenticating transport passes to dispatch with each call. */
export interface CallIdentity {
  grant: AgentGrant;
  pin: SessionPin;
}

/** The identity a call runs as. */
export interface BoundAgent {
  agentId: string;
  role: AgentRole;
}

/** A grant that allows every agent id with the write role (the single M1ND_HTTP_TOKEN, loopback without tokens). */
export function grantAll(subject: string): AgentGrant {
  return { agents: '*', role: 'write', subject };
}

/** Whether a grant allows acting as this agent id. */
export function grantAllows(grant: AgentGrant, agentId: string): boolean {
  if (grant.agents === '*') return true;
  return grant.agents.some((p) => (p.endsWith('*') ? agentId.startsWith(p.slice(0, -1)) : agentId === p));
}

/** Whether a grant declares a host running several agents (a list of ids, or a `prefix-*` pattern). */
export function grantIsMultiAgent(grant: AgentGrant): boolean {
  return grant.agents !== '*' && (grant.agents.length > 1 || grant.agents.some((p) => p.endsWith('*')));
}

/**
 * The identity a call runs as, or the refusal: the grant must allow the requested id, and a session
 * pinned to another id refuses it unless the grant lists several agents or the server allows switching.
 * A call that names no agent (`requested` undefined) runs as `fallback` and pins nothing.
 */
export function bindAgent(requested: string | undefined, identity: CallIdentity | undefined, fallback: string): BoundAgent {
  if (!identity) return { agentId: requested ?? fallback, role: 'write' };
  const { grant, pin } = identity;
  if (requested === undefined) return { agentId: pin.agentId ?? fallback, role: grant.role };
  if (!grantAllows(grant, requested)) {
    throw new M1ndError(ErrorCodes.AUTH_AGENT_DENIED, `this credential may not act as agent "${clipId(requested)}"`, {
      hint: `use an agent_id your token allows (${describeAgents(grant)}), or ask the server's operator to add it to M1ND_HTTP_TOKENS`,
      data: { agent_id: clipId(requested), credential: grant.subject },
    });
  }
  if (pin.agentId === undefined) {
    pin.agentId = requested;
  } else if (pin.agentId !== requested && !pin.allowSwitch && !grantIsMultiAgent(grant)) {
    throw new M1ndError(ErrorCodes.AUTH_AGENT_MISMATCH, `this MCP session is bound to agent "${pin.agentId}"; it cannot act as "${clipId(requested)}"`, {
      hint: `call again with agent_id "${pin.agentId}", or open a new MCP session for agent "${clipId(requested)}"`,
      data: { bound: pin.agentId, requested: clipId(requested) },
    });
  }
  return { agentId: requested, role: grant.role };
}

function describeAgents(grant: AgentGrant): string {
  return grant.agents === '*' ? 'any id' : grant.agents.map((a) => `"${a}"`).join(', ');
}

/** Agent ids come from the client: keep them short in messages. */
function clipId(id: string): string {
  return id.length > 80 ? `${id.slice(0, 80)}…` : id;
}
