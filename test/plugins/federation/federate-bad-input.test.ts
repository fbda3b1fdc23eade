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

describe('federate with odd names, roots and routes', function () {
  this.timeout(120000);
  let h: Harness;
  let parent: string;
  let lib: string;
  before(async () => {
    parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-bad-')));
    const app = path.join(parent, 'app');
    lib = path.join(parent, 'lib');
    write(app, { 'package.json': '{"name":"app","type":"module"}\n', 'src/a.ts': "export function onlyInApp() {\n  return fetch('/api/x');\n}\n" });
    write(lib, { 'package.json': '{"name":"lib","type":"module"}\n', 'src/b.ts': "export function onlyInLib() {}\napp.get('/api/x', onlyInLib);\n" });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
  });
  after(() => h?.close());

  it("refuses a repository named . or .. or .view (a '..' one's graph replaced the workspace's own stored graph)", async () => {
    for (const name of ['..', '.', '.view']) {
      const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name, path: lib }] })).json;
      assert.equal(r.error?.code, 'M1ND_ERR_CALL_INVALID_ARGS', JSON.stringify(r).slice(0, 300));
      assert.match(r.error.message, /cannot be named/);
      assert.match(r.error.hint, /"name":"lib"/);
    }
    const seek = (await h.call('seek', { agent_id: 'b', query: 'onlyInApp' })).json;
    assert.equal(seek.results[0]?.id, 'function:src/a.ts#onlyInApp', JSON.stringify(seek).slice(0, 300));
  });

  it('refuses one folder under two names, naming both (every route it serves was tied to itself)', async () => {
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }, { name: 'lib2', path: `${lib}/../lib` }] })).json;
    assert.equal(r.error?.code, 'M1ND_ERR_CALL_INVALID_ARGS', JSON.stringify(r).slice(0, 300));
    assert.match(r.error.message, /lib and lib2 name the same folder/);
    const ok = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }] })).json;
    assert.equal(ok.cross_edges.http_route, 1, JSON.stringify(ok).slice(0, 300));
  });

  it('federate_auto names a candidate whose folder is named like the workspace apart instead of dropping it', async () => {
    // A workspace member in a folder named `app`, as the workspace's own folder is.
    const app = path.join(parent, 'app');
    write(app, { 'package.json': JSON.stringify({ name: 'app', type: 'module', workspaces: ['packages/*'] }), 'packages/app/package.json': '{"name":"@acme/app-core","version":"1.0.0"}\n', 'packages/app/index.js': 'export function v() {}\n' });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate_auto', { agent_id: 'a' })).json;
    assert.deepEqual(r.candidates.map((c: any) => [c.name, c.path]), [['app-2', 'packages/app']], JSON.stringify(r).slice(0, 600));
  });

  it('ties a request to the most specific route that serves it, not the first one registered', async () => {
    const svc = path.join(parent, 'svc');
    write(svc, {
      'package.json': '{"name":"svc","type":"module"}\n',
      'users.js': "function getUser(req, res) {}\nfunction getMe(req, res) {}\napp.get('/api/users/:id', getUser);\napp.get('/api/users/me', getMe);\n",
    });
    write(path.join(parent, 'app'), { 'src/me.ts': "export function me() {\n  return fetch('/api/users/me');\n}\n" });
    await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: svc }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation === 'http_route').map((e: any) => `${e.source} -> ${e.target}`);
    assert.ok(edges.includes('app::function:src/me.ts#me -> svc::function:users.js#getMe'), JSON.stringify(edges));
  });

  it('reads no route, mount or request from a comment (a registration commented out took the edge from the live one)', async () => {
    const svc = path.join(parent, 'svc2');
    write(svc, {
      'package.json': '{"name":"svc2","type":"module"}\n',
      'orders.js': "function oldGetOrder(req, res) {}\nfunction getOrder(req, res) {}\n// app.get('/api/orders/:id', oldGetOrder);\n/* app.use('/v0', legacy); */\napp.get('/api/orders/:id', getOrder); // 'http://x' in a comment\n",
    });
    write(path.join(parent, 'app'), { 'src/orders.ts': "export function order(id: string) {\n  // return fetch('/api/legacy/' + id);\n  return fetch(`/api/orders/${id}`);\n}\n" });
    await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc2', path: svc }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation === 'http_route').map((e: any) => `${e.source} -> ${e.target} @ ${e.evidence}`);
    assert.deepEqual(edges, ['app::function:src/orders.ts#order -> svc2::function:orders.js#getOrder @ app::src/orders.ts:3'], JSON.stringify(r.edges));
  });

  it("ties a request to the code's handler, not a test's or mock's registration of the same route", async () => {
    const svc = path.join(parent, 'svc3');
    write(svc, {
      'package.json': '{"name":"svc3","type":"module"}\n',
      '__mocks__/api.js': "function fakeCart(req, res) {}\nmock.get('/api/carts/:id', fakeCart);\n",
      'src/carts.js': "function getCart(req, res) {}\napp.get('/api/carts/:id', getCart);\n",
    });
    write(path.join(parent, 'app'), { 'src/carts.ts': "export function cart(id: string) {\n  return fetch(`/api/carts/${id}`);\n}\n" });
    await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc3', path: svc }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation === 'http_route').map((e: any) => `${e.source} -> ${e.target}`);
    assert.deepEqual(edges, ['app::function:src/carts.ts#cart -> svc3::function:src/carts.js#getCart'], JSON.stringify(r.edges));
  });

  it('ties a request to the handler of its method on a path served for several (a POST went to the GET handler registered first)', async () => {
    const svc = path.join(parent, 'svc4');
    write(svc, {
      'package.json': '{"name":"svc4","type":"module"}\n',
      'payments.js': "function listPayments(req, res) {}\nfunction createPayment(req, res) {}\nfunction refund(req, res) {}\napp.get('/api/payments', listPayments);\napp.post('/api/payments', createPayment);\napp.delete('/api/payments/:id', refund);\napp.get('/api/payments/:id', listPayments);\n",
    });
    write(path.join(parent, 'app'), {
      'src/pay.ts': "export function pay(body: string) {\n  return fetch('/api/payments', { method: 'POST', body });\n}\nexport function cancel(id: string) {\n  return axios.delete(`/api/payments/${id}`);\n}\nexport function list() {\n  return fetch('/api/payments');\n}\n",
    });
    await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc4', path: svc }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation === 'http_route').map((e: any) => `${e.source} -> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::function:src/pay.ts#cancel -> svc4::function:payments.js#refund',
      'app::function:src/pay.ts#list -> svc4::function:payments.js#listPayments',
      'app::function:src/pay.ts#pay -> svc4::function:payments.js#createPayment',
    ]);
  });
});
