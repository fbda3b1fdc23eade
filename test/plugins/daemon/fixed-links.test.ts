import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon: a broken document link fixed in the document', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('resolves the binding_broken alerts of links the edited document no longer makes, and keeps the ones it still makes', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-fixed-links-'));
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    const guide = '# Guide\n\nPrices add up with [math](../src/math.ts).\n\n## Totals\n\nSee `total` for the sum.\n';
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), guide);
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    ok(await h.call('daemon_stop', { agent_id: 'a' }));
    ok(await h.call('daemon_tick', { agent_id: 'a' }));
    // math.ts moves (the path link breaks), cart.ts is deleted (the link by name to total breaks).
    fs.mkdirSync(path.join(ws, 'lib'));
    fs.renameSync(path.join(ws, 'src/math.ts'), path.join(ws, 'lib/math.ts'));
    fs.rmSync(path.join(ws, 'src/cart.ts'));
    ok(await h.call('daemon_tick', { agent_id: 'a' }));
    const open = async () => ok(await h!.call('alerts_list', { agent_id: 'a' })).alerts.filter((a: any) => a.kind === 'binding_broken').map((a: any) => a.details.target).sort();
    assert.deepEqual(await open(), ['file:src/math.ts', 'function:src/cart.ts#total']);
    // The guide now links to the new path and still names `total`: one alert clears, the other holds.
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), guide.replace('../src/math.ts', '../lib/math.ts'));
    const fixed = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(fixed.reingested, ['docs/guide.md']);
    assert.equal(fixed.alerts_resolved, 1);
    assert.deepEqual(await open(), ['function:src/cart.ts#total']);
    const resolved = ok(await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).alerts.find((a: any) => a.status === 'resolved' && a.kind === 'binding_broken');
    assert.match(resolved.resolution, /docs\/guide\.md links to it under lib\/math\.ts/, JSON.stringify(resolved));
    // The mention of `total` removed: its alert clears too.
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nPrices add up with [math](../lib/math.ts).\n');
    assert.equal(ok(await h.call('daemon_tick', { agent_id: 'a' })).alerts_resolved, 1);
    assert.deepEqual(await open(), []);
    const all = ok(await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).alerts;
    assert.equal(all.find((a: any) => a.details?.target === 'function:src/cart.ts#total').resolution, 'docs/guide.md no longer names total');
  });
});
