/** A stale claim replaced by a new one: its alert is resolved (the claim is no longer anyone's word). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

describe('daemon: the stale alert of a superseded claim', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('resolves it once the claim is superseded', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-claim-superseded-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const old = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'add returns the sum', evidence: ['src/math.ts'] }] })).json.stored[0].id;
    fs.appendFileSync(path.join(ws, 'src/math.ts'), 'export const z = 1;\n');
    const raised = (await h.call('daemon_tick', { agent_id: 'a' })).json.alerts_raised.find((x: any) => x.kind === 'claim_stale');
    assert.ok(raised);
    const replaced = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'math exports z, a constant one, beside its adder', evidence: ['src/math.ts'], supersedes: old }] });
    assert.notEqual(replaced.result.isError, true, JSON.stringify(replaced.json));
    const tick = (await h.call('daemon_tick', { agent_id: 'a' })).json;
    assert.equal(tick.alerts_resolved, 1, JSON.stringify(tick));
    const alert = (await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).json.alerts.find((x: any) => x.id === raised.id);
    assert.equal(alert.status, 'resolved');
    assert.match(alert.resolution, /superseded/);
  });
});
