/**
 * One MCP protocol endpoint (the SDK's low-level Server) per connection, all served by one Host.
 * tools/list comes from the compiled surface; tools/call goes through the dispatch pipeline.
 * Unknown JSON-RPC methods are answered -32601 by the SDK's protocol layer.
 *
 * Logging: each connection (MCP session) has its own threshold, set by its `logging/setLevel`
 * (until then, the default the host's log sink gives: warning for `serve`, info for `dev`). A line
 * logged while a tools/call runs goes to the session that made the call; other lines (reloads,
 * watchers, start-up) go to every session. The server's own stderr threshold (M1ND_LOG_LEVEL) is
 * separate and unaffected.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  RequestSchema,
  SetLevelRequestSchema,
  type CallToolRequest,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { dispatchCall } from './dispatch.ts';
import { buildInstructions } from './doctrine.ts';
import { installResourceHandlers, RESOURCE_CAPABILITIES } from './mcp-resources.ts';
import { CORE_VERSION, SERVER_NAME } from './version.ts';
import type { Host } from './host.ts';
import type { CallIdentity } from './identity.ts';
import type { CallRequest, ClientLogLevel } from './call-context.ts';

/** Where the HTTP transport puts a request's CallIdentity in the SDK's AuthInfo.extra. */
export const IDENTITY_KEY = 'm1ndIdentity';

/** MCP's levels, least severe first. */
const SEVERITY = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));
/** Thresholds set by each session's logging/setLevel. */
const sessionLevels = new WeakMap<Server, LoggingLevel>();
/** The agent ids each session's calls have run as (bounded), for lines meant for one agent. */
const sessionAgents = new WeakMap<Server, Set<string>>();
/** Agent ids remembered per session at most (a session acting as more stops hearing the newest ones' private lines). */
const MAX_SESSION_AGENTS = 256;
/** The session whose tools/call is running (only tracked while more than one session is connected). */
const callOrigin = new AsyncLocalStorage<Server>();
/** logging/setLevel with its level left unchecked by the SDK, so a bad level gets -32602 and a clear message, not -32603. */
const SetLevelLoose = RequestSchema.extend({ method: SetLevelRequestSchema.shape.method });

/**
 * Sends a log line to the sessions that should see it: the session whose call logged it, or every
 * session for a line logged outside a call; each filtered by its own threshold (`defaultLevel` for a
 * session that never set one). A line with an `audience` (an agent id: a private alert) reaches only
 * the sessions whose calls have run as that agent. A failed send is dropped: logging never breaks a call.
 */
export function deliverLog(servers: Iterable<Server>, level: LoggingLevel, logger: string, data: unknown, defaultLevel: LoggingLevel = 'debug', audience?: string): void {
  const origin = callOrigin.getStore();
  const rank = SEVERITY.get(level) ?? 0;
  for (const s of servers) {
    if (origin !== undefined && s !== origin) continue;
    if (audience !== undefined && !sessionAgents.get(s)?.has(audience)) continue;
    if (rank < (SEVERITY.get(sessionLevels.get(s) ?? defaultLevel) ?? 0)) continue;
    s.sendLoggingMessage({ level, logger, data }).catch(() => undefined);
  }
}

/** A low-level SDK Server wired to a host; connect it to any transport. */
export function createMcpServer(host: Host): Server {
  const server = new Server(
    { name: SERVER_NAME, version: CORE_VERSION },
    {
      capabilities: { tools: { listChanged: true }, logging: {}, ...RESOURCE_CAPABILITIES },
      instructions: buildInstructions(host.current),
    },
  );
  // Background work (the stored graph's load) starts once a client is initialized, never before its answer.
  server.oninitialized = () => host.current.markReady();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: host.current.surface().tools }));
  installResourceHandlers(server, () => host.current, host.subscriptions);
  server.setRequestHandler(SetLevelLoose, async (request) => {
    const level = (request.params as { level?: unknown } | undefined)?.level;
    const parsed = LoggingLevelSchema.safeParse(level);
    if (!parsed.success) {
      throw new McpError(ErrorCode.InvalidParams, `logging/setLevel: level must be one of ${LoggingLevelSchema.options.join(', ')}; got ${JSON.stringify(level) ?? 'nothing'}`);
    }
    sessionLevels.set(server, parsed.data);
    return {};
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // With one session every line goes to it anyway: the async context is only paid for when it routes.
    if (host.servers.size > 1) return callOrigin.run(server, () => callTool(request, extra));
    return callTool(request, extra);
  });
  const callTool = (request: CallToolRequest, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) =>
    host.call(request.params.name, request.params.arguments, new McpCallRequest(server, extra, request.params._meta?.progressToken));
  return server;
}

/**
 * What the pipeline needs of one tools/call request, read from the SDK's `extra` when asked: its
 * methods live on the prototype, so a call makes one object and no closures.
 */
class McpCallRequest implements CallRequest {
  constructor(
    private readonly server: Server,
    private readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    private readonly progressToken: string | number | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.extra.signal;
  }

  get connectionId(): string | undefined {
    return this.extra.sessionId;
  }

  /** The HTTP transport authenticates each request and attaches the grant and the session's pin. */
  get identity(): CallIdentity | undefined {
    return this.extra.authInfo?.extra?.[IDENTITY_KEY] as CallIdentity | undefined;
  }

  /** Remembers the agent this session's call runs as (dispatch tells it once the identity is bound). */
  actingAs(agentId: string): void {
    let agents = sessionAgents.get(this.server);
    if (!agents) sessionAgents.set(this.server, (agents = new Set()));
    if (agents.size < MAX_SESSION_AGENTS) agents.add(agentId);
  }

  /** Present only when the client asked for progress (a progress token). */
  get sendProgress(): CallRequest['sendProgress'] {
    return this.progressToken === undefined ? undefined : this.progress;
  }

  get closeStream(): (() => void) | undefined {
    return this.extra.closeSSEStream;
  }

  private progress(this: McpCallRequest, progress: number, total?: number, message?: string): Promise<void> {
    return this.extra.sendNotification({ method: 'notifications/progress', params: { progressToken: this.progressToken!, progress, total, message } });
  }

  /** On this request's stream, honouring the level this client's session set (logging/setLevel). */
  sendLog(level: ClientLogLevel, logger: string, data: unknown): Promise<void> {
    return logIgnored(this.server, level) ? Promise.resolve() : this.extra.sendNotification({ method: 'notifications/message', params: { level, logger, data } });
  }
}

/**
 * Whether a line a handler sends its caller (ctx.notify) falls below the threshold this session set
 * with logging/setLevel. A session that never set one gets every line it is sent directly.
 */
function logIgnored(server: Server, level: string): boolean {
  const threshold = sessionLevels.get(server);
  return threshold !== undefined && (SEVERITY.get(level as LoggingLevel) ?? 0) < (SEVERITY.get(threshold) ?? 0);
}

export { dispatchCall };
