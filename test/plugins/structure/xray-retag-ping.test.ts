import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const MODULES = 300;

/** Python modules of 10 functions each under pkg/ (3,300 nodes there with their files). */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < MODULES; i++) {
    const lines: string[] = [];
    for (let f = 0; f < 10; f++) lines.push(`def f_${i}_${f}(x):`, `    return x + ${f}`, '');
    out[`pkg/p${i % 10}/mod_${i}.py`] = lines.join('\n');
  }
  return out;
}

describe('xray_retag committing thousands of tags, beside a pinging client', function () {
  this.timeout(180_000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), files());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  // One autocommit per node held the loop ~260 ms for 1,000 nodes of m1nd's own graph (and ~0.7 s
  // for the 3,300 here); written 500 a transaction between yields, each slice is a few ms.
  it('tags every node under a folder without holding the event loop over 50 ms, all of them', async () => {
    const selector = { path_prefix: 'pkg' };
    const dry = (await h.call('xray_retag', { agent_id: 'a', selector, op: 'add', tags: ['reviewed'] })).json;
    assert.ok(dry.changed >= MODULES * 11, JSON.stringify(dry).slice(0, 300));
    const { result, held, gc } = await pingDuringGc(h, () => h.call('xray_retag', { agent_id: 'a', selector, op: 'add', tags: ['reviewed'], mode: 'commit', expect_version: dry.tags_version }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 300));
    assert.equal(result.json.changed, dry.changed);
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(held));
    const again = (await h.call('xray_retag', { agent_id: 'a', selector, op: 'add', tags: ['reviewed'] })).json;
    assert.deepEqual([again.matched, again.changed], [dry.matched, 0], 'every node carries the tag');
  });
});
