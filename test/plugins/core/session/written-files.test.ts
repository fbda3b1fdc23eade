import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from '../analysis/analysis-fixture.ts';

describe('am_i_stale after the agent\'s own write', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture();
  });
  after(() => h.close());

  it('an agent that wrote a file is not told the symbols it saw there moved; another agent is', async () => {
    await h.call('impact', { agent_id: 'writer', node_id: 'function:src/c.ts#c', direction: 'reverse' });
    await h.call('impact', { agent_id: 'reader', node_id: 'function:src/c.ts#c', direction: 'reverse' });
    const file = path.join(h.workspace, 'src/c.ts');
    const applied = await h.call('apply', { agent_id: 'writer', file_path: 'src/c.ts', new_content: `// a new first line\n${fs.readFileSync(file, 'utf8')}` });
    assert.notEqual(applied.result.isError, true, JSON.stringify(applied.json).slice(0, 300));
    const mine = (await h.call('am_i_stale', { agent_id: 'writer' })).json;
    assert.equal(mine.stale_count, 0, JSON.stringify(mine.stale));
    assert.ok(mine.fresh.includes('src/c.ts'));
    const theirs = (await h.call('am_i_stale', { agent_id: 'reader' })).json;
    const c = theirs.stale.find((s: { path: string }) => s.path === 'src/c.ts');
    assert.equal(c.status, 'changed_since_seen');
    assert.deepEqual(c.symbols, [{ id: 'function:src/c.ts#c', status: 'moved', seen_lines: [2, 4], lines: [3, 5] }]);
  });
});
