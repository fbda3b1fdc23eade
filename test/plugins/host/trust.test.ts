import assert from 'node:assert/strict';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { definePlugin } from '../../../core/index.ts';

const REQUIRED = ['health', 'trust_selftest', 'recovery_playbook', 'doctor', 'ingest', 'seek', 'help'];

describe('health', function () {
  let h: Harness;
  before(async () => {
    h = await connect();
  });
  after(() => h.close());

  it('reports status, gates, live counts and the tool-surface contract', async () => {
    await h.call('health', { agent_id: 'agent-1' });
    const { json } = await h.call('health', { agent_id: 'agent-2' });
    assert.equal(json.server.name, 'm1nd');
    assert.equal(json.read_only, false);
    assert.equal(json.proof_gate, false);
    assert.equal(json.sessions.agents, 2);
    const c = json.tool_surface_contract;
    assert.equal(c.minimum_safe_tool_count, 8);
    assert.deepEqual(c.required_agent_trust_tools, REQUIRED);
    assert.deepEqual(c.required_host_visible_tools, [...REQUIRED, 'session_handshake']);
    assert.equal(c.full_registry_tool_count, h.host.current.records().length);
  });

  it('says plainly when no graph engine is loaded', async () => {
    const bare = await connect({ config: { bundles: ['default'], plugins: { disable: ['graph', 'core'] } } });
    try {
      const { json } = await bare.call('health', { agent_id: 'a' });
      assert.equal(json.graph.engine, false);
      assert.match(json.graph.note, /no graph engine/);
      const doctor = (await bare.call('doctor', { agent_id: 'a' })).json;
      assert.match(doctor.findings.find((f: { check: string }) => f.check === 'graph').fix, /graph service/);
    } finally {
      await bare.close();
    }
  });

  it('reports the graph when the engine is loaded, and points an empty one at ingest', async () => {
    const { json } = await h.call('health', { agent_id: 'a' });
    assert.equal(json.graph.engine, true);
    assert.equal(json.graph.node_count, 0);
    const hs = (await h.call('session_handshake', { agent_id: 'a', available_tools: [...REQUIRED, 'session_handshake'] })).json;
    assert.equal(hs.trust_mode, 'needs_ingest');
    assert.equal(hs.next_action.verb, 'ingest');
  });

  it('lists a quarantined plugin with its code and check, and reports degraded', async () => {
    const broken = definePlugin({ name: 'broken', version: '1.0.0', requires: ['nothing-provides-this'], apply() {} });
    const h2 = await connect({ plugins: [broken] });
    try {
      const { json } = await h2.call('health', { agent_id: 'a' });
      assert.equal(json.status, 'degraded');
      assert.equal(json.quarantined[0].plugin, 'broken');
      assert.equal(json.quarantined[0].code, 'M1ND_ERR_PLUGIN_DEPENDENCY');
      assert.equal(json.quarantined[0].check, 'dependencies');
    } finally {
      await h2.close();
    }
  });
});

describe('session_handshake', function () {
  let h: Harness;
  before(async () => {
    h = await connect();
  });
  after(() => h.close());

  it('is unverified, never ok, when the host reports no tools', async () => {
    const { json } = await h.call('session_handshake', { agent_id: 'a' });
    assert.equal(json.tool_surface.status, 'unverified');
    assert.notEqual(json.trust_mode, 'full_trust');
    assert.equal(json.tool_surface.degraded_host_tool_surface, false);
  });

  it('reports a degraded host surface when a trust-required verb is missing, and suggests recovery', async () => {
    const { json } = await h.call('session_handshake', { agent_id: 'a', available_tools: ['health', 'help', 'doctor'] });
    assert.equal(json.trust_mode, 'degraded_host_tool_surface');
    assert.deepEqual(json.tool_surface.missing_required_tools.sort(), ['ingest', 'recovery_playbook', 'seek', 'trust_selftest']);
    assert.equal(json.doctor_recovery.verb, 'recovery_playbook');
  });

  it('merges reported missing tools and flags a scope outside the workspace', async () => {
    const all = [...REQUIRED, 'session_handshake'];
    const missing = await h.call('session_handshake', { agent_id: 'a', available_tools: all, missing_tools: ['seek'] });
    assert.deepEqual(missing.json.tool_surface.missing_required_tools, ['seek']);
    const outside = await h.call('session_handshake', { agent_id: 'a', available_tools: all, scope: '/definitely/elsewhere' });
    assert.equal(outside.json.trust_mode, 'wrong_workspace_binding');
  });
});

describe('trust_selftest, recovery_playbook and doctor', function () {
  let h: Harness;
  before(async () => {
    h = await connect({ plugins: [definePlugin({ name: 'needs-graph', version: '1.0.0', requires: ['no-such-service'], apply() {} })] });
  });
  after(() => h.close());

  it('trust_selftest runs the invariant checks and is not ok while a plugin is quarantined', async () => {
    const { json } = await h.call('trust_selftest', { agent_id: 'a', observed_proof_state: 'blocked' });
    const byName = Object.fromEntries(json.checks.map((c: { check: string }) => [c.check, c]));
    assert.equal(byName.surface_invariants.ok, true);
    assert.equal(byName.plugins_loaded.ok, false);
    assert.notEqual(json.status, 'ok');
  });

  it('recovery_playbook orders steps for a trust mode and explains an unknown one', async () => {
    const { json } = await h.call('recovery_playbook', { agent_id: 'a', trust_mode: 'degraded_host_tool_surface' });
    assert.equal(json.steps[0].order, 1);
    assert.equal(json.steps[0].verb, 'help');
    const odd = await h.call('recovery_playbook', { agent_id: 'a', trust_mode: 'sideways' });
    assert.match(odd.json.note, /unknown trust_mode "sideways"/);
  });

  it('doctor reports each finding with a fix and names the quarantined plugin', async () => {
    const { json } = await h.call('doctor', { agent_id: 'a', observed_tool: 'helth' });
    assert.equal(json.status, 'attention');
    const plugin = json.findings.find((f: { check: string }) => f.check === 'plugin:needs-graph');
    assert.match(plugin.detail, /M1ND_ERR_PLUGIN_DEPENDENCY/);
    const observed = json.findings.find((f: { check: string }) => f.check === 'observed_tool');
    assert.match(observed.fix, /health/);
    assert.ok(json.findings.find((f: { check: string }) => f.check === 'tokenizer').ok);
  });
});
