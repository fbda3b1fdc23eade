import assert from 'node:assert/strict';
import { connect, type Harness } from '../../../helpers/mcp.ts';
import { ids, ingestedFixture } from './analysis-fixture.ts';

const rankOf = (results: { id: string }[], id: string) => ids(results).indexOf(id) + 1 || Infinity;

describe('learn and warmup change later rankings, and nothing else', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture();
  });
  after(() => h.close());

  it('team feedback (learn wrong, scope team) lowers that node\'s rank in every agent\'s next activate and says so', async () => {
    const before = (await h.call('activate', { agent_id: 'l', query: 'handle', top_k: 20 })).json;
    const top = before.results[0].id;
    const learned = (await h.call('learn', { agent_id: 'l', query: 'handle', feedback: 'wrong', node_ids: [top], scope: 'team' })).json;
    assert.equal(learned.nodes[0].id, top);
    assert.deepEqual(learned.nodes[0].bias, [0, -0.1]);
    assert.deepEqual(learned.nodes[0].association, [0, -0.2]);
    assert.equal(learned.nodes[0].rank[0], 1);
    assert.ok(learned.nodes[0].rank[1] > 1);
    assert.equal(learned.persisted.namespace, 'learned');
    const after = (await h.call('activate', { agent_id: 'other-agent', query: 'handle', top_k: 20 })).json;
    assert.ok(rankOf(after.results, top) > 1, `rank ${rankOf(after.results, top)}`);
    assert.match(after.results.find((r: { id: string }) => r.id === top).why, /learned ×0\.5/);
  });

  it('learn correct on several nodes strengthens the edges between them and raises their association', async () => {
    const { json } = await h.call('learn', {
      agent_id: 'l',
      query: 'chain',
      feedback: 'correct',
      node_ids: ['function:src/a.ts#a', 'function:src/b.ts#b', 'function:src/c.ts#c'],
      strength: 0.5,
      scope: 'team',
    });
    assert.equal(json.edges_strengthened, 2, 'a -calls-> b and b -calls-> c');
    for (const n of json.nodes) assert.deepEqual(n.association, [0, 0.5]);
    const unknown = await h.call('learn', { agent_id: 'l', query: 'chain', feedback: 'partial', node_ids: ['function:src/nowhere.ts#x'] });
    assert.equal(unknown.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
  });

  it('agent feedback (the default scope) re-ranks only the agent that gave it', async () => {
    const query = { query: 'validate', top_k: 20 };
    const base = (await h.call('activate', { agent_id: 'mine', ...query })).json;
    const top = base.results[0].id;
    const learned = (await h.call('learn', { agent_id: 'mine', query: 'validate', feedback: 'wrong', node_ids: [top], strength: 1 })).json;
    assert.equal(learned.scope, 'agent');
    assert.equal(learned.persisted.namespace, 'learned@mine');
    assert.ok(learned.nodes[0].rank[1] > 1, 'the giver\'s own rank dropped');
    const mine = (await h.call('activate', { agent_id: 'mine', ...query })).json;
    const theirs = (await h.call('activate', { agent_id: 'someone-else', ...query })).json;
    assert.ok(rankOf(mine.results, top) > 1, `own rank ${rankOf(mine.results, top)}`);
    assert.deepEqual(ids(theirs.results), ids(base.results), 'another agent ranks exactly as before');
    assert.doesNotMatch(theirs.results[0].why ?? '', /learned/);
  });

  it('persists what it learned: a new server on the same workspace ranks with it', async () => {
    const again = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const { json } = await again.call('activate', { agent_id: 'fresh', query: 'handle', top_k: 20 });
      const penalised = json.results.find((r: { why: string }) => /learned ×0\./.test(r.why));
      assert.ok(penalised && rankOf(json.results, penalised.id) > 1);
    } finally {
      await again.close();
    }
  });

  it('warmup changes the next activate ranking for that agent only', async () => {
    const query = { query: 'handle', top_k: 20 };
    const base = (await h.call('activate', { agent_id: 'w1', ...query })).json;
    const primed = (await h.call('warmup', { agent_id: 'w1', task_description: 'validate input', boost_strength: 0.6 })).json;
    assert.equal(primed.primed[0].id, 'function:src/validate.ts#validate');
    assert.equal(primed.primed[0].boost, 0.6);
    assert.ok(primed.primed.some((p: { id: string }) => p.id === 'function:src/handlers.ts#handleDelete'));
    const warmed = (await h.call('activate', { agent_id: 'w1', ...query })).json;
    const other = (await h.call('activate', { agent_id: 'w2', ...query })).json;
    assert.notDeepEqual(ids(warmed.results), ids(base.results), 'w1 ranking changed');
    assert.deepEqual(ids(other.results), ids(base.results), 'w2 ranking did not');
    const delW1 = warmed.results.find((r: { id: string }) => r.id === 'function:src/handlers.ts#handleDelete');
    assert.match(delW1.why, /boost \+0\.\d+/);
    assert.ok(rankOf(warmed.results, 'function:src/validate.ts#validate') < rankOf(base.results, 'function:src/validate.ts#validate'));
    const second = (await h.call('warmup', { agent_id: 'w1', task_description: 'shape area', boost_strength: 0.3 })).json;
    assert.equal(second.replaced_previous, primed.primed.length, 'a new warmup replaces the previous one');
  });
});

describe('learn on a read-only server', function () {
  this.timeout(60000);
  it('is refused before it writes, while activate still applies what was learned', async () => {
    const writer = await ingestedFixture();
    await writer.call('learn', { agent_id: 'w', query: 'handle', feedback: 'wrong', node_ids: ['function:src/handlers.ts#handleCreate'], scope: 'team' });
    await writer.close();
    const h = await connect({ workspaceRoot: writer.workspace, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      const refused = await h.call('learn', { agent_id: 'r', query: 'handle', feedback: 'correct', node_ids: ['function:src/handlers.ts#handleCreate'] });
      assert.equal(refused.result.isError, true);
      assert.equal(refused.json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      const { json } = await h.call('activate', { agent_id: 'r', query: 'handle' });
      assert.notEqual(json.results[0].id, 'function:src/handlers.ts#handleCreate');
      const drift = (await h.call('drift', { agent_id: 'r' })).json;
      assert.deepEqual(drift.weights.learned_nodes, [], 'nothing was learned in this session');
    } finally {
      await h.close();
    }
  });
});
