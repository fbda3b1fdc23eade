/** m1nd://team/{namespace}: keys and versions of team state (never values), and updates to subscribers — on both backends. */
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeBackends } from '../../helpers/backends.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

describeBackends('the team-state resource', function () {
  this.timeout(120_000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('lists a claim by key and version without its text, and tells subscribers when the namespace changes', async () => {
    const updated: string[] = [];
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await h.client.subscribeResource({ uri: 'm1nd://team/memory.claims' });
    const stored = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'mul is repeated addition, keep it so', evidence: ['function:src/math.ts#mul'] }] })).json.stored[0];
    for (let i = 0; i < 40 && !updated.includes('m1nd://team/memory.claims'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(updated.includes('m1nd://team/memory.claims'));
    const read = await h.client.readResource({ uri: 'm1nd://team/memory.claims' });
    const text = (read.contents[0] as { text: string }).text;
    const body = JSON.parse(text);
    assert.deepEqual(body.rows.map((r: any) => r.key), [stored.id]);
    assert.ok(body.rows[0].version > 0);
    assert.ok(!text.includes('repeated addition'), 'values are not exposed');
    await assert.rejects(h.client.readResource({ uri: 'm1nd://team/not-a-namespace' }));
  });
});
