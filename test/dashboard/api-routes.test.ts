/**
 * Plugin HTTP routes as the host loads and serves them (a fixture plugin beside the built-ins), the
 * dashboard feed's bounds, and `m1nd ui` through the real binary.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { definePlugin, serveHttp, startHost, type HttpRouteDefinition } from '../../core/index.ts';
import { browserOpener } from '../../core/cli-ui.ts';
import { DashboardFeed, FEED_LIMITS } from '../../plugins/dashboard/feed.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/m1nd.js');

/** A plugin serving the given routes. */
function routesPlugin(name: string, routes: HttpRouteDefinition[]) {
  return definePlugin({ name, version: '1.0.0', apply: (ctx) => routes.forEach((r) => ctx.registerHttpRoute(r)) });
}

describe('plugin HTTP routes', function () {
  this.timeout(120_000);

  it('quarantines a plugin whose route shadows /mcp, is taken by another plugin, or has a bad path, and serves the rest', async () => {
    const handler = () => ({ json: { ok: true } });
    const host = await startHost({
      workspaceRoot: tempDir(),
      noConfig: true,
      env: {},
      log: memoryLogger(),
      extraSources: [
        { definition: routesPlugin('shadow', [{ method: 'POST', path: '/mcp', handler }]) },
        { definition: routesPlugin('first', [{ method: 'GET', path: '/api/x/:id', handler: (req) => ({ json: { id: req.params.id, q: req.query.get('q'), agent: req.caller.agentId } }) }]) },
        { definition: routesPlugin('second', [{ method: 'GET', path: '/api/x/:id', handler }]) },
        { definition: routesPlugin('bad-path', [{ method: 'GET', path: 'no-slash', handler }]) },
        { definition: routesPlugin('bad-method', [{ method: 'TRACE' as never, path: '/t', handler }]) },
      ],
    });
    const quarantined = new Map(host.current.quarantined().map((q) => [q.plugin, q]));
    for (const name of ['shadow', 'second', 'bad-path', 'bad-method']) {
      assert.equal(quarantined.get(name)?.code, 'M1ND_ERR_PLUGIN_ROUTE', name);
      assert.equal(quarantined.get(name)?.check, 'routes', name);
    }
    assert.match(quarantined.get('second')!.message, /registered by plugin "first"/);
    assert.ok(!quarantined.has('first'));
    const server = await serveHttp(host, { port: 0 });
    try {
      const base = server.url.replace(/\/mcp$/, '');
      const res = await fetch(`${base}/api/x/42?q=hello`);
      assert.deepEqual(await res.json(), { id: '42', q: 'hello', agent: 'dashboard' });
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      // The MCP endpoint and the 404 are untouched.
      assert.equal((await fetch(`${base}/nothing-here`)).status, 404);
      assert.equal((await fetch(`${base}/mcp`, { method: 'GET' })).status, 400);
    } finally {
      await server.close();
      await host.close();
    }
  });

  it('gives a route the caller\'s identity and an invoke that a read role or a read-only server cannot write through', async () => {
    let seen: unknown;
    const plugin = routesPlugin('probe', [
      { method: 'POST', path: '/api/probe', handler: async (req) => ({ json: { body: req.body, as_reader: await req.invoke('alerts_ack', { alert_ids: ['al_1'] }), as_caller: await req.invoke('alerts_ack', { alert_ids: ['al_1'] }, { as: 'caller' }) } }) },
      { method: 'GET', path: '/api/boom', handler: () => { seen = 'ran'; throw new Error('secret internals'); } },
    ]);
    const host = await startHost({ workspaceRoot: tempDir(), env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, log: memoryLogger(), extraSources: [{ definition: plugin }] });
    const server = await serveHttp(host, { port: 0, tokens: { 'reader-token-0123456789': { agents: ['viewer'], role: 'read' } }, maxBodyBytes: 1000 });
    try {
      const base = server.url.replace(/\/mcp$/, '');
      const auth = { Authorization: 'Bearer reader-token-0123456789', 'Content-Type': 'application/json' };
      const r = (await (await fetch(`${base}/api/probe`, { method: 'POST', headers: auth, body: '{"a":1}' })).json()) as any;
      assert.deepEqual(r.body, { a: 1 });
      assert.equal(r.as_reader.error.code, 'M1ND_ERR_AUTH_ROLE', 'a reader never writes');
      assert.equal(r.as_caller.error.code, 'M1ND_ERR_AUTH_ROLE', 'nor does a caller whose token has the read role');
      const big = await fetch(`${base}/api/probe`, { method: 'POST', headers: auth, body: JSON.stringify({ pad: 'x'.repeat(2000) }) });
      assert.equal(big.status, 413);
      const badJson = await fetch(`${base}/api/probe`, { method: 'POST', headers: auth, body: '{nope' });
      assert.equal(badJson.status, 400);
      const boom = await fetch(`${base}/api/boom`, { headers: auth });
      assert.equal(boom.status, 500);
      const text = await boom.text();
      assert.equal(seen, 'ran');
      assert.ok(!text.includes('secret internals'), 'a 500 says nothing of the handler\'s internals');
      assert.equal(JSON.parse(text).error.code, 'M1ND_ERR_CALL_HANDLER');
    } finally {
      await server.close();
      await host.close();
    }
  });
});

/** A response stand-in whose socket never drains. */
function stuckResponse(): ServerResponse & { written: string[] } {
  const res = new EventEmitter() as EventEmitter & { written: string[]; writableEnded: boolean; write(c: string): boolean; end(): void };
  res.written = [];
  res.writableEnded = false;
  res.write = (c: string) => (res.written.push(c), false);
  res.end = () => {
    res.writableEnded = true;
  };
  return res as unknown as ServerResponse & { written: string[] };
}

describe('dashboard feed', () => {
  it('drops a client that stops reading once its queue passes the bound, and keeps serving the others', () => {
    const feed = new DashboardFeed();
    const stuck = stuckResponse();
    const fine = stuckResponse();
    (fine as any).write = (c: string) => (fine.written.push(c), true);
    const slow = feed.attach(stuck)!;
    feed.attach(fine);
    for (let i = 0; i <= FEED_LIMITS.queuedFrames + 1; i++) feed.publish('call', { i });
    assert.equal(slow.closed, true);
    assert.match(slow.dropped ?? '', /slow client/);
    assert.equal(feed.clients.size, 1);
    assert.equal(feed.counters.dropped, 1);
    assert.equal(fine.written.length, FEED_LIMITS.queuedFrames + 2, 'the reading client got every event');
    assert.equal(stuck.written.length, 1, 'one write reached the stuck socket, the rest were queued then dropped');
    feed.closeAll();
    assert.equal(feed.clients.size, 0);
  });

  it('publishes nothing and keeps no timer without clients', () => {
    const feed = new DashboardFeed();
    feed.publish('call', { x: 1 });
    assert.equal(feed.counters.published, 0);
    assert.equal(feed.active, false);
  });
});

describe('m1nd ui', function () {
  this.timeout(120_000);

  it('serves over HTTP and prints the dashboard address, which answers with the page', async () => {
    const child = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--workspace', tempDir()], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', M1ND_FROM_SOURCE: '1', M1ND_CACHE_DIR: tempDir() },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
          if (m) resolve(m[1]);
        });
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.once('exit', () => reject(new Error(`exited: ${err}`)));
      });
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(page.headers.get('content-security-policy')?.includes("script-src 'self'"));
      const overview = await fetch(`${url}api/overview`);
      assert.equal(overview.status, 200);
      assert.equal(((await overview.json()) as any).graph.state, 'empty');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('opens a browser only where there is a desktop to show it', () => {
    assert.equal(browserOpener('linux', {}), null, 'no display');
    assert.deepEqual(browserOpener('linux', { DISPLAY: ':0' }), { command: 'xdg-open', args: [] });
    assert.equal(browserOpener('linux', { DISPLAY: ':0', M1ND_NO_BROWSER: '1' }), null);
    assert.equal(browserOpener('darwin', {})?.command, 'open');
  });
});
