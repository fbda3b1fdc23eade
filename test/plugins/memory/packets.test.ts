import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const TOTAL = 'function:src/cart.ts#total';

describe('north, delegate and debrief', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
  });
  after(() => h?.close());

  it('north answers needs_ingest on an empty graph, then a dated packet with sufficiency and unknowns', async () => {
    const empty = (await h.call('north', { agent_id: 'a', task: 'cart total' })).json;
    assert.equal(empty.trust.mode, 'needs_ingest');
    assert.equal(empty.next.verb, 'ingest');
    await h.call('ingest', { agent_id: 'a', path: ws });
    const none = (await h.call('north', { agent_id: 'a', task: 'cart total of prices' })).json;
    assert.equal(none.trust.mode, 'full_trust');
    assert.equal(none.sufficiency, 'insufficient');
    assert.ok(none.unknowns.includes(`nothing remembered about ${TOTAL}`));
    await h.call('memorize', { agent_id: 'b', claims: [{ text: 'the cart total of prices folds with add', evidence: [TOTAL] }] });
    await h.call('boot_memory', { agent_id: 'b', action: 'set', key: 'test_cmd', value: 'npm test' });
    const some = (await h.call('north', { agent_id: 'a', task: 'cart total of prices' })).json;
    assert.equal(some.focus[0].id, TOTAL);
    assert.equal(some.sufficiency, 'sufficient');
    assert.equal(some.memory[0].text, 'the cart total of prices folds with add');
    assert.match(some.memory[0].verified, /^\d{4}-\d\d-\d\d$/);
    assert.deepEqual(some.boot.map((b: any) => [b.key, b.value]), [['test_cmd', 'npm test']]);
    assert.ok(some.budget.used_tokens <= 1500);
  });

  it('delegate builds a packet with tests proving the editable file; debrief grades touched paths and memorizes findings', async () => {
    const p = (await h.call('delegate', { agent_id: 'a', task: 'make the cart total round to cents', scope: { seeds: [TOTAL, 'nope_missing'] } })).json;
    assert.match(p.delegation_id, /^d_/);
    assert.deepEqual(p.editable, ['src/cart.ts']);
    assert.deepEqual(p.prove, [{ path: 'src/cart.ts', tests: ['tests/cart.test.ts'] }]);
    assert.ok(p.dependents.some((d: any) => d.node === 'method:src/cart.ts#Cart.checkout'));
    assert.ok(p.unknowns.includes('seed "nope_missing" is not in the graph'));
    assert.ok(p.prompt_markdown.includes('Edit only: `src/cart.ts`'));
    assert.equal(p.recorded, true);

    const d = (
      await h.call('debrief', {
        agent_id: 'a',
        delegation_id: p.delegation_id,
        outcome: 'success',
        evidence: { cmd: 'npm test', exit_status: 0 },
        diff: '--- a/src/cart.ts\n+++ b/src/cart.ts\n@@\n--- a/src/math.ts\n+++ b/src/math.ts\n',
        findings: ['rounding belongs in total, not in add'],
      })
    ).json;
    assert.equal(d.status, 'verified');
    assert.deepEqual(d.score, { touched: 2, in_scope: 1, out_of_scope: 1, precision: 0.5, editable_touched: 1, editable: 1 });
    assert.deepEqual(d.out_of_scope, ['src/math.ts']);
    assert.equal(d.lessons.stored.length, 1);
    assert.equal(d.learned_nodes, 1);
    const unverified = (await h.call('debrief', { agent_id: 'a', delegation_id: p.delegation_id, outcome: 'success', touched_paths: ['src/cart.ts'] })).json;
    assert.equal(unverified.status, 'outcome_unverified');
    assert.equal((await h.call('debrief', { agent_id: 'z', delegation_id: p.delegation_id, outcome: 'success' })).json.error.code, 'M1ND_ERR_STATE_NOT_OWNER');
  });
});

describe('memory on a read-only server', function () {
  this.timeout(60000);
  it('refuses every write verb and still serves orient, north, soul and boot reads', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'a', path: ws });
    const claim = (await writer.call('memorize', { agent_id: 'a', claims: [{ text: 'the cart total folds with add', evidence: [TOTAL] }] })).json.stored[0];
    const mission = (await writer.call('mission_start', { agent_id: 'a', repo: 'r', task: 't' })).json.mission_id;
    await writer.close();
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      for (const [verb, args] of [
        ['memorize', { claims: [{ text: 'x', evidence: ['src/cart.ts'] }] }],
        ['promote', { brain: 'team', claim: claim.id, reason: 'r' }],
        ['boot_memory', { action: 'set', key: 'k', value: 1 }],
        ['boot_memory', { action: 'delete', key: 'k' }],
        ['mission_start', { repo: 'r', task: 't' }],
        ['mission_event', { mission_id: mission, event: 'view' }],
        ['mission_next', { mission_id: mission }],
        ['mission_verify', { mission_id: mission, claim: 'c' }],
        ['mission_handoff', { mission_id: mission }],
        ['mission_close', { mission_id: mission }],
        ['debrief', { delegation_id: 'd_x', outcome: 'success' }],
      ] as const) {
        const r = await ro.call(verb, { agent_id: 'a', ...args });
        assert.equal(r.json.error?.code, 'M1ND_ERR_GATE_READ_ONLY', verb);
      }
      const o = (await ro.call('orient', { agent_id: 'b', task: 'cart total' })).json;
      assert.equal(o.claims[0].id, claim.id);
      assert.equal((await ro.call('north', { agent_id: 'b', task: 'cart total' })).json.trust.read_only, true);
      assert.equal((await ro.call('boot_memory', { agent_id: 'b', action: 'list' })).result.isError, undefined);
      const d = (await ro.call('delegate', { agent_id: 'b', task: 'cart total' })).json;
      assert.equal(d.recorded, false);
    } finally {
      await ro.close();
    }
  });
});
