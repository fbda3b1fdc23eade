/**
 * The dashboard's read API over a real HTTP server and fetch, with two agents making calls through
 * real MCP SDK clients on the same server: an ingested fixture workspace, a memorized claim, a claim
 * made stale by an edit, two overlapping locks, a mission and an alert raised by the daemon.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { serveHttp, startHost, type Host, type HttpServerHandle } from '../../core/index.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';
import { openSession, type HttpSession } from '../helpers/http-session.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';

const XSS = '<img src=x onerror=alert(1)>';
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const READ_TOKEN = 'read-token-0123456789abcdef';
const WRITE_TOKEN = 'write-token-0123456789abcdef';

/** A raw GET (no URL normalisation by the client), for traversal and header tests. */
function rawGet(port: number, target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, method: 'GET', headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(probe: () => Promise<T | undefined | false>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('dashboard API', function () {
  this.timeout(180_000);
  let ws: string;
  let host: Host;
  let server: HttpServerHandle;
  let base: string;
  let alice: HttpSession;
  let bob: HttpSession;
  let assets: string;
  const ids: Record<string, string> = {};

  const get = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(base + p, init);
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { res, text, json };
  };

  before(async () => {
    ws = writeFixtureRepo(tempDir('m1nd-dash-'));
    assets = tempDir('m1nd-dash-ui-');
    fs.mkdirSync(path.join(assets, 'assets'));
    fs.writeFileSync(path.join(assets, 'index.html'), '<!doctype html><title>test app</title><script type="module" src="./assets/app-1a2b.js"></script>');
    fs.writeFileSync(path.join(assets, 'assets/app-1a2b.js'), 'console.log("app");');
    fs.writeFileSync(path.join(assets, 'assets/app-1a2b.css'), 'body{}');
    // A secret beside the assets folder: no request may reach it.
    fs.writeFileSync(path.join(path.dirname(assets), `${path.basename(assets)}-secret.txt`), 'secret');
    host = await startHost({
      workspaceRoot: ws,
      env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir('m1nd-dash-cache-') },
      config: { options: { dashboard: { assetsDir: assets } } },
      log: memoryLogger(),
    });
    server = await serveHttp(host, { port: 0 });
    base = server.url.replace(/\/mcp$/, '');
    alice = await openSession(server.url);
    bob = await openSession(server.url);
    assert.ok(!(await alice.call('ingest', { agent_id: 'alice', path: ws })).error, 'ingested');
    ids.fresh = (await alice.call('memorize', { agent_id: 'alice', claims: [{ text: 'add returns the plain sum of its arguments', evidence: ['function:src/math.ts#add'] }] })).stored[0].id;
    ids.stale = (await bob.call('memorize', { agent_id: 'bob', claims: [{ text: 'total sums prices with add', evidence: ['function:src/cart.ts#total'] }] })).stored[0].id;
    ids.xss = (await bob.call('memorize', { agent_id: 'bob', claims: [{ text: XSS, evidence: ['src/cart.ts'] }] })).stored[0].id;
    ids.lockA = (await alice.call('lock_create', { agent_id: 'alice', scope: 'subgraph', root_nodes: ['file:src/math.ts'], radius: 1 })).lock_id;
    ids.lockB = (await bob.call('lock_create', { agent_id: 'bob', scope: 'node', root_nodes: ['add'] })).lock_id;
    ids.mission = (await alice.call('mission_start', { agent_id: 'alice', repo: 'fixture', task: 'review the cart', budget: 'short' })).mission_id;
    const event = await alice.call('mission_event', { agent_id: 'alice', mission_id: ids.mission, event: { action: 'file_read', path: 'src/cart.ts' }, outcome: 'success' });
    assert.ok(!event.error, JSON.stringify(event));
    // The edit that makes bob's claim stale; the daemon's tick raises the claim_stale alert.
    const cart = path.join(ws, 'src/cart.ts');
    fs.writeFileSync(cart, fs.readFileSync(cart, 'utf8').replace('return prices.reduce((sum, p) => add(sum, p), 0);', 'return prices.reduce((sum, p) => add(sum, p), 0) + 0;'));
    await alice.call('daemon_start', { agent_id: 'alice', poll_interval_ms: 60_000 });
    const tick = await alice.call('daemon_tick', { agent_id: 'alice' });
    assert.ok(tick.alerts_raised.some((a: any) => a.kind === 'claim_stale'), JSON.stringify(tick.alerts_raised));
    await alice.call('daemon_stop', { agent_id: 'alice' });
    await bob.call('seek', { agent_id: 'bob', query: 'cart total' });
  });

  after(async () => {
    await alice?.close().catch(() => undefined);
    await bob?.close().catch(() => undefined);
    await server?.close();
    await host?.close();
  });

  it('overview: workspace, server, graph size, verb counts, plugins and the store', async () => {
    // An edit nobody re-ingested: the overview counts it as a stale file.
    fs.appendFileSync(path.join(ws, 'py/retry.py'), '\n# touched\n');
    const { res, json } = await get('/api/overview');
    assert.equal(res.status, 200);
    assert.equal(json.workspace, ws);
    assert.deepEqual({ ...json.server, version: undefined }, { version: undefined, read_only: false, tier: 'full', transport: 'http' });
    assert.equal(json.graph.state, 'ready');
    assert.ok(json.graph.nodes > 10 && json.graph.edges > 10 && json.graph.files >= 4, JSON.stringify(json.graph));
    assert.match(json.graph.last_ingest_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(json.graph.stale_files, 1, 'py/retry.py changed after the ingest');
    assert.ok(json.verbs.registered >= json.verbs.advertised && json.verbs.advertised > 50);
    assert.ok(json.plugins.some((p: any) => p.name === 'dashboard' && p.status === 'loaded'));
    assert.equal(json.store.kind, 'sqlite');
    assert.ok(Array.isArray(json.recent_errors));
  });

  it('agents: both MCP sessions with their agent ids, and per-agent calls, latency percentiles, tokens and last calls', async () => {
    const { json } = await until(async () => {
      const r = await get('/api/agents');
      const b = r.json.agents.find((x: any) => x.agent_id === 'bob');
      // Tokens are counted off the call path: wait until the last one is in.
      return b && b.last_calls[0]?.verb === 'seek' && b.last_calls[0].tokens !== null ? r : undefined;
    }, 20_000, 'token counts');
    const agents = new Map(json.agents.map((a: any) => [a.agent_id, a]));
    const a: any = agents.get('alice');
    const b: any = agents.get('bob');
    assert.ok(a && b, 'both agents');
    assert.equal(a.by_verb.find((v: any) => v.verb === 'memorize').calls, 1);
    assert.equal(b.by_verb.find((v: any) => v.verb === 'memorize').calls, 2);
    assert.ok(a.calls >= 6 && a.tokens_returned > 0 && a.p50_ms > 0 && a.p99_ms >= a.p50_ms, JSON.stringify({ ...a, by_verb: undefined, last_calls: undefined }));
    assert.equal(b.last_calls[0].verb, 'seek', 'newest first');
    assert.equal(b.last_calls[0].outcome, 'ok');
    assert.ok(b.last_calls[0].tokens > 10 && b.by_verb.find((v: any) => v.verb === 'seek').tokens === b.last_calls[0].tokens);
    assert.ok(!agents.has('dashboard'), 'the dashboard\'s own reads are not agent activity');
    const sessions = new Map(json.sessions.map((s: any) => [s.agent_id, s]));
    assert.equal((sessions.get('alice') as any)?.session_id, alice.transport.sessionId);
    assert.equal((sessions.get('bob') as any)?.session_id, bob.transport.sessionId);
    assert.equal((sessions.get('bob') as any).calls, 4);
    assert.equal((sessions.get('bob') as any).transport, 'http');
  });

  it('memory: claims with scope, author, evidence and computed freshness; stale ones say what changed; filters', async () => {
    const { json } = await get('/api/memory');
    const byId = new Map(json.claims.map((c: any) => [c.id, c]));
    const fresh: any = byId.get(ids.fresh);
    assert.equal(fresh.author, 'alice');
    assert.equal(fresh.scope, 'project');
    assert.deepEqual(fresh.evidence[0], { path: 'src/math.ts', node_id: 'function:src/math.ts#add', line: 2, end_line: 4 });
    assert.deepEqual(fresh.freshness, { state: 'fresh', changed: [] });
    const stale: any = byId.get(ids.stale);
    assert.equal(stale.freshness.state, 'stale');
    assert.deepEqual(stale.freshness.changed.map((c: any) => [c.path, c.what]), [['src/cart.ts', 'content_changed']]);
    const onlyStale = (await get('/api/memory?state=stale')).json.claims.map((c: any) => c.id);
    assert.ok(onlyStale.includes(ids.stale) && !onlyStale.includes(ids.fresh), onlyStale.join());
    const searched = (await get('/api/memory?q=PLAIN%20SUM')).json.claims.map((c: any) => c.id);
    assert.deepEqual(searched, [ids.fresh]);
    const mission = json.missions.find((m: any) => m.id === ids.mission);
    assert.equal(mission.title, 'review the cart');
    assert.equal(mission.owner, 'alice');
    assert.equal(mission.status, 'open');
    assert.equal(mission.budget.calls.limit, 12);
    assert.deepEqual(mission.events.map((e: any) => [e.kind, e.text, e.refs]), [['direct', 'file_read: success', ['src/cart.ts']]]);
    const bad = await get('/api/memory?state=rotten');
    assert.equal(bad.res.status, 400);
    assert.equal(bad.json.error.code, 'M1ND_ERR_HTTP_BAD_REQUEST');
  });

  it('returns a claim text that is markup verbatim in JSON (the page renders it as text)', async () => {
    const { res, text, json } = await get('/api/memory?q=onerror');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(json.claims[0].id, ids.xss);
    assert.equal(json.claims[0].text, XSS);
    assert.ok(text.includes(JSON.stringify(XSS)), 'no escaping or rewriting on the way');
  });

  it('locks: both locks with owners, regions and each other as overlap', async () => {
    const { json } = await get('/api/locks');
    const a = json.locks.find((l: any) => l.id === ids.lockA);
    const b = json.locks.find((l: any) => l.id === ids.lockB);
    assert.equal(a.owner, 'alice');
    assert.equal(b.owner, 'bob');
    assert.equal(b.scope, 'node');
    assert.deepEqual(b.node_ids, ['function:src/math.ts#add']);
    assert.ok(a.paths.includes('src/math.ts'));
    assert.deepEqual(a.overlaps, [ids.lockB]);
    assert.deepEqual(b.overlaps, [ids.lockA]);
    assert.match(a.created_at, /^\d{4}-/);
  });

  it('graph: search finds a node; its neighbourhood has callers with roles and edges', async () => {
    const search = (await get('/api/graph/search?q=add&limit=5')).json;
    assert.deepEqual(search.nodes[0], { id: 'function:src/math.ts#add', label: 'add', kind: 'function', file: 'src/math.ts', line: 2, via: 'label' });
    const hood = (await get(`/api/graph/neighbourhood?node=${encodeURIComponent('function:src/math.ts#add')}`)).json;
    assert.equal(hood.center.id, 'function:src/math.ts#add');
    const callers = hood.nodes.filter((n: any) => n.role === 'caller').map((n: any) => n.id).sort();
    assert.deepEqual(callers, ['function:src/cart.ts#total', 'function:src/math.ts#mul']);
    assert.ok(hood.edges.some((e: any) => e.source === 'function:src/math.ts#mul' && e.target === 'function:src/math.ts#add' && e.relation === 'calls'));
    const missing = await get('/api/graph/neighbourhood?node=no_such_thing_anywhere');
    assert.equal(missing.res.status, 404);
    assert.equal(missing.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
  });

  it('file: lines around a line with numbers and language; paths leaving the workspace are refused', async () => {
    const { json } = await get('/api/file?path=src/math.ts&line=2&context=1');
    assert.deepEqual(json, { path: 'src/math.ts', start_line: 1, lines: ['/** Adds two numbers. */', 'export function add(a: number, b: number): number {', '  return a + b;'], total_lines: 10, language: 'typescript' });
    for (const p of ['../../etc/passwd', '/etc/passwd', `${ws}/../${path.basename(ws)}-x/a`]) {
      const r = await get(`/api/file?path=${encodeURIComponent(p)}`);
      assert.equal(r.res.status, 403, p);
      assert.equal(r.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    }
  });

  it('impact and why: the verbs\' own results, through the dispatch', async () => {
    const impact = (await get('/api/impact?node=add&depth=2')).json;
    assert.equal(impact.node.id, 'function:src/math.ts#add');
    assert.ok(impact.direct.some((d: any) => d.id === 'function:src/math.ts#mul'));
    const why = (await get('/api/why?from=total&to=add')).json;
    assert.equal(why.found, true);
    assert.equal(why.source.id, 'function:src/cart.ts#total');
  });

  it('alerts: the daemon\'s claim_stale alert; ack records the dashboard identity', async () => {
    const { json } = await get('/api/alerts');
    const alert = json.alerts.find((a: any) => a.kind === 'claim_stale');
    assert.ok(alert, JSON.stringify(json.alerts));
    assert.equal(alert.source, 'daemon');
    assert.deepEqual(alert.acked_by, []);
    const ack = await get(`/api/alerts/${alert.id}/ack`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(ack.res.status, 200, ack.text);
    assert.equal(ack.json.ok, true);
    assert.deepEqual(ack.json.alert.acked_by, ['dashboard']);
    const unknown = await get('/api/alerts/al_0000000000000000/ack', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(unknown.res.status, 404);
    const wrongMethod = await get(`/api/alerts/${alert.id}/ack`);
    assert.equal(wrongMethod.res.status, 405);
  });

  it('pushes a call event over SSE when an MCP client calls a verb, and none for the dashboard\'s own reads', async () => {
    const aborter = new AbortController();
    const res = await fetch(`${base}/api/events`, { signal: aborter.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.headers.get('content-security-policy'), CSP);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const frames = async (pred: (t: string) => boolean) => {
      const end = Date.now() + 15_000;
      while (!pred(text)) {
        if (Date.now() > end) throw new Error(`no matching event in: ${text}`);
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += decoder.decode(value, { stream: true });
      }
    };
    await frames((t) => t.includes(': connected'));
    await get('/api/impact?node=add');
    await bob.call('activate', { agent_id: 'bob', query: 'cart' });
    await frames((t) => t.includes('"verb":"activate"'));
    const events = text.split('\n\n').filter((f) => f.startsWith('event: call'));
    const data = events.map((f) => JSON.parse(f.split('\ndata: ')[1]));
    assert.deepEqual(data.map((d) => [d.agent_id, d.verb, d.outcome]), [['bob', 'activate', 'ok']], 'the dashboard\'s impact call is not an event');
    assert.equal(typeof data[0].ms, 'number');
    // A claim stored by an agent is a memory event.
    await alice.call('memorize', { agent_id: 'alice', claims: [{ text: 'mul adds repeatedly', evidence: ['function:src/math.ts#mul'] }] });
    await frames((t) => t.includes('event: memory'));
    // A re-ingest that changes the graph is a graph event.
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function neg(a: number): number {\n  return -a;\n}\n');
    await alice.call('ingest', { agent_id: 'alice', path: ws });
    await frames((t) => /event: graph\ndata: \{"kind":"ingest","id":"\d+"\}/.test(t));
    aborter.abort();
    await until(async () => ((await get('/api/overview')).res.ok ? true : undefined), 1000, 'server still up');
  });

  it('sends the CSP and companion headers on the page, the assets and the API', async () => {
    for (const p of ['/', '/assets/app-1a2b.js', '/api/overview']) {
      const r = await rawGet(server.port, p);
      assert.equal(r.status, 200, p);
      assert.equal(r.headers['content-security-policy'], CSP, p);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
      assert.equal(r.headers['referrer-policy'], 'no-referrer', p);
    }
    const page = await rawGet(server.port, '/');
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.body, /test app/);
    assert.equal((await rawGet(server.port, '/assets/app-1a2b.js')).headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal((await rawGet(server.port, '/assets/app-1a2b.css')).headers['content-type'], 'text/css; charset=utf-8');
    assert.equal((await rawGet(server.port, '/api/overview')).headers['cache-control'], 'no-store');
  });

  it('refuses path traversal out of the assets folder and answers 404 for missing assets', async () => {
    const secret = `${path.basename(assets)}-secret.txt`;
    for (const p of [`/assets/../../${secret}`, `/assets/%2e%2e/%2e%2e/${secret}`, `/assets/..%2f..%2f${secret}`, '/assets/%2fetc%2fpasswd', '/assets/..\\..\\package.json', '/assets/nope.js', '/assets/']) {
      const r = await rawGet(server.port, p);
      assert.ok(r.status === 404, `${p}: ${r.status}`);
      if (r.headers['content-type']?.startsWith('application/json')) assert.equal(r.headers['content-security-policy'], CSP, p);
      assert.ok(!r.body.includes('secret'), p);
    }
    // A symlink inside the assets folder that points out of it is not followed.
    fs.symlinkSync(path.join(path.dirname(assets), secret), path.join(assets, 'assets', 'link.txt'));
    assert.equal((await rawGet(server.port, '/assets/link.txt')).status, 404);
  });

  it('refuses a foreign Host or Origin before any route runs', async () => {
    const host = await rawGet(server.port, '/api/overview', { Host: 'evil.example:80' });
    assert.equal(host.status, 403);
    const origin = await rawGet(server.port, '/api/overview', { Origin: 'http://evil.example' });
    assert.equal(origin.status, 403);
    const page = await rawGet(server.port, '/', { Origin: 'http://evil.example' });
    assert.equal(page.status, 403, 'public routes too');
  });

  describe('with bearer tokens', () => {
    let tokenServer: HttpServerHandle;
    let tbase: string;
    before(async () => {
      tokenServer = await serveHttp(host, { port: 0, tokens: { [READ_TOKEN]: { agents: ['viewer'], role: 'read' }, [WRITE_TOKEN]: { agents: ['lead'], role: 'write' } } });
      tbase = tokenServer.url.replace(/\/mcp$/, '');
    });
    after(() => tokenServer?.close());

    it('answers /api/* 401 without a token or with a wrong one, 200 with one; the page needs none', async () => {
      const none = await fetch(`${tbase}/api/overview`);
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as any).error.code, 'M1ND_ERR_HTTP_UNAUTHORIZED');
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(none.headers.get('content-security-policy'), CSP, 'refusals carry the dashboard headers too');
      const wrong = await fetch(`${tbase}/api/agents`, { headers: { Authorization: 'Bearer not-a-token-at-all-xx' } });
      assert.equal(wrong.status, 401);
      const sse = await fetch(`${tbase}/api/events`);
      assert.equal(sse.status, 401, 'the live feed too');
      const ok = await fetch(`${tbase}/api/overview`, { headers: { Authorization: `Bearer ${READ_TOKEN}` } });
      assert.equal(ok.status, 200);
      const page = await fetch(`${tbase}/`);
      assert.equal(page.status, 200);
    });

    it('refuses the ack for a read-role token (403) and records it for a write-role one', async () => {
      const alert = ((await (await fetch(`${tbase}/api/alerts?state=all`, { headers: { Authorization: `Bearer ${READ_TOKEN}` } })).json()) as any).alerts[0];
      const post = (token: string) => fetch(`${tbase}/api/alerts/${alert.id}/ack`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: '{}' });
      const refused = await post(READ_TOKEN);
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as any).error.code, 'M1ND_ERR_AUTH_ROLE');
      const done = await post(WRITE_TOKEN);
      assert.equal(done.status, 200);
      assert.ok(((await done.json()) as any).alert.acked_by.includes('lead'), 'acked as the token\'s agent');
    });
  });

  describe('on a read-only server', () => {
    it('serves every read and refuses the ack with 403 before any write', async () => {
      const ro = await startHost({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1', M1ND_CACHE_DIR: tempDir('m1nd-dash-cache-') }, log: memoryLogger() });
      const s = await serveHttp(ro, { port: 0 });
      try {
        const b = s.url.replace(/\/mcp$/, '');
        const overview = (await (await fetch(`${b}/api/overview`)).json()) as any;
        assert.equal(overview.server.read_only, true);
        const alerts = (await (await fetch(`${b}/api/alerts?state=all`)).json()) as any;
        assert.ok(alerts.alerts.length > 0, 'alerts are read on a read-only server');
        const before = alerts.alerts[0].acked_by;
        const refused = await fetch(`${b}/api/alerts/${alerts.alerts[0].id}/ack`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        assert.equal(refused.status, 403);
        assert.equal(((await refused.json()) as any).error.code, 'M1ND_ERR_GATE_READ_ONLY');
        const after = ((await (await fetch(`${b}/api/alerts?state=all`)).json()) as any).alerts.find((a: any) => a.id === alerts.alerts[0].id);
        assert.deepEqual(after.acked_by, before);
        // A live stream ends when the server shuts down (nothing keeps the process or the socket).
        const stream = await fetch(`${b}/api/events`);
        const reader = stream.body!.getReader();
        await reader.read();
        const ended = (async () => {
          for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return true;
        })();
        await s.close();
        await ro.close();
        assert.equal(await Promise.race([ended, new Promise((r) => setTimeout(() => r(false), 5000))]), true, 'the SSE stream ended');
      } finally {
        await s.close();
        await ro.close().catch(() => undefined);
      }
    });
  });
});
