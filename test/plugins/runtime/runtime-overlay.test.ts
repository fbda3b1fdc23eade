import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { FIXTURE_FILES, writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const ms = (n: number) => String(n * 1_000_000);
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

/** A span as the OTLP JSON exporter writes it: start 0, end after `durationMs`. */
function span(name: string, durationMs: number, attributes: unknown[], error = false) {
  return { name, startTimeUnixNano: '0', endTimeUnixNano: ms(durationMs), attributes, status: error ? { code: 2 } : {} };
}

/** One line of the collector's file exporter: a resourceSpans export for a service. */
function exportLine(service: string, spans: unknown[]): string {
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', service)] }, scopeSpans: [{ spans }] }] });
}

describe('runtime_overlay', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    // Spans from a deployed copy: absolute paths of another machine, mapped by their suffix.
    const shop = [1, 2, 3, 4, 10].map((d) => span('total', d, [str('code.function', 'total'), str('code.filepath', '/srv/shop/src/cart.ts'), int('code.lineno', 5)]));
    shop.push(span('Cart.checkout', 12, []));
    shop.push(span('GET /health', 1, [str('http.route', '/health')]));
    const worker = [span('retry.backoff', 2, [str('code.filepath', 'py/retry.py'), int('code.lineno', 7)], true), span('retry.backoff', 3, [str('code.function', 'backoff'), str('code.filepath', 'py/retry.py')])];
    fs.mkdirSync(path.join(ws, 'telemetry'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'telemetry/traces.json'), `${exportLine('shop', shop)}\n${exportLine('worker', worker)}\n`);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('marks the functions the spans ran hot, with latency percentiles and errors, and says what it could not map', async () => {
    const r = (await h.call('runtime_overlay', { agent_id: 'a', path: 'telemetry/traces.json' })).json;
    assert.equal(r.spans, 9);
    assert.equal(r.mapped, 8);
    assert.deepEqual(r.via, { code_lineno: 6, code_function_in_file: 1, span_name: 1 });
    assert.deepEqual(r.unmapped, [{ reason: "http.route /health (GET) matches no route registered in the workspace's code", count: 1 }]);
    const byId = Object.fromEntries(r.hot.map((x: any) => [x.id, x]));
    assert.equal(r.hot[0].id, 'function:src/cart.ts#total');
    assert.deepEqual([byId['function:src/cart.ts#total'].spans, byId['function:src/cart.ts#total'].p50_ms, byId['function:src/cart.ts#total'].p99_ms], [5, 3, 10]);
    assert.deepEqual([byId['function:py/retry.py#backoff'].spans, byId['function:py/retry.py#backoff'].errors], [2, 1]);
    assert.equal(byId['method:src/cart.ts#Cart.checkout'].spans, 1);
    assert.equal(byId['function:src/math.ts#add'], undefined);
    assert.equal(r.stored, true);
    assert.ok(r.boosted >= 3);
  });

  it('accumulates posted spans into the persisted overlay, filtered by service, across servers', async () => {
    const spans = [JSON.parse(exportLine('worker', [span('backoff', 5, [str('code.function', 'backoff')])])), JSON.parse(exportLine('other', [span('mul', 5, [])]))];
    const r = (await h.call('runtime_overlay', { agent_id: 'a', spans, service_name: 'worker' })).json;
    assert.equal(r.spans, 1);
    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const again = (await second.call('runtime_overlay', { agent_id: 'b', spans: [span('mul', 1, [])], boost_strength: 0 })).json;
      const byId = Object.fromEntries(again.hot.map((x: any) => [x.id, x]));
      assert.equal(byId['function:py/retry.py#backoff'].spans, 3);
      assert.equal(byId['function:src/math.ts#mul'].spans, 1);
      assert.equal(again.boosted, 0);
    } finally {
      await second.close();
    }
  });
  it('takes one posted export object as it is, without an array around it', async () => {
    const one = JSON.parse(exportLine('worker', [span('backoff', 7, [str('code.function', 'backoff'), str('code.filepath', 'py/retry.py')])]));
    const r = (await h.call('runtime_overlay', { agent_id: 'solo', scope: 'agent', spans: one })).json;
    assert.equal(r.spans, 1, JSON.stringify(r));
    assert.equal(r.hot[0].id, 'function:py/retry.py#backoff');
    assert.equal(r.hot[0].p50_ms, 7);
  });

  it('lets seek, activate and panoramic use the heat only when asked (runtime_heat)', async () => {
    const TOTAL = 'function:src/cart.ts#total';
    // The previous test turned the workspace overlay's boost off (boost_strength 0); a span that maps nowhere turns it back on.
    await h.call('runtime_overlay', { agent_id: 'a', spans: [span('GET /nowhere', 1, [])], boost_strength: 0.3 });
    const seekOf = async (heat: boolean) => (await h.call('seek', { agent_id: 'a', query: 'total prices cart', top_k: 20, min_score: 0, ...(heat ? { runtime_heat: true } : {}) })).json.results.find((x: any) => x.id === TOTAL);
    const plain = await seekOf(false);
    const hot = await seekOf(true);
    assert.equal(plain.why.boost, undefined);
    assert.ok(hot.why.boost > 0, JSON.stringify(hot));
    assert.ok(hot.score > plain.score, `${hot.score} > ${plain.score}`);
    const actOf = async (heat: boolean) => (await h.call('activate', { agent_id: 'a', query: 'total prices cart', top_k: 20, ...(heat ? { runtime_heat: true } : {}) })).json.results.find((x: any) => x.id === TOTAL);
    const a0 = await actOf(false);
    const a1 = await actOf(true);
    assert.ok(a1.score > a0.score, `${a1.score} > ${a0.score}`);
    const p0 = (await h.call('panoramic', { agent_id: 'a' })).json;
    assert.equal(p0.files.find((f: any) => f.file === 'src/cart.ts').components.heat, undefined);
    const p1 = (await h.call('panoramic', { agent_id: 'a', runtime_heat: true })).json;
    const cart = p1.files.find((f: any) => f.file === 'src/cart.ts');
    assert.equal(cart.components.heat, 1);
    assert.equal(p1.files.find((f: any) => f.file === 'src/math.ts').components.heat < 1, true);
    assert.equal(p1.weights.heat, 0.25);
  });

  it("is a write for the workspace overlay and a session call for the agent's own, kept in session memory on a read-only server", async () => {
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
    try {
      const refused = (await ro.call('runtime_overlay', { agent_id: 'r', spans: [span('mul', 1, [])] })).json;
      assert.equal(refused.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      const own = (await ro.call('runtime_overlay', { agent_id: 'r', scope: 'agent', spans: [span('mul', 4, []), span('mul', 6, [])] })).json;
      assert.deepEqual([own.overlay, own.stored, own.kept], ['agent:r', false, 'session (read-only server)']);
      const mine = (await ro.call('runtime_overlay', { agent_id: 'r', scope: 'agent', spans: [span('mul', 5, [])] })).json;
      assert.equal(mine.hot.find((x: any) => x.id === 'function:src/math.ts#mul').spans, 3);
    } finally {
      await ro.close();
    }
  });
});

describe('runtime_overlay with code.namespace as Python and Java instrumentations write it', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'pkg/client.py': 'class Client:\n    def send(self, request):\n        return request\n\n\nclass AsyncClient:\n    async def send(self, request):\n        return request\n',
      // Decorated methods: Python's code.lineno (co_firstlineno) is the first decorator's line (5, 9).
      'pkg/shape.py': 'def deco(*args):\n    return lambda f: f\n\n\nclass Shape:\n    @property\n    def size(self):\n        return 1\n\n    @deco(\n        "a",\n    )\n    @deco()\n    def area(self):\n        return 2\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('picks the method the module-qualified namespace names, with or without the file, and says when only the line could tell', async () => {
    const spans = [
      span('Client.send', 4, [str('code.function', 'send'), str('code.namespace', 'pkg.client.Client'), str('code.filepath', '/opt/venv/lib/python3.12/site-packages/pkg/client.py')]),
      span('send', 6, [str('code.function', 'send'), str('code.namespace', 'pkg.client.AsyncClient')]),
      span('send', 2, [str('code.function', 'send'), str('code.filepath', 'pkg/client.py')]),
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'a', spans: [JSON.parse(exportLine('svc', spans))], scope: 'agent' })).json;
    assert.equal(r.mapped, 2, JSON.stringify(r));
    assert.deepEqual(r.hot.map((x: any) => x.id).sort(), ['method:pkg/client.py#AsyncClient.send', 'method:pkg/client.py#Client.send']);
    assert.deepEqual(r.unmapped, [{ reason: 'code.function send names 2 symbols in pkg/client.py; add code.namespace or code.lineno', count: 1 }]);
  });

  it("maps a code.lineno on a decorator to the function it decorates, as Python's co_firstlineno gives it", async () => {
    const spans = [
      span('size', 1, [str('code.filepath', 'pkg/shape.py'), int('code.lineno', 6), str('code.function', 'size')]),
      span('area', 2, [str('code.filepath', 'pkg/shape.py'), int('code.lineno', 10)]),
      span('shape', 3, [str('code.filepath', 'pkg/shape.py'), int('code.lineno', 5)]),
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'd', spans: [JSON.parse(exportLine('svc', spans))], scope: 'agent' })).json;
    assert.deepEqual(Object.fromEntries(r.hot.map((x: any) => [x.id, x.spans])), { 'method:pkg/shape.py#Shape.size': 1, 'method:pkg/shape.py#Shape.area': 1, 'class:pkg/shape.py#Shape': 1 }, JSON.stringify(r));
  });
});

describe('runtime_overlay with code.function as the Go and Java runtimes name functions', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'go.mod': 'module example.com/flags\n\ngo 1.21\n',
      'src/main/java/com/acme/Codec.java': 'package com.acme;\n\npublic class Codec {\n  public String encode(Object o) {\n    return String.valueOf(o);\n  }\n\n  public String encode(Object o, int indent) {\n    return \" \".repeat(indent) + encode(o);\n  }\n\n  public String decode(String s) {\n    return s.trim();\n  }\n}\n',
      'flags.go': 'package flags\n\ntype FlagSet struct{ parsed bool }\n\nfunc (f *FlagSet) Parse(args []string) error {\n\tf.parsed = len(args) > 0\n\treturn nil\n}\n\nfunc (f FlagSet) Parsed() bool { return f.parsed }\n\nfunc Parse() {\n\tcmd := &FlagSet{}\n\t_ = cmd.Parse(nil)\n}\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reads a receiver (*T) / (T) as the type and a closure .funcN as its function, not a same-named package function', async () => {
    const spans = [
      span('parse', 4, [str('code.function', 'example.com/flags.(*FlagSet).Parse')]),
      span('parse', 6, [str('code.function', '(*FlagSet).Parse'), str('code.namespace', 'example.com/flags')]),
      span('parse.func1', 2, [str('code.function', 'example.com/flags.(*FlagSet).Parse.func1')]),
      span('parsed', 1, [str('code.function', 'example.com/flags.(FlagSet).Parsed')]),
      span('main parse', 3, [str('code.function', 'example.com/flags.Parse')]),
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'a', spans: [JSON.parse(exportLine('svc', spans))], scope: 'agent' })).json;
    assert.equal(r.mapped, 5, JSON.stringify(r));
    // The method's three spans went to the package function Parse before.
    assert.deepEqual(Object.fromEntries(r.hot.map((x: any) => [x.id, x.spans])), { 'method:flags.go#FlagSet.Parse': 3, 'method:flags.go#FlagSet.Parsed': 1, 'function:flags.go#Parse': 1 });
  });

  it('takes a Java overloaded name with its class as ambiguous, not as the first overload', async () => {
    const spans = [
      span('encode', 4, [str('code.function', 'encode'), str('code.namespace', 'com.acme.Codec')]),
      span('encode', 5, [str('code.function', 'encode'), str('code.namespace', 'com.acme.Codec'), str('code.filepath', 'com/acme/Codec.java'), int('code.lineno', 9)]),
      span('decode', 6, [str('code.function', 'decode'), str('code.namespace', 'com.acme.Codec')]),
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'b', spans: [JSON.parse(exportLine('svc', spans))], scope: 'agent' })).json;
    assert.deepEqual(r.unmapped, [{ reason: 'code.function encode names 2 symbols; add code.filepath and code.lineno', count: 1 }], JSON.stringify(r));
    const ids = Object.fromEntries(r.hot.map((x: any) => [x.id, x.spans]));
    assert.equal(ids['method:src/main/java/com/acme/Codec.java#Codec.encode'], undefined, 'the first overload was credited with a span of either');
    assert.equal(Object.keys(ids).length, 2);
    assert.equal(ids['method:src/main/java/com/acme/Codec.java#Codec.decode'], 1);
  });
});

describe('runtime_overlay settings, input checks and route mapping', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  const ids = (r: any) => r.hot.map((x: any) => x.id).sort();
  before(async () => {
    ws = writeFixtureRepo(tempDir(), {
      ...FIXTURE_FILES,
      'src/orders.ts': 'export function getOrder(id: string) {\n  return id;\n}\n',
      'src/routes.ts': [
        "import { getOrder } from './orders.ts';",
        'declare const app: any;',
        'declare const router: any;',
        'declare const auth: any;',
        'export function createOrder(body: unknown) {',
        '  return body;',
        '}',
        "app.get('/orders/:id', getOrder);",
        "router.post('/orders', auth, createOrder);",
        'export function registerPing() {',
        "  app.get('/ping', (req: unknown, res: any) => res.send('ok'));",
        '}',
        '',
      ].join('\n'),
      // Client calls to the same routes register nothing (no handler) or lose to the registered handler.
      'src/client.ts': "declare const axios: any;\nexport function fetchOrders() {\n  return axios.get('/orders', { params: {} });\n}\nexport function fetchOrder(http: any, opts: unknown) {\n  return http.get('/orders/:id', opts);\n}\n",
      'py/api.py': 'from fastapi import FastAPI\n\napp = FastAPI()\n\n\n@app.get("/items/{item_id}")\nasync def read_item(item_id):\n    return item_id\n',
      'go/health.go': 'package server\n\nimport "net/http"\n\nfunc healthHandler(w http.ResponseWriter, r *http.Request) {\n}\n\nfunc routes() {\n\thttp.HandleFunc("/healthz", healthHandler)\n}\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('applies a half_life_hours a call passes to an existing overlay, keeps it when a call passes none, and says which is in force', async () => {
    const first = (await h.call('runtime_overlay', { agent_id: 'hl', scope: 'agent', spans: [span('mul', 1, [])] })).json;
    assert.equal(first.half_life_hours, 168);
    const changed = (await h.call('runtime_overlay', { agent_id: 'hl', scope: 'agent', spans: [span('mul', 1, [])], half_life_hours: 2 })).json;
    assert.equal(changed.half_life_hours, 2);
    const kept = (await h.call('runtime_overlay', { agent_id: 'hl', scope: 'agent', spans: [span('mul', 1, [])] })).json;
    assert.equal(kept.half_life_hours, 2);
  });

  it('keeps the boost_strength of the overlay when a call passes none', async () => {
    const set = (await h.call('runtime_overlay', { agent_id: 'bs', scope: 'agent', spans: [span('mul', 1, [])], boost_strength: 0.4 })).json;
    assert.equal(set.boost_strength, 0.4);
    const kept = (await h.call('runtime_overlay', { agent_id: 'bs', scope: 'agent', spans: [span('mul', 1, [])] })).json;
    assert.equal(kept.boost_strength, 0.4);
    assert.match(kept.boost, /hottest \+0\.4\)/);
  });

  it('refuses input that holds no span, and a service_name no span has naming the services present, without writing', async () => {
    const junk = (await h.call('runtime_overlay', { agent_id: 'nw', scope: 'agent', spans: [{ foo: 1 }], half_life_hours: 5 })).json;
    assert.equal(junk.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(junk.error.message, /no OpenTelemetry span/);
    assert.match(junk.error.hint, /resourceSpans/);
    fs.writeFileSync(path.join(ws, 'hello.json'), '{"hello":"world"}\n');
    const file = (await h.call('runtime_overlay', { agent_id: 'nw', scope: 'agent', path: 'hello.json', half_life_hours: 5 })).json;
    assert.equal(file.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(file.error.message, /hello\.json/);
    const posted = [JSON.parse(exportLine('shop', [span('mul', 1, [])])), JSON.parse(exportLine('worker', [span('add', 1, [])]))];
    const service = (await h.call('runtime_overlay', { agent_id: 'nw', scope: 'agent', spans: posted, service_name: 'billing', half_life_hours: 5 })).json;
    assert.equal(service.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(service.error.message, /shop \(1\)/);
    assert.match(service.error.message, /worker \(1\)/);
    // None of the refused calls made the overlay (its half-life would be 5).
    const fresh = (await h.call('runtime_overlay', { agent_id: 'nw', scope: 'agent', spans: [span('mul', 1, [])] })).json;
    assert.equal(fresh.half_life_hours, 168);
    assert.deepEqual(ids(fresh), ['function:src/math.ts#mul'], JSON.stringify(fresh));
  });

  it('gives the real reason for an unmapped span with code.filepath in auto mode', async () => {
    const r = (await h.call('runtime_overlay', { agent_id: 'why', scope: 'agent', spans: [span('GET something', 1, [str('code.filepath', 'gone/missing.ts'), int('code.lineno', 3)])] })).json;
    assert.deepEqual(r.unmapped, [{ reason: 'code.filepath gone/missing.ts matches no workspace file', count: 1 }]);
  });

  it('does not silently credit a same-named symbol elsewhere when code.filepath matches no file, in auto and code_attributes mode', async () => {
    for (const mapping_strategy of ['auto', 'code_attributes']) {
      const spans = [
        span('total', 1, [str('code.function', 'total'), str('code.filepath', '/srv/dist/checkout.js')]),
        span('total', 1, [str('code.function', 'total'), str('code.filepath', 'src/math.ts')]),
      ];
      const r = (await h.call('runtime_overlay', { agent_id: `ff-${mapping_strategy}`, scope: 'agent', spans, mapping_strategy })).json;
      assert.deepEqual(r.via, { 'code_function, file not found': 1 }, JSON.stringify(r));
      assert.deepEqual(r.unmapped, [{ reason: 'code.function total names no symbol in src/math.ts', count: 1 }], mapping_strategy);
    }
  });

  it('maps spans by HTTP route to the handler the code registers for it', async () => {
    const spans = [
      span('GET /orders/:id', 1, [str('http.route', '/orders/:id'), str('http.request.method', 'GET')]),
      span('POST /orders', 1, []),
      span('GET /api/orders/:id', 1, [str('http.route', '/api/orders/:id')]),
      span('GET /items/{item_id}', 1, [str('http.route', '/items/{item_id}')]),
      span('GET /healthz', 1, []),
      span('GET /ping', 1, []),
      span('DELETE /orders/:id', 1, []),
      span('GET /orders', 1, []),
      // A file found but no line or function in it: the route still maps, the span name does not.
      span('GET /orders/:id', 1, [str('http.route', '/orders/:id'), str('code.filepath', 'src/routes.ts')]),
    ];
    const r = (await h.call('runtime_overlay', { agent_id: 'routes', scope: 'agent', spans })).json;
    assert.equal(r.via.http_route, 7, JSON.stringify(r));
    const byId = Object.fromEntries(r.hot.map((x: any) => [x.id, x.spans]));
    assert.equal(byId['function:src/orders.ts#getOrder'], 3);
    assert.equal(byId['function:src/routes.ts#createOrder'], 1);
    assert.equal(byId['function:py/api.py#read_item'], 1);
    assert.equal(byId['function:go/health.go#healthHandler'], 1);
    assert.equal(byId['function:src/routes.ts#registerPing'], 1);
    assert.deepEqual(r.unmapped.map((u: any) => u.reason).sort(), ["http.route /orders (GET) matches no route registered in the workspace's code", "http.route /orders/:id (DELETE) matches no route registered in the workspace's code"]);
    assert.ok(r.routes.files_scanned > 0 && r.routes.registered >= 5, JSON.stringify(r.routes));
  });

  it("maps a route to its NestJS handler, its Django view (a class-based one too) and a router's handler under the prefix it is mounted at", async () => {
    const dir = tempDir();
    const files: Record<string, string> = {
      'src/users.controller.ts': "import { Controller, Get } from '@nestjs/common';\n\n@Controller('users')\nexport class UsersController {\n  @Get(':id')\n  findOne() {\n    return 1;\n  }\n}\n",
      'src/orders.js': "const router = require('express').Router();\nfunction getOrder(req, res) {}\nrouter.get('/orders/:id', getOrder);\nmodule.exports = router;\n",
      'src/app.js': "const express = require('express');\nconst orders = require('./orders');\nconst app = express();\napp.use('/api', orders);\n",
      'site/urls.py': "from django.urls import include, path\n\nurlpatterns = [path('shop/', include('shop.urls'))]\n",
      'shop/urls.py': "from django.urls import path\nfrom . import views\n\nurlpatterns = [\n    path('carts/<int:pk>/', views.CartView.as_view()),\n    path('skus/<slug:sku>/', views.sku_detail),\n]\n",
      'shop/views.py': 'class CartView:\n    pass\n\n\ndef sku_detail(request, sku):\n    return sku\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    const own = await connect({ workspaceRoot: dir, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await own.call('ingest', { agent_id: 'a', path: dir });
      const spans = [
        span('GET /users/:id', 1, [str('http.route', '/users/:id')]),
        span('GET /api/orders/:id', 1, [str('http.route', '/api/orders/:id')]),
        span('GET shop/carts/<int:pk>/', 1, [str('http.route', 'shop/carts/<int:pk>/')]),
        span('GET /shop/skus/<slug:sku>/', 1, [str('http.route', '/shop/skus/<slug:sku>/')]),
      ];
      const r = (await own.call('runtime_overlay', { agent_id: 'nest', scope: 'agent', spans })).json;
      assert.equal(r.via.http_route, 4, JSON.stringify(r));
      assert.deepEqual(Object.fromEntries(r.hot.map((x: any) => [x.id, x.spans])), {
        'method:src/users.controller.ts#UsersController.findOne': 1,
        'function:src/orders.js#getOrder': 1,
        'class:shop/views.py#CartView': 1,
        'function:shop/views.py#sku_detail': 1,
      });
    } finally {
      await own.close();
    }
  });

  it('says when it read only the first 200,000 spans and how many it dropped, reading a large export off the main thread', async () => {
    // One JSON object of ~25 MB: parsed on the main thread it held the loop for ~100 ms and more.
    const many = Array.from({ length: 250_000 }, (_, i) => span('mul', 1 + (i % 7), [str('code.function', 'mul'), str('code.filepath', 'src/math.ts'), int('code.lineno', 5)]));
    fs.writeFileSync(path.join(ws, 'telemetry-big.json'), JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', 'shop')] }, scopeSpans: [{ spans: many }] }] }));
    const { result, held, gc } = await pingDuringGc(h, () => h.call('runtime_overlay', { agent_id: 'big', scope: 'agent', path: 'telemetry-big.json' }));
    const r = result.json;
    assert.equal(r.spans, 200_000, JSON.stringify(r).slice(0, 400));
    assert.deepEqual([r.truncated, r.dropped], [true, 50_000]);
    assert.ok(r.hot.some((x: any) => x.id.endsWith('#mul') && x.spans === 200_000), JSON.stringify(r.hot).slice(0, 400));
    const worst = Math.max(...ownHeld(held, gc));
    assert.ok(worst < 40, `a ping waited on ${worst.toFixed(1)} ms of main-thread work (${Math.max(...held).toFixed(1)} ms with GC)`);
  });

  it('suggests a minimal call that succeeds, and bounds what an argument error echoes', async () => {
    const bad = (await h.call('runtime_overlay', { agent_id: 'm', top_k: 0 })).json;
    const minimal = JSON.parse(bad.error.detail.minimal_call.replace(/^runtime_overlay\(|\)$/g, ''));
    const ok = await h.call('runtime_overlay', { ...minimal, scope: 'agent' });
    assert.equal(ok.result.isError, undefined, JSON.stringify(ok.json));
    const huge = await h.call('runtime_overlay', { agent_id: 'm', spans: Array.from({ length: 1001 }, () => span('mul', 1, [str('code.function', 'mul')])) });
    assert.equal(huge.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.ok(JSON.stringify(huge.result.content).length < 4000, `${JSON.stringify(huge.result.content).length} characters`);
  });

  it('on a read-only server, reads the overlay a writable server stored for the agent and keeps additions in the session', async () => {
    await h.call('runtime_overlay', { agent_id: 'reader', scope: 'agent', spans: [span('mul', 1, []), span('mul', 1, [])], half_life_hours: 12 });
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
    try {
      const r = (await ro.call('runtime_overlay', { agent_id: 'reader', scope: 'agent', spans: [span('mul', 1, [])] })).json;
      assert.equal(r.hot.find((x: any) => x.id === 'function:src/math.ts#mul').spans, 3, JSON.stringify(r));
      assert.deepEqual([r.half_life_hours, r.stored, r.kept], [12, false, 'session (read-only server)']);
    } finally {
      await ro.close();
    }
  });
});
