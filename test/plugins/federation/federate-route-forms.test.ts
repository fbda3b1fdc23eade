import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe('federate: how requests and registrations are written', function () {
  this.timeout(120000);
  let h: Harness;
  let parent: string;
  let app: string;
  before(async () => {
    parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-forms-')));
    app = path.join(parent, 'app');
    write(app, { 'package.json': '{"name":"app","type":"module"}\n' });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
  });
  after(() => h?.close());

  /** Federates the app (the workspace) with a service beside it: the http_route edges from the app's files given, as `source -> target`. */
  async function routeEdges(svcName: string, svcFiles: Record<string, string>, appFiles: Record<string, string>): Promise<string[]> {
    const svc = path.join(parent, svcName);
    write(svc, { 'package.json': `{"name":"${svcName}","type":"module"}\n`, ...svcFiles });
    write(app, appFiles);
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: svcName, path: svc }], top_k: 100 })).json;
    assert.ok(r.edges, JSON.stringify(r).slice(0, 400));
    // The edges of this test's files (the app keeps the files of the tests before).
    const mine = (e: any) => Object.keys(appFiles).some((f) => e.source.includes(`:${f}`));
    return r.edges.filter((e: any) => e.relation === 'http_route' && mine(e)).map((e: any) => `${e.source} -> ${e.target}`).sort();
  }

  it("reads a URL concatenated of literals and expressions with each expression a parameter ('/api/' + v + '/users' was /api/{}: the tail lost, tied to /api/:version)", async () => {
    const edges = await routeEdges('concat', {
      'server.js': "function getVersion(req, res) {}\nfunction listUsers(req, res) {}\nfunction getOrder(req, res) {}\napp.get('/api/:version', getVersion);\napp.get('/api/:version/users', listUsers);\napp.get('/api/:version/orders/:id', getOrder);\n",
    }, {
      'src/concat.ts': "export function users(version: string) {\n  return fetch('/api/' + version + '/users');\n}\nexport function order(v: string, id: string) {\n  const url = '/api/' + v + '/orders/' + encodeURIComponent(id);\n  return fetch(url);\n}\nexport function anything(a: string, b: string) {\n  return fetch('/' + a + '/' + b);\n}\n",
    });
    assert.deepEqual(edges, [
      'app::function:src/concat.ts#order -> concat::function:server.js#getOrder',
      'app::function:src/concat.ts#users -> concat::function:server.js#listUsers',
    ]);
  });

  it('reads no request from a string that is no URL requested (a keyword argument, a message); a parameter default still is', async () => {
    const edges = await routeEdges('plain', {
      'items.py': '@app.get("/v1/items")\ndef list_items():\n    return []\n\n@app.get("/api/users")\ndef list_users():\n    return []\n',
    }, {
      'src/describe.py': 'def describe(client, description):\n    item = Item(name="x", description="/v1/items")\n    return client.get(description)\n\ndef fetch_items(client, url="/v1/items"):\n    return client.get(url)\n',
      'src/msg.ts': "const msg = 'see /api/users for details';\nexport function warn(api: any) {\n  return api.get(msg);\n}\n",
    });
    assert.deepEqual(edges, ['app::function:src/describe.py#fetch_items -> plain::function:items.py#list_items']);
  });
  it("reads no registration from a key-value call passing a parameter or an object's member (cache.put('/api/x', v) was PUT /api/x handled by v); a router's and app's still are", async () => {
    const edges = await routeEdges('kv', {
      'src/items.js': 'export function getItem(req, res) {}\n',
      'src/cache.js': [
        'export function save(cache, v) {',
        "  cache.put('/api/x', v);",
        '}',
        'export function lookup(map, fallback) {',
        "  return map.get('/api/a', fallback);",
        '}',
        'export function drop(store, opts) {',
        "  store.delete('/api/k', opts);",
        "  store.post('/api/k', opts.body);",
        '}',
        '',
      ].join('\n'),
      'src/server.js': [
        "import express from 'express';",
        "import { getItem } from './items.js';",
        'const app = express();',
        'const orders = express.Router();',
        'function createOrder(req, res) {}',
        "app.get('/api/items/:id', getItem);",
        "orders.post('/api/orders', createOrder);",
        'export function mount(router, handler) {',
        "  router.put('/api/mounted', handler);",
        '}',
        '',
      ].join('\n'),
    }, {
      'src/kv.ts': [
        'export function putX(body: string) {',
        "  return axios.put('/api/x', body);",
        '}',
        'export function getA() {',
        "  return fetch('/api/a');",
        '}',
        'export function dropK() {',
        "  return axios.delete('/api/k');",
        '}',
        'export function item(id: string) {',
        "  return fetch('/api/items/' + id);",
        '}',
        'export function order(body: string) {',
        "  return axios.post('/api/orders', body);",
        '}',
        'export function remount(body: string) {',
        "  return axios.put('/api/mounted', body);",
        '}',
        '',
      ].join('\n'),
    });
    assert.deepEqual(edges, [
      'app::function:src/kv.ts#item -> kv::function:src/items.js#getItem',
      'app::function:src/kv.ts#order -> kv::function:src/server.js#createOrder',
      'app::function:src/kv.ts#remount -> kv::function:src/server.js#mount',
    ]);
  });
});
