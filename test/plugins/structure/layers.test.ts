import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { LAYERED_FILES } from './layered-repo.ts';

describe('layers and layer_inspect on a layered repository', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), LAYERED_FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('puts the app above the services above the store, and reports the store → users import as the upward arc of a cycle', async () => {
    const r = await h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const levelOf = (unit: string) => r.json.layers.find((l: any) => l.top.includes(unit))?.level;
    assert.ok(levelOf('src/app/main.ts') > levelOf('src/service/orders.ts'), JSON.stringify(r.json.layers));
    assert.ok(levelOf('src/service/users.ts') > levelOf('src/db/store.ts'));
    assert.ok(levelOf('src/db/store.ts') > levelOf('src/db/conn.ts'));
    const upward = r.json.violations.filter((v: any) => v.kind === 'upward');
    assert.ok(upward.some((v: any) => v.from === 'src/db/store.ts' && v.to === 'src/service/users.ts'), JSON.stringify(upward));
    assert.ok(!upward.some((v: any) => v.from === 'src/service/users.ts' && v.to === 'src/db/store.ts'), 'the heavier direction is the legitimate one');
    const cycles = r.json.violations.filter((v: any) => v.kind === 'cycle').map((v: any) => v.members);
    assert.deepEqual(cycles.sort(), [['src/db/store.ts', 'src/service/users.ts'], ['src/lib/ping.ts', 'src/lib/pong.ts']].sort());
    const via = upward.find((v: any) => v.from === 'src/db/store.ts').via;
    assert.ok(via.some((x: any) => x.target === 'function:src/service/users.ts#normalize'), JSON.stringify(via));
  });

  it('scopes the analysis to a directory', async () => {
    const r = await h.call('layers', { agent_id: 'a', scope: 'src/lib', min_nodes_per_layer: 1 });
    assert.equal(r.json.units, 2);
    assert.equal(r.json.violation_counts.cycle, 1);
  });

  it('inspects one layer with its arcs, violations and health, and names the next move for a missing layer', async () => {
    const all = (await h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1 })).json;
    const storeLevel = all.layers.find((l: any) => l.top.includes('src/db/store.ts')).level;
    const r = await h.call('layer_inspect', { agent_id: 'a', level: storeLevel, min_nodes_per_layer: 1 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.ok(r.json.units.some((u: any) => u.unit === 'src/db/store.ts' && u.in_cycle));
    assert.ok(r.json.cross_layer_arcs.some((a: any) => a.from === 'src/db/store.ts' && a.to === 'src/service/users.ts' && a.direction === 'upward'));
    assert.ok(r.json.health.arcs_upward >= 1);
    assert.ok(r.json.health.score < 1);
    const missing = await h.call('layer_inspect', { agent_id: 'a', level: 40 });
    assert.equal(missing.result.isError, true);
    assert.match(JSON.stringify(missing.json), /call `layers`/);
  });

  it('refuses a scope outside the workspace', async () => {
    const r = await h.call('layers', { agent_id: 'a', scope: '../..' });
    assert.equal(r.result.isError, true);
    assert.match(JSON.stringify(r.json), /PATH_ESCAPE/);
  });
});

describe('layers and xray over type-only imports', function () {
  this.timeout(60000);
  let h: Harness;
  const FILES: Record<string, string> = {
    // app → store at run time; store → app for a type only (import type): no cycle, no upward arc.
    'src/app.ts': "import { save } from './store.ts';\n\nexport interface Order {\n  id: string;\n}\n\nexport function place(o: Order): void {\n  save(o);\n}\n",
    'src/store.ts': "import type { Order } from './app.ts';\n\nexport function save(o: Order): string {\n  return o.id;\n}\n",
    // The same in Python: `if TYPE_CHECKING:` in the lower module.
    'pkg/__init__.py': '',
    'pkg/service.py': 'from .repo import fetch\n\n\nclass Thing:\n    pass\n\n\ndef run():\n    return fetch(Thing())\n',
    'pkg/repo.py': 'from __future__ import annotations\n\nimport typing\n\nif typing.TYPE_CHECKING:\n    from .service import Thing\n\n\ndef fetch(thing: Thing) -> Thing:\n    return thing\n',
    // A real cycle stays one: each imports the other at run time.
    'src/ping.ts': "import { pong } from './pong.ts';\nexport function ping(n: number): number {\n  return n > 0 ? pong(n - 1) : 0;\n}\n",
    'src/pong.ts': "import { ping } from './ping.ts';\nexport function pong(n: number): number {\n  return n > 0 ? ping(n - 1) : 1;\n}\n",
    'm1nd.layers.json': JSON.stringify({ layers: [{ name: 'top', paths: ['src/app.ts', 'pkg/service.py'] }, { name: 'bottom', paths: ['src/store.ts', 'pkg/repo.py'] }], layer_order: ['top', 'bottom'] }),
  };
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('sets aside dependencies that exist for the type checker only: no cycle or upward arc from them, the real cycle kept', async () => {
    const r = (await h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1 })).json;
    const cycles = r.violations.filter((v: any) => v.kind === 'cycle').map((v: any) => v.members);
    assert.deepEqual(cycles, [['src/ping.ts', 'src/pong.ts']], JSON.stringify(r.violations));
    assert.ok(!r.violations.some((v: any) => v.kind === 'upward' && ['src/store.ts', 'pkg/repo.py'].includes(v.from)), JSON.stringify(r.violations));
    assert.equal(r.type_only_dependencies, 2);
    const levelOf = (unit: string) => r.layers.find((l: any) => l.top.includes(unit))?.level;
    assert.ok(levelOf('src/app.ts') > levelOf('src/store.ts') && levelOf('pkg/service.py') > levelOf('pkg/repo.py'), JSON.stringify(r.layers));
  });

  it('xray_orient finds the lower layer conforming although it imports the upper one for types', async () => {
    const r = (await h.call('xray_orient', { agent_id: 'a' })).json;
    assert.equal(r.violation_counts.upward, 0, JSON.stringify(r.violations));
  });
});

describe('layers’ skip violations', function () {
  this.timeout(60000);
  let h: Harness;
  // route → service → repo → db. `admin` uses the service and also calls the repo the service wraps
  // (a bypass); `health` calls db directly and nothing in between (a long arc that bypasses nothing).
  const FILES: Record<string, string> = {
    'src/db.ts': 'export function query(sql: string): string[] {\n  return [sql];\n}\n',
    'src/repo.ts': "import { query } from './db.ts';\nexport function findUser(id: string): string[] {\n  return query('select ' + id);\n}\n",
    'src/service.ts': "import { findUser } from './repo.ts';\nexport function profile(id: string): string {\n  return findUser(id).join();\n}\n",
    'src/route.ts': "import { profile } from './service.ts';\nexport function get(id: string): string {\n  return profile(id);\n}\n",
    'src/admin.ts': "import { get } from './route.ts';\nimport { profile } from './service.ts';\nimport { findUser } from './repo.ts';\nexport function audit(id: string): string {\n  return get(id) + profile(id) + findUser(id).length;\n}\n",
    'src/health.ts': "import { get } from './route.ts';\nimport { query } from './db.ts';\nexport function ping(): number {\n  return get('x').length + query('select 1').length;\n}\n",
  };
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports an arc that bypasses a layer the caller also uses, naming it, and not a long arc that bypasses nothing', async () => {
    const r = (await h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1 })).json;
    const skips = r.violations.filter((v: any) => v.kind === 'skip');
    assert.ok(skips.some((v: any) => v.from === 'src/admin.ts' && v.to === 'src/repo.ts' && v.bypasses === 'src/service.ts'), JSON.stringify(skips));
    assert.ok(!skips.some((v: any) => v.from === 'src/health.ts'), 'health → db has no mediator it also uses');
    assert.ok(skips.some((v: any) => v.from === 'src/admin.ts' && v.to === 'src/service.ts' && v.bypasses === 'src/route.ts'), 'admin → service passes route, which admin uses and which wraps service');
    assert.equal(skips.length, 2, JSON.stringify(skips));
  });
});
