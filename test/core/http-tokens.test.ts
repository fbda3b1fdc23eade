import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startHost, type Host } from '../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../core/http.ts';
import { parseTokenTable } from '../../core/http-auth.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';
import { openSession } from '../helpers/http-session.ts';

const ALICE = 'alice-token-0123456789abcdef';
const HOST_TOKEN = 'ci-host-token-0123456789abcdef';
const READER = 'reader-token-0123456789abcdef';
const LEGACY = 'legacy-single-token-0123456789';

/** A POST of one JSON-RPC message with chosen headers; resolves status, headers and body text. */
function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function getJson(url: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    }).on('error', reject);
  });
}

describe('M1ND_HTTP_TOKENS: tokens name the agents and role they may act as', function () {
  this.timeout(30000);
  let host: Host;
  let served: HttpServerHandle;
  const logLines: string[] = [];

  before(async () => {
    const file = path.join(tempDir(), 'tokens.json');
    fs.writeFileSync(file, JSON.stringify({ [ALICE]: { agents: ['alice'], role: 'write' }, [HOST_TOKEN]: { agents: ['ci-*', 'builder'], role: 'write' }, [READER]: { agents: ['reader'], role: 'read' } }));
    host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger(logLines) });
    served = await serveHttp(host, { port: 0, token: LEGACY, tokens: parseTokenTable(file), log: memoryLogger(logLines) });
  });
  after(async () => {
    await served.close();
    await host.close();
  });

  it('answers 401 with a Bearer challenge to a request without a listed token, and never logs tokens', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const none = await post(served.url, {}, init);
    assert.equal(none.status, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer realm="m1nd"/);
    const wrong = await post(served.url, { Authorization: 'Bearer not-a-listed-token-at-all' }, init);
    assert.equal(wrong.status, 401);
    assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
    await assert.rejects(openSession(served.url, 'nope'));
    assert.ok(logLines.some((l) => /refused/.test(l)), 'refusals are logged');
    assert.ok(!logLines.some((l) => l.includes('not-a-listed-token') || l.includes(ALICE) || l.includes(LEGACY)), 'no token in the log');
  });

  it('refuses an agent id the token does not allow (M1ND_ERR_AUTH_AGENT_DENIED)', async () => {
    const s = await openSession(served.url, ALICE);
    try {
      const denied = await s.call('health', { agent_id: 'bob' });
      assert.equal(denied.error.code, 'M1ND_ERR_AUTH_AGENT_DENIED');
      assert.match(denied.error.hint, /"alice"/);
      assert.equal((await s.call('health', { agent_id: 'alice' })).error, undefined);
    } finally {
      await s.close();
    }
  });

  it('lets a token listing several agents (a declared multi-agent host) switch among them, and only them', async () => {
    const s = await openSession(served.url, HOST_TOKEN);
    try {
      for (const id of ['ci-1', 'ci-2', 'builder', 'ci-1']) assert.equal((await s.call('health', { agent_id: id })).error, undefined, id);
      assert.equal((await s.call('health', { agent_id: 'alice' })).error.code, 'M1ND_ERR_AUTH_AGENT_DENIED');
    } finally {
      await s.close();
    }
  });

  it('gives the read role read verbs only', async () => {
    const s = await openSession(served.url, READER);
    try {
      assert.equal((await s.call('health', { agent_id: 'reader' })).error, undefined);
      const refused = await s.call('learn', { agent_id: 'reader', query: 'x', feedback: 'wrong', node_ids: ['x'] });
      assert.equal(refused.error.code, 'M1ND_ERR_AUTH_ROLE');
      assert.equal((await s.call('lock_create', { agent_id: 'reader', scope: 'node', root_nodes: ['x'] })).error.code, 'M1ND_ERR_AUTH_ROLE');
    } finally {
      await s.close();
    }
  });

  it('keeps the single M1ND_HTTP_TOKEN working for any id, pinned on first use', async () => {
    const s = await openSession(served.url, LEGACY);
    try {
      assert.equal((await s.call('health', { agent_id: 'anyone' })).error, undefined);
      assert.equal((await s.call('health', { agent_id: 'someone-else' })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    } finally {
      await s.close();
    }
  });

  it("refuses a request on another credential's session (403)", async () => {
    const s = await openSession(served.url, ALICE);
    try {
      const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'health', arguments: { agent_id: 'ci-1' } } };
      const hijack = await post(served.url, { Authorization: `Bearer ${HOST_TOKEN}`, 'mcp-session-id': s.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' }, call);
      assert.equal(hijack.status, 403);
      assert.match(hijack.text, /another credential/);
    } finally {
      await s.close();
    }
  });

  it('parses inline JSON and refuses malformed tables without echoing the token', () => {
    assert.deepEqual(parseTokenTable(`{"${ALICE}": {"agents": ["alice"], "role": "read"}}`), { [ALICE]: { agents: ['alice'], role: 'read' } });
    assert.throws(() => parseTokenTable(`{"${ALICE}": {"agents": [], "role": "write"}}`), (e: Error) => /entry 0/.test(e.message) && !e.message.includes(ALICE));
    assert.throws(() => parseTokenTable(`{"${ALICE}": {"agents": ["a"], "role": "admin"}}`), /role/);
    assert.throws(() => parseTokenTable('{"short": {"agents": ["a"], "role": "read"}}'), /16 characters/);
    assert.throws(() => parseTokenTable('/no/such/tokens.json'), /neither inline JSON nor an existing file/);
  });
});

describe('JWT access tokens from a configured authorization server (RFC 9728)', function () {
  this.timeout(30000);
  let host: Host;
  let served: HttpServerHandle;
  let issuerServer: http.Server;
  let issuer: string;
  let sign: (claims: Record<string, unknown>, opts?: { audience?: string; expires?: string }) => Promise<string>;

  before(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    // A local authorization server: metadata (RFC 8414) and its JWKS, no network.
    issuerServer = http.createServer((req, res) => {
      const body = req.url === '/.well-known/oauth-authorization-server' ? { issuer, jwks_uri: `${issuer}/jwks` } : req.url === '/jwks' ? { keys: [jwk] } : null;
      res.writeHead(body ? 200 : 404, { 'Content-Type': 'application/json' }).end(JSON.stringify(body ?? {}));
    });
    await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger() });
    served = await serveHttp(host, { port: 0, oauth: { issuer, agentClaim: 'agent' } });
    sign = (claims, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience(opts.audience ?? served.url)
        .setSubject('user-1')
        .setIssuedAt()
        .setExpirationTime(opts.expires ?? '5m')
        .sign(privateKey);
  });
  after(async () => {
    await served.close();
    await host.close();
    await new Promise((r) => issuerServer.close(r));
  });

  it('serves the protected resource metadata naming the authorization server', async () => {
    for (const suffix of ['', '/mcp']) {
      const { status, json } = await getJson(served.url.replace(/\/mcp$/, `/.well-known/oauth-protected-resource${suffix}`));
      assert.equal(status, 200);
      assert.equal(json.resource, served.url);
      assert.deepEqual(json.authorization_servers, [issuer]);
      assert.deepEqual(json.bearer_methods_supported, ['header']);
    }
  });

  it('answers 401 pointing at the metadata, and rejects wrong audience or expired tokens', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
    const none = await post(served.url, {}, init);
    assert.equal(none.status, 401);
    const metadataUrl = served.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp');
    assert.ok(String(none.headers['www-authenticate']).includes(`resource_metadata="${metadataUrl}"`), String(none.headers['www-authenticate']));
    for (const token of [await sign({ agent: 'alice', scope: 'm1nd:write' }, { audience: 'https://elsewhere.example/mcp' }), await sign({ agent: 'alice' }, { expires: '-1m' })]) {
      const r = await post(served.url, { Authorization: `Bearer ${token}` }, init);
      assert.equal(r.status, 401);
      assert.match(String(r.headers['www-authenticate']), /error="invalid_token"/);
    }
  });

  it('maps the agent claim to the ids the token may act as, and the scope to the role', async () => {
    const writer = await openSession(served.url, await sign({ agent: 'alice', scope: 'm1nd:read m1nd:write' }));
    const reader = await openSession(served.url, await sign({ agent: 'rita', scope: 'm1nd:read' }));
    try {
      assert.equal((await writer.call('health', { agent_id: 'alice' })).error, undefined);
      assert.equal((await writer.call('health', { agent_id: 'mallory' })).error.code, 'M1ND_ERR_AUTH_AGENT_DENIED');
      assert.equal((await reader.call('health', { agent_id: 'rita' })).error, undefined);
      assert.equal((await reader.call('lock_create', { agent_id: 'rita', scope: 'node', root_nodes: ['x'] })).error.code, 'M1ND_ERR_AUTH_ROLE');
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});
