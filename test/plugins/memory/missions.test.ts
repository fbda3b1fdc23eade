import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeBackends } from '../../helpers/backends.ts';

describeBackends('missions persisted in the workspace store', function () {
  this.timeout(90000);

  it('runs start → events → verify (graph-only refused) → handoff → resumed by a new server → close, memorizing the verified claim', async () => {
    const ws = writeFixtureRepo(tempDir());
    const first = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    let missionId: string;
    try {
      await first.call('ingest', { agent_id: 'a', path: ws });
      const start = (await first.call('mission_start', { agent_id: 'a', repo: 'fixture', task: 'why can a cart total be wrong', mode: 'bug_hunt' })).json;
      missionId = start.mission_id;
      assert.match(missionId, /^m_/);
      assert.deepEqual(start.next.verb, 'seek');
      assert.ok(start.non_claims.length > 0);
      assert.equal(start.budget.calls.limit, 30);

      const g = (await first.call('mission_event', { agent_id: 'a', mission_id: missionId, event: { action: 'seek', refs: ['function:src/cart.ts#total'] } })).json;
      assert.deepEqual([g.event, g.evidence_class, g.refs], ['e1', 'graph_only', ['src/cart.ts']]);
      const d = (await first.call('mission_event', { agent_id: 'a', mission_id: missionId, event: { action: 'view', path: 'src/math.ts' }, outcome: 'success' })).json;
      assert.deepEqual([d.event, d.evidence_class], ['e2', 'direct']);
      const t = (await first.call('mission_event', { agent_id: 'a', mission_id: missionId, event: { cmd: 'npm test', exit_status: 0, refs: ['tests/cart.test.ts'] } })).json;
      assert.equal(t.evidence_class, 'direct');

      const graphOnly = (await first.call('mission_verify', { agent_id: 'a', mission_id: missionId, claim: 'total starts from zero', evidence_refs: ['function:src/cart.ts#total'] })).json;
      assert.equal(graphOnly.verified, false);
      assert.deepEqual(graphOnly.graph_refs, ['src/cart.ts']);
      const next = (await first.call('mission_next', { agent_id: 'a', mission_id: missionId })).json.next;
      assert.deepEqual([next.verb, next.arguments.file_path], ['view', 'src/cart.ts'], 'the next move reads the graph-only evidence');

      const direct = (await first.call('mission_verify', { agent_id: 'a', mission_id: missionId, claim: 'add returns a + b without rounding', evidence_refs: ['function:src/math.ts#add'] })).json;
      assert.equal(direct.verified, true);
      assert.deepEqual(direct.direct_refs, ['src/math.ts']);

      const hand = (await first.call('mission_handoff', { agent_id: 'a', mission_id: missionId, recipient_agent_id: 'b', summary: 'math checked' })).json;
      assert.deepEqual(hand.claims, [{ text: 'add returns a + b without rounding', evidence: ['src/math.ts'] }]);
      assert.deepEqual(hand.hypotheses.map((h: any) => h.text), ['total starts from zero']);
      assert.deepEqual(hand.resume, { verb: 'mission_next', arguments: { agent_id: 'b', mission_id: missionId } });
    } finally {
      await first.close();
    }

    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      assert.equal((await second.call('mission_next', { agent_id: 'c', mission_id: missionId })).json.error.code, 'M1ND_ERR_STATE_NOT_OWNER');
      const resumed = (await second.call('mission_next', { agent_id: 'b', mission_id: missionId })).json;
      assert.equal(resumed.next.arguments.file_path, 'src/cart.ts', 'the new server resumes from the stored state');
      const close = (await second.call('mission_close', { agent_id: 'b', mission_id: missionId, write_light_memory: true, gaps: ['cart.ts not read'] })).json;
      assert.equal(close.status, 'closed');
      assert.deepEqual(close.proof.map((p: any) => [p.claim, p.direct_evidence]), [['add returns a + b without rounding', ['src/math.ts']]]);
      assert.deepEqual(close.hypotheses, ['total starts from zero']);
      assert.equal(close.memorized.stored.length, 1);
      assert.deepEqual(close.events, { total: 3, direct: 2, graph_only: 1 });
      const o = (await second.call('orient', { agent_id: 'd', task: 'add numbers in math' })).json;
      const claim = o.claims.find((c: any) => c.text === 'add returns a + b without rounding');
      assert.deepEqual([claim.author, claim.freshness, claim.evidence], ['b', 'fresh', ['src/math.ts']]);
      assert.equal((await second.call('mission_event', { agent_id: 'b', mission_id: missionId, event: 'view' })).json.error.code, 'M1ND_ERR_MISSION_CLOSED');
    } finally {
      await second.close();
    }
  });

  it('enforces and reports the budget: events are refused once calls are spent, close still works', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const { mission_id } = (await h.call('mission_start', { agent_id: 'a', repo: 'r', task: 't', budget: { calls: 3 } })).json;
      assert.equal((await h.call('mission_event', { agent_id: 'a', mission_id, event: 'seek' })).json.budget.calls.left, 1);
      const last = (await h.call('mission_event', { agent_id: 'a', mission_id, event: 'view' })).json;
      assert.deepEqual([last.budget.calls.left, last.budget.exhausted], [0, 'calls']);
      const refused = (await h.call('mission_event', { agent_id: 'a', mission_id, event: 'view' })).json;
      assert.equal(refused.error.code, 'M1ND_ERR_MISSION_BUDGET');
      assert.equal((await h.call('mission_next', { agent_id: 'a', mission_id })).json.next.verb, 'mission_close');
      const closed = (await h.call('mission_close', { agent_id: 'a', mission_id })).json;
      assert.equal(closed.status, 'closed');
      assert.ok(closed.budget.tokens.used > 0, 'answers count against the token budget');
    } finally {
      await h.close();
    }
  });
});
