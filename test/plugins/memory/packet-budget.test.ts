import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Found in the stop-66 sweep: with a tight token_budget the nodes took all of it, and orient and
// north dropped every claim, the agent's memory being what the packet is for.
describe('orient and north under a tight token_budget', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the cart total of prices folds the prices with add', evidence: ['function:src/cart.ts#total'] }] });
  });
  after(() => h?.close());

  for (const verb of ['orient', 'north']) {
    it(`${verb} keeps the best claim beside the best node, and every section within the budget`, async () => {
      const roomy = (await h.call(verb, { agent_id: 'a', task: 'cart total of prices', top_k: 20 })).json;
      const nodes = (roomy.nodes ?? roomy.focus) as unknown[];
      const claims = (roomy.claims ?? roomy.memory) as unknown[];
      assert.ok(nodes.length >= 3 && claims.length === 1, `a roomy packet: ${nodes.length} nodes, ${claims.length} claims`);
      const tight = (await h.call(verb, { agent_id: 'a', task: 'cart total of prices', top_k: 20, token_budget: roomy.budget.used_tokens - 40 })).json;
      const tightNodes = (tight.nodes ?? tight.focus) as { id: string }[];
      const tightClaims = (tight.claims ?? tight.memory) as { text: string }[];
      assert.equal(tightClaims.length, 1, 'the claim stays');
      assert.ok(tightNodes.length >= 1 && tightNodes.length < nodes.length, `nodes dropped instead: ${tightNodes.length} of ${nodes.length}`);
      assert.deepEqual(tightNodes.map((n) => n.id), (nodes as { id: string }[]).slice(0, tightNodes.length).map((n) => n.id), 'nodes kept in rank order');
      assert.ok(tight.budget.used_tokens <= tight.budget.requested_tokens);
      assert.ok(tight.budget.dropped > 0);
    });
  }
});
