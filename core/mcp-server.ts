/**
 * One MCP protocol endpoint (the SDK's low-level Server) per connection, all served by one Host.
 * tools/list comes from the compiled surface; tools/call goes through the dispatch pipeline.
 * Unknown JSON-RPC methods are answered -32601 by the SDK's protocol layer.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { dispatchCall } from './dispatch.ts';
import { buildInstructions } from './doctrine.ts';
import { installResourceHandlers, RESOURCE_CAPABILITIES } from './mcp-resources.ts';
import { CORE_VERSION, SERVER_NAME } from './version.ts';
import type { Host } from './host.ts';
import type { CallIdentity } from './identity.ts';

/** Where the HTTP transport puts a request's CallIdentity in the SDK's AuthInfo.extra. */
export const IDENTITY_KEY = 'm1ndIdentity';

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
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    return host.call(request.params.name, request.params.arguments, {
      signal: extra.signal,
      connectionId: extra.sessionId,
      // The HTTP transport authenticates each request and attaches the grant and the session's pin.
      identity: extra.authInfo?.extra?.[IDENTITY_KEY] as CallIdentity | undefined,
      sendProgress:
        token === undefined
          ? undefined
          : (progress, total, message) =>
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }),
      // On this request's stream, honouring the level this client's session set (logging/setLevel).
      sendLog: (level, logger, data) => (logIgnored(server, level, extra.sessionId) ? Promise.resolve() : extra.sendNotification({ method: 'notifications/message', params: { level, logger, data } })),
    });
  });
  return server;
}

/** The SDK Server's own per-session level filter (what its sendLoggingMessage applies). */
function logIgnored(server: Server, level: string, sessionId: string | undefined): boolean {
  const ignored = (server as unknown as { isMessageIgnored?: (level: string, sessionId?: string) => boolean }).isMessageIgnored;
  return typeof ignored === 'function' ? ignored.call(server, level, sessionId) : false;
}

export { dispatchCall };
