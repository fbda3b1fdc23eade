/** alerts_ack: what it answers is what happened — each id once, acknowledged or unknown. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

describe('alerts_ack', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers an id given twice once, and counts it once in the acknowledgements', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-alerts-ack-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    fs.rmSync(path.join(ws, 'go/server.go'));
    const id = (await h.call('daemon_tick', { agent_id: 'a' })).json.alerts_raised[0].id;
    const r = (await h.call('alerts_ack', { agent_id: 'a', alert_ids: [id, id, 'al_0000000000000000', 'al_0000000000000000'] })).json;
    assert.deepEqual(r.acked, [id]);
    assert.deepEqual(r.unknown, ['al_0000000000000000']);
    const listed = (await h.call('alerts_list', { agent_id: 'a', include_acked: true })).json.alerts.find((x: any) => x.id === id);
    assert.deepEqual(listed.acked_by, ['a']);
  });
});
