import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type Host } from '../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../core/http.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/** One HTTP request with full control of the headers (fetch forbids setting Host). */
function rawRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any = text;
        try {
          json = JSON.parse(text);
        } catch {
          // non-JSON bodies stay text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    if (init.body !== undefined && init.chunked) {
      // Two writes without Content-Length: the server only learns the size while streaming.
      const body = Buffer.from(init.body);
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else {
      req.end(init.body);
    }
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0.0.0' } },
});
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function connectClient(url: string, headers?: Record<string, string>): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined);
  const client = new Client({ name: 'm1nd-http-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function json(result: unknown): any {
  const r = result as CallToolResult;
  return JSON.parse(r.content[0]?.type === 'text' ? r.content[0].text : 'null');
}

describe('Streamable HTTP transport (serveHttp)', function () {
  let host: Host;
  let served: HttpServerHandle;
  let base: string;

  before(async () => {
    host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger() });
    served = await serveHttp(host, { port: 0 });
    base = served.url.replace(/\/mcp$/, '');
  });
  after(async () => {
    await served.close();
    await host.close();
  });

  it('binds 127.0.0.1 on an ephemeral port and reports the MCP URL', () => {
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(served.port > 0);
    assert.equal(served.url, `http://127.0.0.1:${served.port}/mcp`);
  });

  it('initializes, lists tools and answers a help call over HTTP', async () => {
    const { client, transport } = await connectClient(served.url);
    try {
      assert.ok(transport.sessionId, 'the server assigned a session id');
      assert.equal(client.getServerVersion()?.name, 'm1nd');
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('help') && names.includes('health'), names.join(','));
      const result = await client.callTool({ name: 'help', arguments: { agent_id: 'http-agent' } });
      assert.notEqual(result.isError, true);
      // The same answer the host gives in-process (only the measured time differs).
      const direct = await host.call('help', { agent_id: 'http-agent' });
      const strip = (x: any) => ({ ...x, _m1nd: { ...x._m1nd, elapsed_ms: 0 } });
      assert.deepEqual(strip(json(result)), strip(json(direct)));
      assert.equal(json(result)._m1nd.verb, 'help');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('serves two clients at once, each in its own session, sharing one host memory', async () => {
    const [a, b] = await Promise.all([connectClient(served.url), connectClient(served.url)]);
    try {
      assert.ok(a.transport.sessionId && b.transport.sessionId);
      assert.notEqual(a.transport.sessionId, b.transport.sessionId);
      const [toolsA, toolsB] = await Promise.all([a.client.listTools(), b.client.listTools()]);
      assert.deepEqual(toolsA.tools.map((t) => t.name), toolsB.tools.map((t) => t.name));
      await Promise.all([
        a.client.callTool({ name: 'health', arguments: { agent_id: 'agent-a' } }),
        b.client.callTool({ name: 'health', arguments: { agent_id: 'agent-b' } }),
      ]);
      // Both sessions see the memory the other wrote: one SessionStore behind every connection.
      const [healthA, healthB] = await Promise.all([
        a.client.callTool({ name: 'health', arguments: { agent_id: 'agent-a' } }),
        b.client.callTool({ name: 'health', arguments: { agent_id: 'agent-b' } }),
      ]);
      assert.ok(json(healthA).sessions.agents >= 2);
      assert.ok(json(healthB).sessions.agents >= 2);
      const ids = host.session.listAgents().map((r) => r.agentId);
      assert.ok(ids.includes('agent-a') && ids.includes('agent-b'), ids.join(','));
      const status = await rawRequest(`${base}/health`);
      assert.equal(status.status, 200);
      assert.ok(status.json.sessions >= 2);
    } finally {
      await Promise.all([a, b].map(async (c) => {
        await c.transport.terminateSession();
        await c.client.close();
      }));
    }
  });

  it('ends a session on DELETE, after which its id is unknown (404)', async () => {
    const { client, transport } = await connectClient(served.url);
    const id = transport.sessionId!;
    const before = (await rawRequest(`${base}/health`)).json.sessions;
    const servers = host.servers.size;
    await transport.terminateSession();
    await client.close();
    assert.equal((await rawRequest(`${base}/health`)).json.sessions, before - 1);
    assert.equal(host.servers.size, servers - 1, 'the MCP server of the session left the host');
    const stale = await rawRequest(served.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    assert.equal(stale.status, 404);
  });

  it('pushes tools/list_changed to an HTTP session when the host reloads', async () => {
    const { client, transport } = await connectClient(served.url);
    try {
      const before = (await client.listTools()).tools.map((t) => t.name);
      const notified = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      // The notification travels on the session's standalone GET stream, which the client opens after initialize.
      const report = await host.reload();
      assert.equal(report.ok, true, report.error);
      await notified;
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), before, 'the reloaded generation serves the same verbs');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('refuses a foreign Origin with 403 and a JSON body naming the rule', async () => {
    const res = await rawRequest(served.url, { method: 'POST', headers: { ...MCP_HEADERS, Origin: 'https://evil.example.com' }, body: INITIALIZE });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.data.code, 'M1ND_ERR_HTTP_FORBIDDEN');
    assert.equal(res.json.error.data.rule, 'origin');
    assert.match(res.json.error.message, /evil\.example\.com/);
  });

  it('accepts a loopback Origin on the same port', async () => {
    const res = await rawRequest(served.url, { method: 'POST', headers: { ...MCP_HEADERS, Origin: `http://localhost:${served.port}` }, body: INITIALIZE });
    assert.equal(res.status, 200);
    const id = res.headers['mcp-session-id'] as string;
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a random UUID session id');
    assert.equal((await rawRequest(served.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status, 200);
  });

  it('refuses a foreign Host header with 403 before any session is created', async () => {
    const sessions = (await rawRequest(`${base}/health`)).json.sessions;
    const res = await rawRequest(served.url, { method: 'POST', headers: { ...MCP_HEADERS, Host: `evil.example.com:${served.port}` }, body: INITIALIZE });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.data.code, 'M1ND_ERR_HTTP_FORBIDDEN');
    assert.equal(res.json.error.data.rule, 'host');
    assert.equal((await rawRequest(`${base}/health`)).json.sessions, sessions);
  });

  it('puts GET /health behind the same Host and Origin checks', async () => {
    assert.equal((await rawRequest(`${base}/health`, { headers: { Host: 'rebound.example' } })).status, 403);
    assert.equal((await rawRequest(`${base}/health`, { headers: { Origin: 'http://evil.example.com' } })).status, 403);
    const ok = await rawRequest(`${base}/health`, { headers: { Host: `localhost:${served.port}` } });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.status, 'ok');
    const { client, transport } = await connectClient(served.url);
    try {
      const more = await rawRequest(`${base}/health`, { headers: { Host: `localhost:${served.port}` } });
      assert.equal(more.json.sessions, ok.json.sessions + 1, 'one more open session');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('answers malformed JSON with a JSON-RPC parse error (-32700, HTTP 400)', async () => {
    const res = await rawRequest(served.url, { method: 'POST', headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32700);
  });

  it('requires a session id on anything but initialize', async () => {
    const res = await rawRequest(served.url, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(res.status, 400);
    assert.equal((await rawRequest(served.url, { headers: { Accept: 'text/event-stream' } })).status, 400);
  });

  describe('body size limit', function () {
    let small: HttpServerHandle;
    before(async () => {
      small = await serveHttp(host, { port: 0, maxBodyBytes: 1024 });
    });
    after(() => small.close());

    const oversized = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2048) } });

    it('refuses a declared Content-Length over the limit with 413', async () => {
      const res = await rawRequest(small.url, { method: 'POST', headers: MCP_HEADERS, body: oversized });
      assert.equal(res.status, 413);
      assert.equal(res.json.error.data.code, 'M1ND_ERR_HTTP_BODY_TOO_LARGE');
    });

    it('refuses a streamed (chunked) body once it passes the limit, before parsing it', async () => {
      // Not even valid JSON: 413 must win over the parse error because the body is never parsed.
      const res = await rawRequest(small.url, { method: 'POST', headers: MCP_HEADERS, body: `{${'x'.repeat(4096)}`, chunked: true });
      assert.equal(res.status, 413);
      assert.equal(res.json.error.data.code, 'M1ND_ERR_HTTP_BODY_TOO_LARGE');
    });

    it('still serves bodies under the limit', async () => {
      const res = await rawRequest(small.url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
      assert.equal(res.status, 200);
      await rawRequest(small.url, { method: 'DELETE', headers: { 'mcp-session-id': res.headers['mcp-session-id'] as string } });
    });
  });

  describe('bearer token', function () {
    const token = 'test-token-0123456789';
    let guarded: HttpServerHandle;
    before(async () => {
      guarded = await serveHttp(host, { port: 0, token });
    });
    after(() => guarded.close());

    it('refuses a request without a token with 401', async () => {
      const res = await rawRequest(guarded.url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
      assert.equal(res.status, 401);
      assert.equal(res.json.error.data.code, 'M1ND_ERR_HTTP_UNAUTHORIZED');
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      assert.equal((await rawRequest(guarded.url.replace(/\/mcp$/, '/health'))).status, 401);
    });

    it('refuses a wrong token with 401, whatever its length', async () => {
      for (const wrong of ['nope', `${token}x`, token.slice(0, -1)]) {
        const res = await rawRequest(guarded.url, { method: 'POST', headers: { ...MCP_HEADERS, Authorization: `Bearer ${wrong}` }, body: INITIALIZE });
        assert.equal(res.status, 401, wrong);
      }
      await assert.rejects(connectClient(guarded.url, { Authorization: 'Bearer wrong' }));
    });

    it('serves a client that sends the right token', async () => {
      const { client, transport } = await connectClient(guarded.url, { Authorization: `Bearer ${token}` });
      try {
        const result = await client.callTool({ name: 'health', arguments: { agent_id: 'token-agent' } });
        assert.equal(json(result).server.name, 'm1nd');
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    });
  });

  describe('binding', function () {
    it('refuses a non-loopback address without a token, saying a token is required', async () => {
      await assert.rejects(serveHttp(host, { host: '0.0.0.0', port: 0 }), (e: Error) => /without a bearer token/.test(e.message) && /M1ND_HTTP_TOKEN/.test((e as any).hint));
    });

    it('accepts a non-loopback address when a token is set, with a locally reachable URL', async () => {
      const wide = await serveHttp(host, { host: '0.0.0.0', port: 0, token: 't' });
      try {
        assert.equal(wide.url, `http://127.0.0.1:${wide.port}/mcp`);
        assert.equal((await rawRequest(wide.url.replace(/\/mcp$/, '/health'), { headers: { Authorization: 'Bearer t' } })).status, 200);
      } finally {
        await wide.close();
      }
    });
  });

  it('closes sessions that stay idle longer than sessionIdleMs', async () => {
    const idle = await serveHttp(host, { port: 0, sessionIdleMs: 150 });
    try {
      const { client } = await connectClient(idle.url);
      const health = () => rawRequest(idle.url.replace(/\/mcp$/, "/health")).then((r) => r.json.sessions);
      assert.equal(await health(), 1);
      // Poll rather than sleep a fixed time: a loaded CI machine runs timers late.
      let left = await health();
      for (let i = 0; i < 40 && left !== 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = await health();
      }
      assert.equal(left, 0, 'the idle session was swept');
      await client.close();
    } finally {
      await idle.close();
    }
  });

  it('closes every session and the listening socket on close()', async () => {
    const extra = await serveHttp(host, { port: 0 });
    const servers = host.servers.size;
    const [a, b] = await Promise.all([connectClient(extra.url), connectClient(extra.url)]);
    assert.equal(host.servers.size, servers + 2);
    const started = performance.now();
    await extra.close();
    assert.ok(performance.now() - started < 2000, 'close does not wait for idle sockets');
    assert.equal(host.servers.size, servers, 'both sessions left the host');
    await assert.rejects(rawRequest(`${extra.url.replace(/\/mcp$/, '/health')}`));
    await extra.close(); // idempotent
    await Promise.all([a.client.close(), b.client.close()]);
  });
});
