/** The daemon stays inside its watch paths: a tick's claim check raises nothing for claims citing only files elsewhere. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

describe('daemon watch paths bound its claim checks', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('checks on a tick only the claims citing a watched file', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-watch-scope-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const outside = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the server serves', evidence: ['go/server.go'] }] })).json.stored[0].id;
    const inside = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'add adds', evidence: ['src/math.ts'] }] })).json.stored[0].id;
    await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 60_000 });
    fs.appendFileSync(path.join(ws, 'go/server.go'), '\n// edited\n');
    fs.appendFileSync(path.join(ws, 'src/math.ts'), 'export const z = 1;\n');
    const tick = (await h.call('daemon_tick', { agent_id: 'a' })).json;
    assert.equal(tick.claims_checked, 1, JSON.stringify(tick));
    const stale = (await h.call('alerts_list', { agent_id: 'a' })).json.alerts.filter((x: any) => x.kind === 'claim_stale').map((x: any) => x.details.claim_id);
    assert.deepEqual(stale, [inside]);
    assert.ok(!stale.includes(outside));
  });
});
