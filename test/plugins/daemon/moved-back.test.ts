import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon: a file moved back', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('resolves the file_moved alert of a path that holds the file again', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-moved-back-'));
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    ok(await h.call('daemon_stop', { agent_id: 'a' }));
    ok(await h.call('daemon_tick', { agent_id: 'a' }));
    fs.renameSync(path.join(ws, 'src/cart.ts'), path.join(ws, 'src/basket.ts'));
    assert.deepEqual(ok(await h.call('daemon_tick', { agent_id: 'a' })).moved, [{ from: 'src/cart.ts', to: 'src/basket.ts' }]);
    fs.renameSync(path.join(ws, 'src/basket.ts'), path.join(ws, 'src/cart.ts'));
    const back = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(back.moved, [{ from: 'src/basket.ts', to: 'src/cart.ts' }]);
    assert.equal(back.alerts_resolved, 1);
    const open = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts.filter((a: any) => a.kind === 'file_moved');
    assert.deepEqual(open.map((a: any) => a.message), ['src/basket.ts moved to src/cart.ts (same content)']);
    const all = ok(await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).alerts;
    assert.equal(all.find((a: any) => a.path === 'src/cart.ts' && a.kind === 'file_moved').resolution, 'the file exists again');
  });
});
