/** alerts_list pages: every alert the filters select can be reached, in a stable order, with true counts. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

describe('alerts_list paging', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reaches every alert past the first page with offset, next_offset naming the next page', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-alerts-paging-'));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const files = (fs.readdirSync(ws, { recursive: true }) as string[]).filter((f) => /\.(ts|py|go|rs)$/.test(f));
    for (const f of files) fs.rmSync(path.join(ws, f));
    await h.call('daemon_tick', { agent_id: 'a', max_files: 100 });
    const whole = (await h.call('alerts_list', { agent_id: 'a', limit: 500 })).json;
    assert.ok(whole.total >= files.length && whole.total >= 5, JSON.stringify(whole.total));
    const seen: string[] = [];
    let offset: number | undefined = 0;
    for (let pages = 0; offset !== undefined && pages < 50; pages++) {
      const page: any = (await h.call('alerts_list', { agent_id: 'a', limit: 2, offset })).json;
      assert.equal(page.total, whole.total);
      assert.equal(page.truncated, page.next_offset !== undefined);
      seen.push(...page.alerts.map((x: any) => x.id));
      offset = page.next_offset;
    }
    assert.deepEqual(seen, whole.alerts.map((x: any) => x.id), 'the pages together are the whole list, in order');
    const past = (await h.call('alerts_list', { agent_id: 'a', offset: whole.total + 10 })).json;
    assert.deepEqual([past.alerts.length, past.total, past.truncated], [0, whole.total, false]);
    assert.equal((await h.call('alerts_list', { agent_id: 'a', offset: -1 })).result.isError, true);
  });
});
