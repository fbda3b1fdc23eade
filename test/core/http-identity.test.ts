import assert from 'node:assert/strict';
import { startHost, type Host } from '../../core/index.ts';
import { serveHttp, type HttpOptions, type HttpServerHandle } from '../../core/http.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';
import { fixtureHost, openSession, type HttpSession } from '../helpers/http-session.ts';

const ids = (results: { id: string }[]) => results.map((r) => r.id);

describe('identity bound to the HTTP session (two SDK sessions, one server)', function () {
  this.timeout(60000);
  let host: Host;
  let served: HttpServerHandle;
  let alice: HttpSession;
  let bob: HttpSession;

  before(async () => {
    host = await fixtureHost();
    served = await serveHttp(host, { port: 0 });
    alice = await openSession(served.url);
    bob = await openSession(served.url);
    // First use pins each session to its agent.
    assert.equal((await alice.call('health', { agent_id: 'alice' })).error, undefined);
    assert.equal((await bob.call('health', { agent_id: 'bob' })).error, undefined);
  });
  after(async () => {
    await alice?.close();
    await bob?.close();
    await served?.close();
    await host?.close();
  });

  it('refuses a later call that claims another agent id, naming the bound one', async () => {
    const refused = await bob.call('health', { agent_id: 'alice' });
    assert.equal(refused.error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    assert.match(refused.error.hint, /"bob"/);
    assert.equal((await bob.call('health', { agent_id: 'bob' })).error, undefined, 'its own id still works');
  });

  it("keeps alice's lock hers: bob can neither claim to be alice nor diff or release it as himself", async () => {
    const lock = await alice.call('lock_create', { agent_id: 'alice', scope: 'node', root_nodes: ['function:src/b.ts#b'] });
    assert.ok(lock.lock_id, JSON.stringify(lock));
    for (const verb of ['lock_diff', 'lock_release']) {
      assert.equal((await bob.call(verb, { agent_id: 'alice', lock_id: lock.lock_id })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH', verb);
      assert.equal((await bob.call(verb, { agent_id: 'bob', lock_id: lock.lock_id })).error.code, 'M1ND_ERR_STATE_NOT_OWNER', verb);
    }
    assert.equal((await alice.call('lock_diff', { agent_id: 'alice', lock_id: lock.lock_id })).error, undefined, 'still alive for its owner');
    assert.equal((await alice.call('lock_release', { agent_id: 'alice', lock_id: lock.lock_id })).error, undefined);
  });

  it("keeps alice's perspective hers: bob can neither read nor close it", async () => {
    const p = await alice.call('perspective_start', { agent_id: 'alice', query: 'validate' });
    assert.ok(p.perspective_id, JSON.stringify(p));
    assert.equal((await bob.call('perspective_routes', { agent_id: 'alice', perspective_id: p.perspective_id })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    assert.equal((await bob.call('perspective_close', { agent_id: 'alice', perspective_id: p.perspective_id })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    const asBob = await bob.call('perspective_routes', { agent_id: 'bob', perspective_id: p.perspective_id });
    assert.ok(['M1ND_ERR_STATE_NOT_OWNER', 'M1ND_ERR_STATE_NOT_FOUND'].includes(asBob.error?.code), JSON.stringify(asBob));
    assert.equal((await alice.call('perspective_routes', { agent_id: 'alice', perspective_id: p.perspective_id })).error, undefined);
  });

  it("hides alice's private trail from bob, and shares her team trail", async () => {
    const base = { hypotheses: ['b calls c'], visited_nodes: ['function:src/b.ts#b'] };
    const secret = await alice.call('trail_save', { agent_id: 'alice', label: 'secret', visibility: 'private', ...base });
    const shared = await alice.call('trail_save', { agent_id: 'alice', label: 'shared', ...base });
    const listed = (await bob.call('trail_list', { agent_id: 'bob' })).trails.map((t: { trail_id: string }) => t.trail_id);
    assert.ok(listed.includes(shared.trail_id) && !listed.includes(secret.trail_id), listed.join(','));
    assert.equal((await bob.call('trail_resume', { agent_id: 'bob', trail_id: secret.trail_id })).error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.equal((await bob.call('trail_resume', { agent_id: 'alice', trail_id: secret.trail_id })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    assert.equal((await alice.call('trail_resume', { agent_id: 'alice', trail_id: secret.trail_id })).error, undefined);
    const mine = (await alice.call('trail_list', { agent_id: 'alice' })).trails.map((t: { trail_id: string }) => t.trail_id);
    assert.ok(mine.includes(secret.trail_id));
  });

  it("keeps alice's visits hers: bob's coverage counts only what bob was shown", async () => {
    assert.equal((await alice.call('view', { agent_id: 'alice', file_path: 'src/shapes.ts' })).error, undefined);
    assert.equal((await bob.call('coverage_session', { agent_id: 'alice' })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    const hers = await alice.call('coverage_session', { agent_id: 'alice' });
    const his = await bob.call('coverage_session', { agent_id: 'bob' });
    assert.ok(hers.files.visited >= 1, JSON.stringify(hers.files));
    assert.equal(his.files.visited, 0, JSON.stringify(his.files));
  });

  it("does not let bob's learn calls push alice's top result out of her top 5", async () => {
    const query = { query: 'handle', top_k: 10 };
    const before = (await alice.call('activate', { agent_id: 'alice', ...query })).results;
    const top = before[0].id;
    for (let i = 0; i < 5; i++) {
      const r = await bob.call('learn', { agent_id: 'bob', query: 'handle', feedback: 'wrong', node_ids: [top], strength: 1 });
      assert.equal(r.error, undefined, JSON.stringify(r));
    }
    assert.equal((await bob.call('learn', { agent_id: 'alice', query: 'handle', feedback: 'wrong', node_ids: [top] })).error.code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    const after = (await alice.call('activate', { agent_id: 'alice', ...query })).results;
    assert.deepEqual(ids(after), ids(before), "alice's ranking is untouched");
    const bobs = (await bob.call('activate', { agent_id: 'bob', ...query })).results;
    assert.ok(!ids(bobs).slice(0, 5).includes(top), "bob's own feedback did re-rank bob's results");
  });
});

describe('--allow-agent-switch on a loopback server', function () {
  this.timeout(30000);
  let host: Host;
  let served: HttpServerHandle;
  before(async () => {
    host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger() });
    served = await serveHttp(host, { port: 0, allowAgentSwitch: true });
  });
  after(async () => {
    await served.close();
    await host.close();
  });

  it('lets one session act as several agents', async () => {
    const s = await openSession(served.url);
    try {
      assert.equal((await s.call('health', { agent_id: 'one' })).error, undefined);
      assert.equal((await s.call('health', { agent_id: 'two' })).error, undefined);
    } finally {
      await s.close();
    }
  });

  it('is refused on a non-loopback address', async () => {
    await assert.rejects(serveHttp(host, { port: 0, host: '0.0.0.0', token: 'x'.repeat(32), allowAgentSwitch: true } as HttpOptions), /loopback/);
  });
});
