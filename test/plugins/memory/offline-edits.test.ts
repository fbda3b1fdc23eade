import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const TOTAL = 'function:src/cart.ts#total';
const TASK = 'change how the cart total adds prices';

/**
 * A file edited while no server ran: the stored graph still places its symbols at the old lines
 * until something re-ingests it. Claims anchored to a symbol of that file must be checked (and new
 * ones anchored) at the symbol's lines now, not at the lines the graph last recorded.
 */
describe('memory anchors in files edited while no server ran', function () {
  this.timeout(60000);

  it('a claim on an unchanged function stays fresh when lines are inserted above it; an edit of its body is stale at its new lines', async () => {
    const ws = writeFixtureRepo(tempDir());
    const first = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    let id: string;
    try {
      await first.call('ingest', { agent_id: 'a', path: ws });
      id = (await first.call('memorize', { agent_id: 'a', claims: [{ text: 'total() starts the sum at 0', evidence: [TOTAL] }] })).json.stored[0].id;
    } finally {
      await first.close();
    }

    // Offline: two lines above total() (lines 4-6 become 6-8); its own text is unchanged.
    const file = path.join(ws, 'src/cart.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("import { add } from './math.ts';\n", "import { add } from './math.ts';\n// prices are in cents\n// (never floats)\n"));

    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      // A new claim on the same function is anchored at its lines now (6-8), not at the recorded 4-6.
      const again = (await second.call('memorize', { agent_id: 'b', claims: [{ text: 'total() reduces the prices with add()', evidence: ['total'] }] })).json.stored[0].id;
      const claims = (await second.call('orient', { agent_id: 'b', task: TASK })).json.claims;
      for (const c of [id, again]) {
        const claim = claims.find((x: { id: string }) => x.id === c);
        assert.equal(claim.freshness, 'fresh', JSON.stringify(claim));
      }
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('add(sum, p), 0)', 'add(sum, p), 1)'));
    } finally {
      await second.close();
    }

    const third = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const claims = (await third.call('orient', { agent_id: 'b', task: TASK })).json.claims;
      const old = claims.find((c: { id: string }) => c.id === id);
      assert.equal(old.freshness, 'stale');
      assert.deepEqual(old.changed, [{ evidence: TOTAL, what: 'content_changed', lines_was: [4, 6], lines_now: [6, 8] }]);
      for (const c of claims.filter((x: { evidence: string[] }) => x.evidence.includes(TOTAL))) assert.equal(c.freshness, 'stale', JSON.stringify(c));
    } finally {
      await third.close();
    }
  });
});
