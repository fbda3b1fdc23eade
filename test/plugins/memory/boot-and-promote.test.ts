import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeBackends } from '../../helpers/backends.ts';

const TOTAL = 'function:src/cart.ts#total';

describeBackends('boot_memory and promote', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('sets, gets, lists and deletes boot facts per tier, and survives a new server', async () => {
    assert.equal((await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'test_cmd', value: 'npm test' })).json.scope, 'project');
    await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'style', value: { quotes: 'single' }, tier: 'medulla' });
    assert.deepEqual((await h.call('boot_memory', { agent_id: 'b', action: 'get', key: 'test_cmd' })).json.entries.map((e: any) => [e.value, e.set_by]), [['npm test', 'a']]);
    assert.deepEqual((await h.call('boot_memory', { agent_id: 'b', action: 'list', tier: 'medulla' })).json.entries.map((e: any) => e.key), ['style']);
    assert.equal((await h.call('boot_memory', { agent_id: 'b', action: 'list' })).json.entries.length, 2);
    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      assert.equal((await second.call('boot_memory', { agent_id: 'c', action: 'get', key: 'test_cmd' })).json.entries[0].value, 'npm test');
    } finally {
      await second.close();
    }
    assert.equal((await h.call('boot_memory', { agent_id: 'a', action: 'delete', key: 'test_cmd' })).json.deleted, true);
    assert.equal((await h.call('boot_memory', { agent_id: 'a', action: 'get', key: 'test_cmd' })).json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.equal((await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'big', value: 'word '.repeat(800) })).json.error.code, 'M1ND_ERR_MEMORY_CLAIM_TOO_LARGE');
  });

  it('promotes a fresh project claim with origin stamps, and refuses stale and unanchored ones', async () => {
    const fresh = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'mul multiplies by repeated add', evidence: ['function:src/math.ts#mul'] }] })).json.stored[0];
    const p = (await h.call('promote', { agent_id: 'b', brain: 'medulla', claim: fresh.id, reason: 'true everywhere' })).json;
    assert.equal(p.scope, 'team');
    assert.deepEqual([p.origin.claim_id, p.origin.agent_id, p.origin.promoted_by, p.origin.reason, p.origin.workspace], [fresh.id, 'a', 'b', 'true everywhere', ws]);
    assert.ok(fs.existsSync(path.join(ws, '.m1nd/memory', `${p.promoted}.md`)));
    assert.equal((await h.call('promote', { agent_id: 'b', brain: 'team', claim: fresh.id, reason: 'again' })).json.promoted, p.promoted, 'idempotent');

    const bare = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'we never ship on fridays' }] })).json.stored[0];
    assert.equal((await h.call('promote', { agent_id: 'a', brain: 'team', claim: bare.id, reason: 'x' })).json.error.code, 'M1ND_ERR_MEMORY_UNVERIFIED');

    const soon = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'retry backs off to at most thirty seconds', evidence: ['py/retry.py:5-7'] }] })).json.stored[0];
    const f = path.join(ws, 'py/retry.py');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('min(30,', 'min(60,'));
    const stale = (await h.call('promote', { agent_id: 'a', brain: 'team', claim: soon.id, reason: 'x' })).json;
    assert.equal(stale.error.code, 'M1ND_ERR_STATE_STALE');
    assert.equal(stale.error.data?.changed?.[0]?.evidence ?? 'py/retry.py:5-7', 'py/retry.py:5-7');
  });
});
