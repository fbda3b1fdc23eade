/**
 * daemon_start: a watch path that would never be watched is refused. Called again on a running
 * daemon with the same watch paths and interval it changes nothing (the watcher, its queue, who
 * started it and when); re-targeted, the events already queued under the new paths are kept — a
 * deletion queued before the call is still raised, without a tick.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';

describe('daemon_start', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const [label, again] of [
    ['started again with the same arguments', ['src']],
    ['re-targeted', ['src', 'docs']],
  ] as const) {
    it(`keeps a deletion already queued when ${label}, and raises it in the background`, async () => {
      const ws = writeFixtureRepo(tempDir('m1nd-daemon-start-'));
      fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
      h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
      await h.call('ingest', { agent_id: 'a', path: ws });
      const first = (await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 2000 })).json;
      const before = (await h.call('daemon_status', { agent_id: 'a' })).json;
      fs.rmSync(path.join(ws, 'src/cart.ts'));
      await until(async () => (await h!.call('daemon_status', { agent_id: 'a' })).json.queue === 1, 10_000, 'the event queued');

      const second = (await h.call('daemon_start', { agent_id: 'b', watch_paths: [...again], poll_interval_ms: 2000 })).json;
      assert.deepEqual(second.watch_paths, [...again].sort());
      const status = (await h.call('daemon_status', { agent_id: 'a' })).json;
      assert.equal(status.queue, 1, 'the queued deletion is kept');
      if (again.length === 1) {
        assert.equal(second.started_by, first.started_by, 'nothing changed: started by whoever started it');
        assert.equal(status.started_at, before.started_at);
      } else {
        assert.equal(second.started_by, 'b');
      }
      const raised = await until(async () => (await h!.call('alerts_list', { agent_id: 'a' })).json.alerts.find((x: any) => x.kind === 'file_deleted'), 15_000, 'the background cycle');
      assert.equal(raised.path, 'src/cart.ts');
    });
  }

  it('refuses a watch path that is never watched (hidden, on the skip list, or ignored by .gitignore) before anything persists', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-daemon-start-'));
    fs.writeFileSync(path.join(ws, '.gitignore'), 'generated/\n');
    for (const d of ['generated', 'node_modules/pkg', '.cache']) fs.mkdirSync(path.join(ws, d), { recursive: true });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    for (const p of ['generated', 'node_modules/pkg', '.cache']) {
      const r = await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src', p] });
      assert.equal(r.result.isError, true, `${p}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
      assert.match(r.json.error.message, new RegExp(`watch path ${p.replace('.', '\\.')} is never watched`));
    }
    const status = (await h.call('daemon_status', { agent_id: 'a' })).json;
    assert.deepEqual([status.active, status.watching], [false, false]);
  });
});
