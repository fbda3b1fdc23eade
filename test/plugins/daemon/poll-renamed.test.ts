import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon_tick: a file renamed while no watcher ran', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('counts both sides of a rename in found_by_poll, though the new path keeps the old mtime', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-poll-renamed-'));
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    // Started, then stopped: no watcher reports anything, only the tick's poll finds the changes (as a CLI call does).
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    ok(await h.call('daemon_stop', { agent_id: 'a' }));
    const first = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.equal(first.found_by_poll, 0);
    // A rename keeps the file's mtime (an hour before the previous poll).
    fs.renameSync(path.join(ws, 'src/cart.ts'), path.join(ws, 'src/basket.ts'));
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.moved, [{ from: 'src/cart.ts', to: 'src/basket.ts' }]);
    assert.equal(tick.processed, 2);
    assert.equal(tick.found_by_poll, 2, 'the old path gone and the new one taken in: no event reported either');
    const status = ok(await h.call('daemon_status', { agent_id: 'a' }));
    assert.equal(status.counters.found_by_poll, 2);
  });
});
