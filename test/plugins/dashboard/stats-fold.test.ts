import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { CallStats, STATS_LIMITS } from '../../../plugins/dashboard/stats.ts';

describe('dashboard CallStats (calls recorded in a ring, folded on read)', () => {
  it('counts every call, refusal and error across several folds of the ring', () => {
    const stats = new CallStats();
    const t0 = Date.now();
    // 1,000 calls: more than the ring holds, so some fold when it fills and the rest on read.
    for (let i = 0; i < 1000; i++) {
      const outcome = i % 10 === 3 ? 1 : i % 10 === 7 ? 2 : 0;
      stats.add(i % 2 ? 'a' : 'b', i % 4 < 2 ? 'seek' : 'impact', i % 5, outcome, t0 + i, 10, undefined, undefined, outcome === 2 ? { code: 'E', message: `boom ${i}` } : undefined);
    }
    const view = stats.agentsView();
    const total = view.reduce((n, a) => n + a.calls, 0);
    assert.equal(total, 1000);
    const a = view.find((x) => x.agent_id === 'a')!;
    const b = view.find((x) => x.agent_id === 'b')!;
    assert.equal(a.calls, 500);
    assert.equal(a.refusals + b.refusals, 100);
    assert.equal(a.errors + b.errors, 100);
    assert.equal(a.tokens_returned + b.tokens_returned, 10_000);
    assert.equal(a.by_verb.reduce((n, v) => n + v.calls, 0), 500);
    assert.equal(view[0].agent_id, 'a', 'most recently active first (call 999 was a)');
    assert.equal(a.last_calls.length, STATS_LIMITS.lastCalls);
    assert.equal(a.last_calls[0].at, new Date(t0 + 999).toISOString(), 'newest first, at the time recorded');
    assert.equal(a.p99_ms, 4);
    const errors = stats.recentErrors(3);
    assert.deepEqual(errors.map((e) => e.message), ['boom 997', 'boom 987', 'boom 977']);
  });

  it('records connections and counts the tokens of results handed over as text, later', async () => {
    const stats = new CallStats();
    stats.record({ agentId: 'x', verb: 'seek', ms: 1, outcome: 'ok', text: '{"hello":"world"}', countLater: true, connectionId: 'c1' });
    stats.record({ agentId: 'x', verb: 'seek', ms: 1, outcome: 'ok', text: '{"ignored":true}', countLater: false, connectionId: 'c1' });
    assert.deepEqual(stats.connectionsView().map((c) => [c.id, c.calls]), [['c1', 2]]);
    await stats.settled();
    const [x] = stats.agentsView();
    assert.equal(x.calls, 2);
    assert.ok(x.tokens_returned > 0, 'the text passed for counting was counted');
    assert.equal(x.last_calls[0].tokens, null, 'a text not passed for counting stays uncounted');
    assert.equal(x.last_calls[1].tokens, x.tokens_returned);
  });
});
