import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const TOTAL = 'function:src/cart.ts#total';

describe('the Markdown mirror moved into the repository', function () {
  this.timeout(60000);
  it('is ingested as doc nodes with documents edges to the claim evidence, so impact finds memory next to code', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, config: { options: { memory: { folder: 'docs/memory' } }, plugins: {} } as never, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const stored = (await h.call('memorize', { agent_id: 'a', title: 'Totals', claims: [{ text: 'prices are summed from zero', evidence: [TOTAL] }] })).json;
      assert.deepEqual(stored.markdown, [`docs/memory/${stored.stored[0].id}.md`]);
      await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
      const impact = (await h.call('impact', { agent_id: 'a', node_id: TOTAL, detail: 'full' })).json;
      const text = JSON.stringify(impact);
      const hit = impact.direct.find((d: any) => JSON.stringify(d).includes(`docs/memory/${stored.stored[0].id}.md`));
      assert.ok(hit, text.slice(0, 1500));
      assert.deepEqual([hit.id, hit.relation], [`section:docs/memory/${stored.stored[0].id}.md#Totals.Evidence`, 'documents']);
    } finally {
      await h.close();
    }
  });
});
