/**
 * Serving one plugin HTTP route (core/http-routes.ts) inside the HTTP transport: the credential
 * check (401 for a token route without an accepted token), the bounded JSON body, the caller's
 * identity and `invoke` through the host's dispatch, and the coded JSON error of a failed handler.
 * Runs after the transport's Host/Origin guard, like /mcp.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCodes, M1ndError, toM1ndError } from './errors.ts';
import type { Host } from './host.ts';
import type { HttpAuthenticator } from './http-auth.ts';
import { ROUTE_CALL_PREFIX, statusOfError, type HttpCaller, type HttpRouteDefinition, type HttpRouteRequest, type HttpRouteResponse } from './http-routes.ts';
import { grantAllows, type AgentGrant } from './identity.ts';
import { invokeResult, type InvokeResult } from './call-context.ts';
import type { Logger } from './log.ts';

/** What the transport lends a route. */
export interface RouteServer {
  host: Host;
  auth: HttpAuthenticator;
  maxBodyBytes: number;
  mcpUrl: string;
  log: Logger;
  readBody(req: IncomingMessage, limit: number): Promise<{ tooLarge: true } | { tooLarge: false; text: string }>;
  liveSessions(): { session_id: string; connected_at: number; last_seen_at: number }[];
}

/** The agent id a dashboard-like caller acts as when it names none. */
export const DEFAULT_ROUTE_AGENT = 'dashboard';
/** Grant of a public route's request: no credential was checked, so it may only read. */
const PUBLIC_GRANT: AgentGrant = { agents: [DEFAULT_ROUTE_AGENT], role: 'read', subject: 'public-route' };

/** Serves a matched route: authenticates, reads the body, runs the handler, sends its answer or its coded error. */
export async function serveRoute(
  server: RouteServer,
  req: IncomingMessage,
  res: ServerResponse,
  route: { plugin: string; def: HttpRouteDefinition },
  params: Record<string, string>,
  url: URL,
): Promise<void> {
  for (const [name, value] of Object.entries(route.def.headers ?? {})) res.setHeader(name, value);
  let caller: HttpCaller;
  if ((route.def.access ?? 'token') === 'public') {
    caller = { grant: PUBLIC_GRANT, role: 'read', agentId: DEFAULT_ROUTE_AGENT, authenticated: false };
  } else {
    const outcome = await server.auth.authenticate(header(req, 'authorization'));
    if (!outcome.ok) {
      res.setHeader('WWW-Authenticate', server.auth.challenge(outcome.invalid));
      return sendError(res, new M1ndError(ErrorCodes.HTTP_UNAUTHORIZED, outcome.message, { hint: 'send "Authorization: Bearer <token>" with a token the server accepts (M1ND_HTTP_TOKEN or M1ND_HTTP_TOKENS)' }), req.method);
    }
    caller = { grant: outcome.grant, role: outcome.grant.role, agentId: routeAgent(outcome.grant, url.searchParams.get('agent') ?? undefined), authenticated: server.auth.required };
  }
  let body: unknown;
  if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
    const read = await server.readBody(req, server.maxBodyBytes);
    if (read.tooLarge) {
      res.setHeader('Connection', 'close');
      return sendError(res, new M1ndError(ErrorCodes.HTTP_BODY_TOO_LARGE, `request body exceeds ${server.maxBodyBytes} bytes`, { hint: 'send a smaller body' }), req.method);
    }
    try {
      body = read.text.trim() === '' ? {} : JSON.parse(read.text);
    } catch {
      return sendError(res, new M1ndError(ErrorCodes.HTTP_BAD_REQUEST, 'the request body is not valid JSON', { hint: 'send a JSON body (an empty object {} when there is nothing to say)' }), req.method);
    }
  }
  const aborter = new AbortController();
  res.on('close', () => aborter.abort());
  const request: HttpRouteRequest = {
    method: req.method ?? 'GET',
    path: decodedPath(url.pathname),
    params,
    query: url.searchParams,
    headers: req.headers,
    body,
    caller,
    signal: aborter.signal,
    mcpUrl: server.mcpUrl,
    mcpSessions: server.liveSessions,
    raw: req,
    invoke: (verb, args, options) => invokeAs(server.host, route.plugin, caller, verb, args, options?.as ?? 'reader', aborter.signal),
  };
  let answer: HttpRouteResponse | void;
  try {
    answer = await route.def.handler(request, res);
  } catch (thrown) {
    const error = toM1ndError(thrown, route.plugin);
    if (statusOfError(error) >= 500) server.log.error(`route ${route.def.method} ${route.def.path} (${route.plugin}) failed: ${error.message}`);
    if (res.headersSent) return void res.destroy();
    return sendError(res, error, req.method);
  }
  if (!answer || res.headersSent || res.writableEnded) return;
  send(res, answer, req.method);
}

/** The agent id a route request acts as: the asked one when the grant allows it, else the grant's first plain id, else `dashboard`. */
export function routeAgent(grant: AgentGrant, asked: string | undefined): string {
  if (asked && asked.length <= 128 && grantAllows(grant, asked)) return asked;
  if (grant.agents === '*') return DEFAULT_ROUTE_AGENT;
  const plain = grant.agents.find((a) => !a.endsWith('*'));
  if (plain) return plain;
  return `${grant.agents[0].slice(0, -1)}${DEFAULT_ROUTE_AGENT}`;
}

/** Runs a verb through the host's dispatch as the caller (its grant) or as a reader (its agent id, the read role). */
async function invokeAs(host: Host, plugin: string, caller: HttpCaller, verb: string, args: Record<string, unknown>, as: 'reader' | 'caller', signal: AbortSignal): Promise<InvokeResult> {
  const grant: AgentGrant = as === 'caller' ? caller.grant : { agents: [caller.agentId], role: 'read', subject: `${caller.grant.subject} (read)` };
  const result = await host.call(verb, { ...args, agent_id: caller.agentId }, {
    identity: { grant, pin: { agentId: caller.agentId, allowSwitch: false } },
    connectionId: `${ROUTE_CALL_PREFIX}${plugin}`,
    signal,
  });
  return invokeResult(result);
}

const BASE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

function send(res: ServerResponse, answer: HttpRouteResponse, method: string | undefined): void {
  const isJson = answer.json !== undefined;
  const payload = isJson ? JSON.stringify(answer.json) : (answer.body ?? '');
  const headers: Record<string, string | number> = {
    ...BASE_HEADERS,
    ...(isJson ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
    ...answer.headers,
    'Content-Length': Buffer.byteLength(payload),
  };
  res.writeHead(answer.status ?? 200, headers);
  res.end(method === 'HEAD' ? undefined : payload);
}

/** The JSON error every route answers with: `{error: {code, message, hint}}` and the status of its code. */
function sendError(res: ServerResponse, error: M1ndError, method: string | undefined): void {
  const status = statusOfError(error);
  // A handler's unexpected failure says nothing of its internals.
  const message = status >= 500 && error.code === ErrorCodes.CALL_HANDLER ? 'the route failed; the server log has the reason' : error.message;
  send(res, { status, json: { error: { code: error.code, message, hint: error.hint ?? '' } } }, method);
}

function decodedPath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
