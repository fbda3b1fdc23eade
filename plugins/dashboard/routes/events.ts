/** GET /api/events: the live feed as Server-Sent Events (read by the browser with fetch, so the token header is sent). */
import type { ServerResponse } from 'node:http';
import type { HttpRouteResponse } from '../../../core/index.ts';
import { json, SECURITY_HEADERS, type DashboardContext } from '../context.ts';

export function events(ctx: DashboardContext, res: ServerResponse): HttpRouteResponse | void {
  if (ctx.feed.clients.size >= 32) return json({ error: { code: 'M1ND_ERR_STORE_UNAVAILABLE', message: 'too many dashboard streams are open', hint: 'close another dashboard tab and retry' } }, 503);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
    // Proxies that buffer responses would hold the events back.
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  const client = ctx.feed.attach(res);
  if (!client) return void res.end();
  client.send(`retry: 3000\n: connected\n\n`);
}
