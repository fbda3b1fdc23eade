/**
 * The Streamable HTTP transport: one node:http server, one SDK transport (and one MCP server from
 * `host.connect`) per MCP session, every session served by the same host so memory is shared.
 * Security checks (Host, Origin, bearer token, body size) run here before the SDK sees a request,
 * so they hold whatever the SDK's own options do.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, M1ndError, type ErrorCode } from './errors.ts';
import type { Host } from './host.ts';
import type { Logger } from './log.ts';
import { HttpAuthenticator, type OAuthOptions, type TokenSpec } from './http-auth.ts';
import type { AgentGrant, CallIdentity, SessionPin } from './identity.ts';
import { IDENTITY_KEY } from './mcp-server.ts';
import { DEFAULT_HTTP_PORT } from './http-entry.ts';
import { clip, headerValue, isLoopbackAddress, RequestGuard, urlHostFor } from './http-guard.ts';

export { DEFAULT_HTTP_PORT };
import { SessionEventStore, type EventStoreLimits } from './event-store.ts';

/** Options of `serveHttp`; the token normally comes from M1ND_HTTP_TOKEN, read by the caller. */
export interface HttpOptions {
  /** TCP port (default 7463; 0 picks a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1); a non-loopback address requires `token`. */
  host?: string;
  /** Bearer token every request must carry in `Authorization: Bearer <token>`; it may act as any agent id. */
  token?: string;
  /** Bearer tokens naming the agent ids (exact or `prefix-*`) and role each may act as (M1ND_HTTP_TOKENS). */
  tokens?: Record<string, TokenSpec>;
  /** An authorization server whose JWT access tokens are accepted (serves RFC 9728 metadata). */
  oauth?: OAuthOptions;
  /** Lets one MCP session act as several agent ids (loopback only; `--allow-agent-switch`). */
  allowAgentSwitch?: boolean;
  /** Extra accepted Host header values (`name:port`), on top of the loopback ones. */
  allowedHosts?: string[];
  /** Extra accepted Origin header values (`scheme://name:port`), on top of the loopback ones. */
  allowedOrigins?: string[];
  /** Largest accepted request body in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Path of the MCP endpoint (default /mcp). */
  path?: string;
  /**
   * Resumable SSE streams: each session keeps what it sent in a bounded buffer so a client that
   * reconnects with Last-Event-ID gets what it missed (default on; `false` turns it off).
   */
  resumability?: false | (EventStoreLimits & { /** `retry` sent to clients, ms before reconnecting (default 1000). */ retryMs?: number });
  /** Close sessions with no request for this long (default 30 min; 0 keeps them until DELETE). */
  sessionIdleMs?: number;
  log?: Logger;
}

/** A running HTTP endpoint: where it listens and how to stop it. */
export interface HttpServerHandle {
  /** The MCP endpoint URL, reachable from this machine. */
  url: string;
  port: number;
  /** Closes every MCP session and the HTTP server (the host itself stays up). */
  close(): Promise<void>;
}

/** Default request body limit (4 MiB), the same bound the SDK applies by default. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** How long a client waits before reconnecting a stream the server closed (SSE `retry`). */
export const DEFAULT_RETRY_MS = 1000;
const HEALTH_PATH = '/health';

type Transport = StreamableHTTPServerTransport;

/** Serves the host over Streamable HTTP (stateful sessions keyed by `mcp-session-id`). */
export async function serveHttp(host: Host, options: HttpOptions = {}): Promise<HttpServerHandle> {
  const bindHost = options.host ?? '127.0.0.1';
  const token = options.token === '' ? undefined : options.token;
  const mcpPath = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = (options.log ?? host.log).child('http');
  const hasCredentials = token !== undefined || Object.keys(options.tokens ?? {}).length > 0 || options.oauth !== undefined;
  if (!isLoopbackAddress(bindHost) && options.allowAgentSwitch) {
    // Switching ids in one session is only safe when every caller is already one trust domain.
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `--allow-agent-switch is only accepted on a loopback address, not ${bindHost}`, {
      hint: 'list the agent ids a multi-agent host may use in its M1ND_HTTP_TOKENS entry instead',
    });
  }
  if (!isLoopbackAddress(bindHost) && !hasCredentials) {
    // Off loopback, anyone on the network could drive the agents' shared memory: refuse to start.
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `refusing to serve HTTP on non-loopback address ${bindHost} without a bearer token`, {
      hint: 'set M1ND_HTTP_TOKEN or M1ND_HTTP_TOKENS (clients send "Authorization: Bearer <token>") or bind 127.0.0.1',
    });
  }
  if (!Number.isFinite(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `maxBodyBytes must be a positive number of bytes, got ${maxBodyBytes}`);
  }

  /** Sessions that finished initialize, by session id. */
  const sessions = new Map<string, Transport>();
  /** Per transport: the agent pinned to its MCP session, and the credential that opened it. */
  const owners = new WeakMap<Transport, { pin: SessionPin; subject: string }>();
  /** Last request time per session: SDK clients rarely send DELETE, so idle sessions are swept. */
  const lastSeen = new Map<string, number>();
  /** When each live session finished initialize (plugin routes list the live sessions). */
  const openedAt = new Map<string, number>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const resumability = options.resumability === false ? undefined : (options.resumability ?? {});
  const sweeper =
    idleMs > 0
      ? setInterval(() => {
          const cutoff = Date.now() - idleMs;
          for (const [id, at] of lastSeen) {
            if (at >= cutoff) continue;
            lastSeen.delete(id);
            log.info(`session ${id} idle for ${Math.round(idleMs / 1000)} s: closed`);
            void sessions.get(id)?.close();
          }
        }, Math.min(idleMs, 60_000))
      : undefined;
  sweeper?.unref();
  /** Every transport ever connected and not yet closed, initialized or not (close() sweeps them). */
  const live = new Set<Transport>();
  // Filled once the port is known (port 0 is only resolved by listen); no request can arrive earlier,
  // since requests are I/O callbacks and the guard is set in the same turn listen resolves.
  let guard: RequestGuard | undefined;
  let auth: HttpAuthenticator | undefined;
  let endpointUrl = '';

  const openSession = async (grant: AgentGrant): Promise<Transport> => {
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        lastSeen.set(id, Date.now());
        openedAt.set(id, Date.now());
        log.debug(`session ${id} opened (${sessions.size} live)`);
      },
      // Defence in depth: the SDK re-checks what the guard already checked.
      enableDnsRebindingProtection: true,
      allowedHosts: guard!.hosts,
      allowedOrigins: guard!.origins,
      maxRequestBodySize: maxBodyBytes,
      ...(resumability ? { eventStore: new SessionEventStore(resumability), retryInterval: resumability.retryMs ?? DEFAULT_RETRY_MS } : {}),
    });
    // Set before host.connect, which chains its own onclose after this one.
    transport.onclose = () => {
      live.delete(transport);
      if (transport.sessionId !== undefined && sessions.get(transport.sessionId) === transport) {
        sessions.delete(transport.sessionId);
        lastSeen.delete(transport.sessionId);
        openedAt.delete(transport.sessionId);
        log.debug(`session ${transport.sessionId} closed (${sessions.size} live)`);
      }
    };
    live.add(transport);
    owners.set(transport, { pin: { allowSwitch: options.allowAgentSwitch === true }, subject: grant.subject });
    await host.connect(transport);
    return transport;
  };

  /** Attaches the call identity for dispatch, or refuses a session opened by another credential. */
  const authorizeSession = (req: http.IncomingMessage, res: http.ServerResponse, transport: Transport, grant: AgentGrant): boolean => {
    const owner = owners.get(transport)!;
    if (owner.subject !== grant.subject) {
      sendRefusal(res, 403, ErrorCodes.HTTP_FORBIDDEN, 'this MCP session was opened with another credential', 'session-owner', 'open your own session (initialize) with your own token');
      return false;
    }
    const identity: CallIdentity = { grant, pin: owner.pin };
    (req as http.IncomingMessage & { auth?: unknown }).auth = { token: '', clientId: grant.subject, scopes: [grant.role], extra: { [IDENTITY_KEY]: identity } };
    return true;
  };

  const handleMcp = async (req: http.IncomingMessage, res: http.ServerResponse, grant: AgentGrant): Promise<void> => {
    const sessionId = headerValue(req, 'mcp-session-id');
    if (sessionId !== undefined && lastSeen.has(sessionId)) lastSeen.set(sessionId, Date.now());
    if (req.method === 'POST') {
      if (!isJsonContentType(headerValue(req, 'content-type'))) {
        return sendRpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      }
      const body = await readBody(req, maxBodyBytes);
      if (body.tooLarge) {
        return sendRefusal(res, 413, ErrorCodes.HTTP_BODY_TOO_LARGE, `request body exceeds ${maxBodyBytes} bytes`, 'body-size', 'send smaller messages (split batches, narrow arguments)', { close: true });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.text);
      } catch {
        return sendRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      }
      if (sessionId !== undefined) {
        const transport = sessions.get(sessionId);
        if (!transport) return sendRpcError(res, 404, -32001, 'Session not found');
        if (!authorizeSession(req, res, transport, grant)) return;
        return transport.handleRequest(req, res, parsed);
      }
      if (!isInitializeRequest(parsed)) {
        return sendRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required (only initialize may start a session)');
      }
      const transport = await openSession(grant);
      authorizeSession(req, res, transport, grant);
      await transport.handleRequest(req, res, parsed);
      // A refused initialize (bad Accept header, …) leaves a transport no session id can reach.
      if (transport.sessionId === undefined) await transport.close();
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (sessionId === undefined) return sendRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const transport = sessions.get(sessionId);
      if (!transport) return sendRpcError(res, 404, -32001, 'Session not found');
      if (!authorizeSession(req, res, transport, grant)) return;
      return transport.handleRequest(req, res);
    }
    res.setHeader('Allow', 'GET, POST, DELETE');
    return sendRpcError(res, 405, -32000, 'Method not allowed.');
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const refusal = guard!.check(req);
      if (refusal) {
        log.warn(`refused ${req.method} ${req.url}: ${refusal.message}`);
        return sendRefusal(res, refusal.status, refusal.code, refusal.message, refusal.rule, refusal.hint);
      }
      const pathname = requestPath(req);
      // RFC 9728: the metadata that tells a client where to get a token is public.
      if (req.method === 'GET' && auth!.metadataPaths().includes(pathname)) return sendJson(res, 200, auth!.metadata());
      // Plugin routes (a dashboard, …): after the guard, before MCP; loaded only when a route matches.
      if (pathname !== mcpPath && pathname !== HEALTH_PATH && host.current.routes.size > 0) {
        const served = await serveRouteIfAny(req, res, pathname);
        if (served) return;
      }
      const outcome = await auth!.authenticate(headerValue(req, 'authorization'));
      if (!outcome.ok) {
        log.warn(`refused ${req.method} ${clip(req.url ?? '')}: ${outcome.message}`);
        res.setHeader('WWW-Authenticate', auth!.challenge(outcome.invalid));
        return sendRefusal(res, 401, ErrorCodes.HTTP_UNAUTHORIZED, outcome.message, 'bearer-token', 'send "Authorization: Bearer <token>" with a token the server accepts (M1ND_HTTP_TOKEN, M1ND_HTTP_TOKENS, or an access token from the authorization server in the resource metadata)');
      }
      if (pathname === HEALTH_PATH && req.method === 'GET') return sendJson(res, 200, { status: 'ok', sessions: sessions.size });
      if (pathname === mcpPath) return handleMcp(req, res, outcome.grant);
      return sendJson(res, 404, { error: { message: `no endpoint at ${pathname}`, hint: `MCP is served at ${mcpPath}, status at ${HEALTH_PATH}` } });
    })().catch((error: unknown) => {
      log.error(`HTTP request failed: ${(error as Error)?.message ?? String(error)}`);
      if (!res.headersSent) sendRpcError(res, 500, -32603, 'Internal error');
      else res.destroy();
    });
  });

  /** Serves the plugin route matching a request (true), or leaves it to MCP and the 404 (false). */
  const serveRouteIfAny = async (req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<boolean> => {
    const found = host.current.routes.match(req.method ?? 'GET', safeDecode(pathname));
    if (!found) return false;
    if ('methods' in found) {
      res.setHeader('Allow', found.methods.join(', '));
      sendJson(res, 405, { error: { code: ErrorCodes.HTTP_BAD_REQUEST, message: `${req.method} is not served at ${pathname}`, hint: `use ${found.methods.join(' or ')}` } });
      return true;
    }
    const { serveRoute } = await import('./http-route-serve.ts');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const liveSessions = () => [...sessions.keys()].map((id) => ({ session_id: id, connected_at: openedAt.get(id) ?? 0, last_seen_at: lastSeen.get(id) ?? 0 }));
    await serveRoute({ host, auth: auth!, maxBodyBytes, mcpUrl: endpointUrl, log, readBody, liveSessions }, req, res, found.route, found.params, url);
    return true;
  };

  const port = await listen(server, options.port ?? DEFAULT_HTTP_PORT, bindHost);
  guard = new RequestGuard(port, bindHost, options.allowedHosts ?? [], options.allowedOrigins ?? []);
  const url = `http://${urlHostFor(bindHost)}:${port}${mcpPath}`;
  endpointUrl = url;
  auth = new HttpAuthenticator({ token, tokens: options.tokens, oauth: options.oauth }, url);
  log.info(`serving MCP over Streamable HTTP at ${url}${auth.required ? ' (bearer token required)' : ''}${options.allowAgentSwitch ? ' (agent switch allowed)' : ''}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= (async () => {
        if (sweeper) clearInterval(sweeper);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...live].map((t) => t.close().catch(() => undefined)));
        // Open SSE streams and keep-alive sockets would otherwise hold server.close() forever.
        server.closeAllConnections();
        await stopped;
        log.info(`HTTP transport at ${url} closed`);
      })();
      return closing;
    },
  };
}


/** Reads a request body, stopping as soon as it passes `limit` bytes. */
async function readBody(req: http.IncomingMessage, limit: number): Promise<{ tooLarge: true } | { tooLarge: false; text: string }> {
  // A declared length over the limit is refused without reading a byte.
  if (Number(req.headers['content-length']) > limit) return { tooLarge: true };
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the socket: the 413 still has to be written to it.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return { tooLarge: true };
    chunks.push(chunk);
  }
  return { tooLarge: false, text: Buffer.concat(chunks).toString('utf8') };
}

function listen(server: http.Server, port: number, bindHost: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindHost, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** A refusal by m1nd's own checks: a JSON-RPC error whose data carries the catalog code and the rule. */
function sendRefusal(
  res: http.ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  rule: string,
  hint: string,
  extra: { close?: boolean } = {},
): void {
  // The unread rest of an oversized body is not worth draining: drop the connection after replying.
  if (extra.close) res.setHeader('Connection', 'close');
  sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { code, rule, hint } } });
}

function sendRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message } });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}


/** A path with %-escapes decoded once; a malformed escape leaves it as sent (it then matches no route). */
function safeDecode(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

function requestPath(req: http.IncomingMessage): string {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}
