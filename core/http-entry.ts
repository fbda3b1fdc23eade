/**
 * The public entry of the HTTP transport: `serveHttp` loads core/http.ts (the SDK's Streamable HTTP
 * transport, Hono's node adapter, the OAuth verifier) on first call, so a process that never serves
 * HTTP (stdio, `m1nd call`) does not evaluate them at start.
 */
import type { Host } from './host.ts';
import type { HttpOptions, HttpServerHandle } from './http.ts';

/** Default TCP port of the HTTP transport. */
export const DEFAULT_HTTP_PORT = 7463;

/** Serves the host over Streamable HTTP (stateful sessions keyed by `mcp-session-id`). */
export async function serveHttp(host: Host, options: HttpOptions = {}): Promise<HttpServerHandle> {
  const http = await import('./http.ts');
  return http.serveHttp(host, options);
}
