/**
 * The team store going away while the daemon runs: what a cycle finds meanwhile (a file deleted, a
 * claim turned stale) is raised once the store is back — by the background, without a call — and
 * the daemon's status says what waits and clears once it is written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { freshDatabase, ownsCluster, pgOrSkip, startTestPg, stopTestPg } from '../../helpers/pg.ts';
import { until } from '../../helpers/until.ts';

describe('daemon alerts while the team store is away', function () {
  this.timeout(120_000);
  let url: string;
  let h: Harness | undefined;
  before(async function () {
    if (!ownsCluster() && process.env.M1ND_TEST_PG_URL) this.skip(); // an external database is not ours to stop
    url = await freshDatabase(await pgOrSkip(this), 'outage');
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function serve(): Promise<{ ws: string; claim: string }> {
    const ws = writeFixtureRepo(tempDir('m1nd-alerts-outage-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url, M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'ann', path: ws });
    const claim = (await h.call('memorize', { agent_id: 'ann', claims: [{ text: 'the cart totals with add', evidence: ['src/cart.ts'] }] })).json.stored[0].id;
    return { ws, claim };
  }

  const alertsOf = async (agent: string) => (await h!.call('alerts_list', { agent_id: agent })).json.alerts as any[];

  it('raises in the background, once the store is back, what a background cycle found while it was down', async () => {
    const { ws, claim } = await serve();
    await h!.call('daemon_start', { agent_id: 'ann', watch_paths: [], poll_interval_ms: 100 });
    stopTestPg();
    try {
      fs.rmSync(path.join(ws, 'go/server.go'));
      fs.appendFileSync(path.join(ws, 'src/cart.ts'), 'export const y = 2;\n');
      // The background cycle runs while the store is away (100 ms after the events settle).
      await new Promise((r) => setTimeout(r, 2500));
      // The daemon's own state is local: its status answers, saying what waits for the store.
      const away = (await h!.call('daemon_status', { agent_id: 'ann' })).json;
      assert.equal(away.active, true, JSON.stringify(away));
      assert.match(away.alerts_error, /unreachable/);
      assert.match(away.last_error, /waiting for the alert store .*: \d+ alert\(s\) to raise, \d+ to resolve if open, the claims citing 2 file\(s\) to re-check/);
      assert.equal(away.alerts, undefined);
    } finally {
      startTestPg();
    }
    const found = await until(
      async () => {
        const r = await h!.call('alerts_list', { agent_id: 'ann' });
        const list = r.result.isError ? [] : (r.json.alerts as any[]);
        return list.some((a) => a.kind === 'file_deleted' && a.path === 'go/server.go') && list.some((a) => a.kind === 'claim_stale' && a.details?.claim_id === claim) && list;
      },
      30_000,
      'the alerts found during the outage',
    );
    assert.equal(found.filter((a: any) => a.path === 'go/server.go' && a.kind === 'file_deleted').length, 1);
    const status = await until(async () => {
      const s = (await h!.call('daemon_status', { agent_id: 'ann' })).json;
      return !s.last_error && s;
    }, 10_000, 'the error to clear');
    assert.equal(status.counters.deleted, 1);
    assert.equal(status.counters.failed, 0, 'writes retried are not failures');
    assert.ok(status.counters.alerts_raised >= 2, JSON.stringify(status));
  });

  it('raises at the next daemon_tick what a tick found while the store was down', async () => {
    const { ws } = await serve();
    stopTestPg();
    let down: any;
    try {
      fs.rmSync(path.join(ws, 'go/server.go'));
      down = await h!.call('daemon_tick', { agent_id: 'ann' });
    } finally {
      startTestPg();
    }
    assert.notEqual(down.result.isError, true, JSON.stringify(down.json));
    assert.deepEqual(down.json.deleted, ['go/server.go']);
    assert.match(down.json.errors.join('\n'), /waiting for the alert store .*: 1 alert\(s\) to raise/);
    const up = await until(async () => {
      const r = await h!.call('daemon_tick', { agent_id: 'ann' });
      return !r.result.isError && !r.json.errors && r.json;
    }, 30_000, 'a tick with the store back');
    // Written by that tick or by the background retry before it: once either way.
    assert.ok(up.alerts_raised.every((a: any) => a.kind === 'file_deleted' && a.subject === 'go/server.go'), JSON.stringify(up));
    assert.deepEqual((await alertsOf('ann')).map((a) => [a.kind, a.path]), [['file_deleted', 'go/server.go']]);
    const status = (await h!.call('daemon_status', { agent_id: 'ann' })).json;
    assert.deepEqual([status.counters.deleted, status.counters.alerts_raised, status.alerts.open, status.last_error], [1, 1, 1, undefined]);
  });
});
