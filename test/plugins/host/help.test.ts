import assert from 'node:assert/strict';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { recorderPlugin } from '../../fixtures/plugins/recorder/index.ts';

describe('help', function () {
  let h: Harness;
  before(async () => {
    h = await connect({ plugins: [recorderPlugin().plugin] });
  });
  after(() => h.close());

  it('lists every registered verb by family, marking the ones this tier does not advertise', async () => {
    const { json } = await h.call('help', { agent_id: 'a' });
    assert.equal(json.mode, 'overview');
    const all = Object.values(json.families).flat() as { name: string; advertised: boolean }[];
    assert.equal(all.length, h.host.current.records().length);
    assert.equal(all.find((v) => v.name === 'rec_write')?.advertised, false);
    assert.equal(all.find((v) => v.name === 'help')?.advertised, true);
    assert.deepEqual(json.back_compat.find((b: { name: string }) => b.name === 'rec_secret_hidden'), { name: 'rec_secret_hidden', use_instead: 'rec_read' });
    assert.match(json.rendered, /rec_write\*/);
  });

  it('documents one verb from its registration, with tiers, parameters and a minimal call', async () => {
    const { json } = await h.call('help', { agent_id: 'a', tool_name: 'rec_prove', render: 'none' });
    assert.equal(json.found, true);
    assert.equal(json.family, 'recorder');
    assert.equal(json.effect, 'session');
    assert.deepEqual(json.advertised_in, ['full']);
    assert.equal(json.advertised_now, false);
    assert.deepEqual(json.minimal_call.arguments, { agent_id: 'my-agent', file_path: '…' });
    assert.deepEqual(json.parameters.map((p: { name: string }) => p.name), ['agent_id', 'file_path']);
    assert.equal(json.rendered, undefined, 'render none leaves the markdown out');
  });

  it('documents a hidden back-compat verb and says what to use instead', async () => {
    const { json } = await h.call('help', { agent_id: 'a', tool_name: 'rec_secret_hidden' });
    assert.deepEqual(json.advertised_in, []);
    assert.equal(json.use_instead, 'rec_read');
    assert.match(json.rendered, /prefer rec_read/);
  });

  it('suggests close names for a mistyped verb, hidden ones included', async () => {
    const { json } = await h.call('help', { agent_id: 'a', tool_name: 'rec_secret_hiden', max_suggestions: 2 });
    assert.equal(json.found, false);
    assert.equal(json.suggestions[0], 'rec_secret_hidden');
    assert.ok(json.suggestions.length <= 2);
  });

  it('routes an intent and stage to verbs, prefilling the path and ranking recent verbs last', async () => {
    const { json } = await h.call('help', { agent_id: 'a', intent: 'diagnose why the server misbehaves', stage: 'diagnose', path: 'src/a.ts', max_suggestions: 5 });
    assert.equal(json.mode, 'route');
    const verbs = json.suggestions.map((s: { verb: string }) => s.verb);
    assert.ok(verbs.includes('doctor'), verbs.join(','));
    const recent = await h.call('help', { agent_id: 'a', intent: 'diagnose', stage: 'diagnose', recent_tools: ['doctor'], max_suggestions: 20 });
    const order = recent.json.suggestions.map((s: { verb: string }) => s.verb);
    const fresh = (await h.call('help', { agent_id: 'a', intent: 'diagnose', stage: 'diagnose', max_suggestions: 20 })).json.suggestions.map((s: { verb: string }) => s.verb);
    assert.ok(fresh.indexOf('doctor') < fresh.length - 1, `without recent_tools doctor is not last: ${fresh.join(',')}`);
    assert.equal(order.at(-1), 'doctor', `a recently used verb goes last: ${order.join(',')}`);
    assert.deepEqual([...order].sort(), [...fresh].sort(), 'the same verbs, only reordered');
  });

  it('turns an error text into recovery steps by error code', async () => {
    const { json } = await h.call('help', { agent_id: 'a', error_text: 'M1ND_ERR_GATE_READ_ONLY: rec_write is refused' });
    assert.equal(json.mode, 'recovery');
    assert.equal(json.error_code, 'M1ND_ERR_GATE_READ_ONLY');
    assert.match(json.steps[0], /read-only/);
    assert.equal(json.verbs_named[0].verb, 'rec_write');
  });

  it('tells a caller refused for its identity what to do next', async () => {
    const { json } = await h.call('help', { agent_id: 'a', error_text: 'M1ND_ERR_AUTH_AGENT_MISMATCH: this MCP session is bound to agent "x"' });
    assert.equal(json.error_code, 'M1ND_ERR_AUTH_AGENT_MISMATCH');
    assert.match(json.steps[0], /new session/);
    const denied = (await h.call('help', { agent_id: 'a', error_text: 'M1ND_ERR_AUTH_AGENT_DENIED: this credential may not act as agent "y"' })).json;
    assert.match(denied.steps[0], /M1ND_HTTP_TOKENS/);
  });

  it('shows the workflows plugins contribute', async () => {
    const { json } = await h.call('help', { agent_id: 'a', mode: 'workflow', render: 'compact' });
    assert.ok(json.workflows.some((w: { name: string }) => w.name === 'first contact'));
    assert.match(json.rendered, /session_handshake/);
  });
});
