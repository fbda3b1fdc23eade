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
