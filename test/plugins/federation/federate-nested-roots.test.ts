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

describe('federate: a member whose root is inside another member', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  after(() => h?.close());

  it("makes each cross edge once, from each file's own member (the inner member's edges were made twice, and it was tied to itself)", async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-nested-')));
    const app = path.join(parent, 'app');
    write(app, {
      'package.json': '{"name":"app","type":"module"}\n',
      'src/client.ts': 'export function order(id: string) {\n  return fetch(`/api/orders/${id}`);\n}\n',
      'src/users.js': "function listUsers(req, res) {}\napp.get('/api/users', listUsers);\n",
      'src/pay.ts': 'export function payments() {\n  return process.env.PAYMENTS_URL;\n}\n',
      'svc/package.json': '{"name":"svc","type":"module"}\n',
      'svc/server.js': "function getOrder(req, res) {}\napp.get('/api/orders/:id', getOrder);\n",
      'svc/client.ts': "export function users() {\n  return fetch('/api/users');\n}\n",
      'svc/worker.ts': 'export function refresh(id: string) {\n  return fetch(`/api/orders/${id}`);\n}\n',
      'svc/config.ts': 'export function payments() {\n  return process.env.PAYMENTS_URL;\n}\n',
    });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'svc', path: 'svc' }], top_k: 100 })).json;
    assert.ok(r.edges, JSON.stringify(r).slice(0, 400));
    const edges = r.edges.map((e: any) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::function:src/client.ts#order -http_route-> svc::function:server.js#getOrder',
      'app::function:src/pay.ts#payments -config_key-> svc::function:config.ts#payments',
      'svc::function:client.ts#users -http_route-> app::function:src/users.js#listUsers',
    ]);
    assert.deepEqual([r.cross_edges.http_route, r.cross_edges.config_key], [2, 1]);
  });
});
