import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const routeSpan = (method: string, route: string) => ({ name: `${method} ${route}`, attributes: [str('http.route', route), str('http.request.method', method)] });

describe('runtime_overlay: route forms each framework writes', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = tempDir();
    const files: Record<string, string> = {
      // Two Spring controllers: the second has no @RequestMapping (its routes took the first's prefix), a bare @GetMapping is the prefix's own route.
      'src/main/java/demo/Users.java': 'package demo;\n@RestController\n@RequestMapping("/api/users")\nclass Users {\n  @GetMapping\n  List<User> list() { return null; }\n}\n@RestController\nclass Health {\n  @GetMapping("/health")\n  String health() { return "ok"; }\n}\n',
      // FastAPI's `""` under a prefixed router, gin's group made without a leading slash and its `""` route, Hono's constrained parameter.
      'api/items.py': 'from fastapi import APIRouter\nrouter = APIRouter(prefix="/items")\n\n@router.get("")\ndef list_items():\n    return []\n',
      'go/main.go': 'package main\n\nfunc routes(r *gin.Engine) {\n\tapi := r.Group("/api")\n\tv1 := api.Group("v1")\n\tv1.GET("/orders/:id", getOrder)\n\tapi.GET("", root)\n}\n\nfunc getOrder(c *gin.Context) {}\n\nfunc root(c *gin.Context) {}\n',
      'web/books.ts': "export function getBook() {}\napp.get('/books/:id{[0-9]+}', getBook);\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('maps each route to its handler', async () => {
    const expected: [string, string, string][] = [
      ['GET', '/api/users', 'method:src/main/java/demo/Users.java#Users.list'],
      ['GET', '/health', 'method:src/main/java/demo/Users.java#Health.health'],
      ['GET', '/items', 'function:api/items.py#list_items'],
      ['GET', '/api/v1/orders/:id', 'function:go/main.go#getOrder'],
      ['GET', '/api', 'function:go/main.go#root'],
      ['GET', '/books/:id', 'function:web/books.ts#getBook'],
    ];
    const wrong: string[] = [];
    for (const [method, route, id] of expected) {
      const r = (await h.call('runtime_overlay', { agent_id: `x${wrong.length}${route}`.slice(0, 60), scope: 'agent', spans: [routeSpan(method, route)] })).json;
      if (r.hot?.[0]?.id !== id || r.mapped !== 1) wrong.push(`${method} ${route}: ${r.mapped ? r.hot[0].id : JSON.stringify(r.unmapped ?? r.error)}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('runtime_overlay: route-like strings that register nothing', function () {
  this.timeout(120000);
  let h: Harness;
  after(() => h?.close());

  it('maps no span to a call that is no registration: an arrow later on its line, a value for a key, a Go client call', async () => {
    const ws = tempDir();
    const files: Record<string, string> = {
      'src/store.ts': [
        "const msg = 'see /api/users for details';",
        "const description = '/v1/items';",
        'export function load(store: any, params: object) {',
        "  return store.get('/v1/items', { params, description }).then((r: any) => r.body);",
        '}',
        'export function save(cache: any) {',
        "  cache.put('/v1/items', description);",
        '  return msg;',
        '}',
        'export function listOrders() {}',
        "router.get('/api/orders', listOrders);",
        "app.post('/api/orders', (req: any, res: any) => {",
        '  res.end();',
        '});',
        '',
      ].join('\n'),
      'go/client.go': 'package main\n\nfunc pay(body io.Reader) {\n\tresp, _ := http.Post("/api/payments", "application/json", body)\n\t_ = resp\n}\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const mapped: string[] = [];
    for (const [i, [method, route]] of [['GET', '/v1/items'], ['PUT', '/v1/items'], ['POST', '/api/payments'], ['GET', '/api/users'], ['GET', '/api/orders'], ['POST', '/api/orders']].entries()) {
      const r = (await h.call('runtime_overlay', { agent_id: `n${i}`, scope: 'agent', spans: [routeSpan(method, route)] })).json;
      assert.ok(typeof r.mapped === 'number', JSON.stringify(r).slice(0, 300));
      if (r.mapped) mapped.push(`${method} ${route} -> ${r.hot[0].id}`);
    }
    assert.deepEqual(mapped, ['GET /api/orders -> function:src/store.ts#listOrders', 'POST /api/orders -> file:src/store.ts']);
  });
  it("maps no span to a key-value call passing a parameter or an object's member (cache.put('/v2/x', v) was PUT /v2/x handled by v); a router's, an app's and a typed parameter's still map", async () => {
    const ws = tempDir();
    const files: Record<string, string> = {
      'src/kv.ts': [
        'export function save(cache: any, v: unknown) {',
        "  cache.put('/v2/x', v);",
        '}',
        'export function lookup(map: any, fallback: string) {',
        "  return map.get('/v2/a', fallback);",
        '}',
        'export function drop(store: any, opts: any) {',
        "  store.delete('/v2/k', opts);",
        "  store.post('/v2/k', opts.body);",
        '}',
        '',
      ].join('\n'),
      'src/app.ts': [
        "import { Hono } from 'hono';",
        "import type { Router } from 'express';",
        "import { listItems } from './items.ts';",
        'const app = new Hono();',
        "app.get('/v2/items', listItems);",
        'export function mount(r: Router, handler: any) {',
        "  r.delete('/v2/items/:id', handler);",
        '}',
        '',
      ].join('\n'),
      'src/items.ts': 'export function listItems() {}\n',
      'go/kv.go': 'package main\n\nfunc put(cache *Cache, v string) {\n\tcache.Put("/v2/go", v)\n}\n\nfunc routes(r chi.Router) {\n\tr.Put("/v2/go/:id", putThing)\n}\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    const own = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await own.call('ingest', { agent_id: 'a', path: ws });
      const mapped: string[] = [];
      for (const [i, [method, route]] of [['PUT', '/v2/x'], ['GET', '/v2/a'], ['DELETE', '/v2/k'], ['POST', '/v2/k'], ['PUT', '/v2/go'], ['GET', '/v2/items'], ['DELETE', '/v2/items/:id'], ['PUT', '/v2/go/:id']].entries()) {
        const r = (await own.call('runtime_overlay', { agent_id: `kv${i}`, scope: 'agent', spans: [routeSpan(method, route)] })).json;
        assert.ok(typeof r.mapped === 'number', JSON.stringify(r).slice(0, 300));
        if (r.mapped) mapped.push(`${method} ${route} -> ${r.hot[0].id}`);
      }
      assert.deepEqual(mapped, [
        'GET /v2/items -> function:src/items.ts#listItems',
        'DELETE /v2/items/:id -> function:src/app.ts#mount',
        'PUT /v2/go/:id -> function:go/kv.go#routes',
      ]);
    } finally {
      await own.close();
    }
  });
});
