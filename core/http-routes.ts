/**
 * HTTP routes plugins register beside their verbs (`ctx.registerHttpRoute`), served by the
 * Streamable HTTP transport on the MCP port after the same Host/Origin and body-size checks as
 * /mcp. A route is `public` (static assets holding no data) or needs the request's credential
 * (the default: with tokens configured, a missing or invalid token is a 401). A handler gets the
 * caller's grant and an `invoke` that runs a verb through the whole dispatch pipeline (gates,
 * read-only, envelope) as the caller or as a read-only identity. The core knows nothing of what
 * the routes serve; stdio servers never look at them.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCodes, M1ndError, type ErrorCode } from './errors.ts';
import type { InvokeResult } from './call-context.ts';
import type { AgentGrant, AgentRole } from './identity.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The connection id of calls a route makes through `invoke` (`http-route:<plugin>`), so call observers can tell them from agents' calls. */
export const ROUTE_CALL_PREFIX = 'http-route:';

/** A route a plugin serves over HTTP. */
export interface HttpRouteDefinition {
  method: HttpMethod;
  /**
   * `/api/overview`, with `:name` segments (`/api/alerts/:id/ack`), or a prefix ending in `/*`
   * (`/assets/*`: the rest is `params['*']`). Exact paths win over patterns, longer prefixes over shorter.
   */
  path: string;
  /** `token` (default): needs an accepted bearer token when the server has any. `public`: served without one; must hold no data. */
  access?: 'token' | 'public';
  /** Headers on every response of this route, refusals (401, 413, errors) included (e.g. a Content-Security-Policy). */
  headers?: Record<string, string>;
  /** Answers the request: a response to send, or nothing when the handler wrote to `res` itself (a stream). */
  handler(req: HttpRouteRequest, res: ServerResponse): Promise<HttpRouteResponse | void> | HttpRouteResponse | void;
}

/** Who sent a request, as its credential says. */
export interface HttpCaller {
  /** The credential's grant (loopback without tokens: every agent id, role write). */
  grant: AgentGrant;
  role: AgentRole;
  /** The agent id the request acts as: `agent` of the query when the grant allows it, else the grant's first plain id, else `dashboard`. */
  agentId: string;
  /** False when the route is public and no credential was checked. */
  authenticated: boolean;
}

/** What a route handler receives. */
export interface HttpRouteRequest {
  method: string;
  /** The request path (decoded once; the query string removed). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** A POST/PUT/PATCH body parsed as JSON (bounded by the server's body limit); undefined otherwise. */
  body: unknown;
  caller: HttpCaller;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The MCP endpoint URL of this server. */
  mcpUrl: string;
  /** The MCP sessions this HTTP server holds now (epoch ms times). */
  mcpSessions(): { session_id: string; connected_at: number; last_seen_at: number }[];
  /**
   * Runs a verb through the whole dispatch pipeline: `as: 'reader'` (default) with the caller's agent
   * id and the read role (a write is refused), `as: 'caller'` with the caller's own grant.
   */
  invoke(verb: string, args: Record<string, unknown>, options?: { as?: 'reader' | 'caller' }): Promise<InvokeResult>;
  raw: IncomingMessage;
}

/** A response a handler returns: JSON (`json`) or bytes (`body`), with headers. */
export interface HttpRouteResponse {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Buffer;
}

interface CompiledRoute {
  plugin: string;
  def: HttpRouteDefinition;
  segments: string[];
  prefix: boolean;
}

/** The routes of one generation, matched by method and path. */
export class HttpRouteTable {
  private readonly routes: CompiledRoute[] = [];

  /** Why a route cannot be added (bad method or path, or one already served), or undefined. */
  problem(plugin: string, def: HttpRouteDefinition, reserved: readonly string[] = RESERVED_PATHS): string | undefined {
    if (!def || typeof def.handler !== 'function') return `plugin "${plugin}" registers an HTTP route without a handler`;
    if (!METHODS.includes(def.method)) return `plugin "${plugin}" registers an HTTP route with method ${JSON.stringify(def.method)}; use one of ${METHODS.join(', ')}`;
    if (typeof def.path !== 'string' || !/^\/[A-Za-z0-9._~\-/:*]*$/.test(def.path) || def.path.includes('//') || (def.path.includes('*') && !def.path.endsWith('/*')) || def.path.split('*').length > 2) {
      return `plugin "${plugin}" registers HTTP route ${JSON.stringify(def.path)}; a path starts with /, holds letters, digits, -._~ and :name segments, and only a final /* is a prefix`;
    }
    if (def.access !== undefined && def.access !== 'token' && def.access !== 'public') return `plugin "${plugin}" registers HTTP route ${def.path} with access ${JSON.stringify(def.access)}; use "token" or "public"`;
    const clash = reserved.find((r) => def.path === r || def.path.startsWith(`${r}/`) || (def.path.endsWith('/*') && r.startsWith(def.path.slice(0, -1))));
    if (clash) return `plugin "${plugin}" registers HTTP route ${def.path}, which would shadow the server's own ${clash}`;
    const same = this.routes.find((r) => r.def.method === def.method && r.def.path === def.path);
    if (same) return `HTTP route ${def.method} ${def.path} is registered by plugin "${same.plugin}" and again by plugin "${plugin}"; change one path`;
    return undefined;
  }

  add(plugin: string, def: HttpRouteDefinition): void {
    const prefix = def.path.endsWith('/*');
    const segments = (prefix ? def.path.slice(0, -2) : def.path).split('/').filter(Boolean);
    this.routes.push({ plugin, def, segments, prefix });
    // Exact before patterns, longer before shorter: the first match is the most specific.
    this.routes.sort((a, b) => Number(a.prefix) - Number(b.prefix) || b.segments.length - a.segments.length || params(a) - params(b));
  }

  get size(): number {
    return this.routes.length;
  }

  /** Every route, for listings. */
  all(): { plugin: string; method: HttpMethod; path: string; access: 'token' | 'public' }[] {
    return this.routes.map((r) => ({ plugin: r.plugin, method: r.def.method, path: r.def.path, access: r.def.access ?? 'token' }));
  }

  /**
   * The route serving a path: `matched` with its params, `methods` when the path is served for other
   * methods only (a 405), or undefined.
   */
  match(method: string, path: string): { route: { plugin: string; def: HttpRouteDefinition }; params: Record<string, string> } | { methods: string[] } | undefined {
    const parts = path.split('/').filter(Boolean);
    const others = new Set<string>();
    for (const r of this.routes) {
      const p = matchSegments(r, parts);
      if (!p) continue;
      if (r.def.method === method || (method === 'HEAD' && r.def.method === 'GET')) return { route: { plugin: r.plugin, def: r.def }, params: p };
      others.add(r.def.method);
    }
    return others.size > 0 ? { methods: [...others] } : undefined;
  }
}

/** Paths the transport serves itself; no route may take them. */
export const RESERVED_PATHS: readonly string[] = ['/mcp', '/health', '/.well-known'];

function params(r: CompiledRoute): number {
  return r.segments.filter((s) => s.startsWith(':')).length;
}

function matchSegments(r: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  if (r.prefix ? parts.length < r.segments.length : parts.length !== r.segments.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < r.segments.length; i++) {
    const s = r.segments[i];
    if (s.startsWith(':')) out[s.slice(1)] = parts[i];
    else if (s !== parts[i]) return undefined;
  }
  if (r.prefix) out['*'] = parts.slice(r.segments.length).join('/');
  return out;
}

/** The HTTP status of an error a handler threw (its `data.status` when set, else from its code). */
export function statusOfError(error: M1ndError): number {
  const explicit = error.data?.status;
  if (typeof explicit === 'number' && explicit >= 400 && explicit < 600) return explicit;
  const byCode: Partial<Record<ErrorCode, number>> = {
    [ErrorCodes.HTTP_UNAUTHORIZED]: 401,
    [ErrorCodes.HTTP_FORBIDDEN]: 403,
    [ErrorCodes.AUTH_ROLE]: 403,
    [ErrorCodes.AUTH_AGENT_DENIED]: 403,
    [ErrorCodes.AUTH_AGENT_MISMATCH]: 403,
    [ErrorCodes.GATE_READ_ONLY]: 403,
    [ErrorCodes.PATH_ESCAPE]: 403,
    [ErrorCodes.PATH_NOT_FOUND]: 404,
    [ErrorCodes.STATE_NOT_FOUND]: 404,
    [ErrorCodes.GRAPH_NODE_NOT_FOUND]: 404,
    [ErrorCodes.HTTP_NOT_FOUND]: 404,
    [ErrorCodes.GRAPH_EMPTY]: 409,
    [ErrorCodes.STATE_CONFLICT]: 409,
    [ErrorCodes.HTTP_BODY_TOO_LARGE]: 413,
    [ErrorCodes.STORE_UNAVAILABLE]: 503,
    [ErrorCodes.CALL_TIMEOUT]: 504,
  };
  return byCode[error.code] ?? (error.code === ErrorCodes.CALL_HANDLER ? 500 : 400);
}

/** A coded refusal a route handler throws with an explicit HTTP status. */
export function httpError(status: number, code: ErrorCode, message: string, hint: string): M1ndError {
  return new M1ndError(code, message, { hint, data: { status } });
}
