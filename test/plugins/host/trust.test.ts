import assert from 'node:assert/strict';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { AgentId, definePlugin, defineVerb, Type } from '../../../core/index.ts';
import { nodeFinding } from '../../../plugins/host/doctor-checks.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { tempDir } from '../../helpers/mcp.ts';

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
    assert.deepEqual(c.required_agent_trust_tools, REQUIRED);
    assert.deepEqual(c.required_host_visible_tools, [...REQUIRED, 'session_handshake']);
    assert.equal(c.full_registry_tool_count, h.host.current.records().length);
    // The contract is true of this host: every required verb is registered, advertised and answers.
    assert.deepEqual([c.missing_from_registry, c.missing_from_advertised], [[], []]);
    const listed = new Set((await h.client.listTools()).tools.map((t) => t.name));
    for (const verb of c.required_host_visible_tools) {
      assert.ok(listed.has(verb), `${verb} is in tools/list`);
      const { json: answer } = await h.call(verb, { agent_id: 'agent-1', ...(verb === 'ingest' ? { path: '.' } : verb === 'seek' ? { query: 'x' } : {}) });
      assert.notEqual(answer?.error?.code, 'M1ND_ERR_CALL_UNKNOWN_VERB', verb);
    }
  });

  it('reports required verbs a host lacks in its contract', async () => {
    const bare = await connect({ config: { bundles: ['default'], plugins: { disable: ['graph', 'core'] } } });
    try {
      const c = (await bare.call('health', { agent_id: 'a' })).json.tool_surface_contract;
      assert.deepEqual(c.missing_from_registry, ['ingest', 'seek']);
      assert.deepEqual(c.missing_from_advertised, ['ingest', 'seek']);
    } finally {
      await bare.close();
    }
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

  it('trust_selftest is ok on a healthy host with an ingested graph and a verified surface', async () => {
    const ws = writeFixtureRepo(tempDir());
    const good = await connect({ workspaceRoot: ws });
    try {
      await good.call('ingest', { agent_id: 'a', path: ws });
      const { json } = await good.call('trust_selftest', { agent_id: 'a', available_tools: [...REQUIRED, 'session_handshake'], scope: ws });
      assert.deepEqual(json.checks.map((c: { check: string; ok: boolean }) => [c.check, c.ok]), [
        ['surface_invariants', true],
        ['plugins_loaded', true],
        ['host_tool_surface', true],
        ['workspace_binding', true],
        ['graph', true],
      ]);
      assert.deepEqual([json.status, json.verdict, json.trust_mode], ['ok', 'full_trust', 'full_trust']);
      assert.deepEqual(json.next_steps, []);
      const blocked = (await good.call('trust_selftest', { agent_id: 'a', available_tools: [...REQUIRED, 'session_handshake'], observed_proof_state: 'blocked' })).json;
      assert.deepEqual([blocked.status, blocked.verdict], ['warn', 'stale_binding_suspected'], 'a blocked proof on a full-trust binding is suspicious');
    } finally {
      await good.close();
    }
  });

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

describe('suggested calls', function () {
  this.timeout(60000);
  const MODES = ['degraded_host_tool_surface', 'wrong_workspace_binding', 'needs_ingest', 'orientation_only', 'unverified_host_surface', 'full_trust'];
  const OBSERVED = { observed_proof_state: 'blocked', error_text: 'M1ND_ERR_GATE_READ_ONLY', observed_tool: 'helth', observed_candidates: 0 };
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h.close());

  it('every runnable step of every trust mode runs through the client as given', async () => {
    const ran = new Set<string>();
    for (const trust_mode of MODES) {
      const { json } = await h.call('recovery_playbook', { agent_id: 'a', trust_mode, ...OBSERVED });
      for (const step of json.steps) {
        assert.equal(step.template, undefined, `${trust_mode}: a template among the runnable steps`);
        const { result, json: answer } = await h.call(step.verb, step.arguments);
        assert.notEqual(result.isError, true, `${trust_mode}: ${step.verb}(${JSON.stringify(step.arguments)}) failed: ${JSON.stringify(answer).slice(0, 300)}`);
        ran.add(step.verb);
      }
    }
    assert.deepEqual([...ran].sort(), ['doctor', 'health', 'help', 'ingest']);
  });

  it('marks a call with placeholders as a template naming what to fill, never as the next action', async () => {
    const { json } = await h.call('recovery_playbook', { agent_id: 'a', trust_mode: 'unverified_host_surface' });
    assert.deepEqual(json.steps, []);
    assert.equal(json.templates.length, 1);
    const [t] = json.templates;
    assert.deepEqual([t.verb, t.template, t.fill], ['session_handshake', true, ['available_tools']]);
    assert.match(t.arguments.available_tools[0], /^<.*>$/);
    const hs = (await h.call('session_handshake', { agent_id: 'a' })).json;
    assert.equal(hs.trust_mode, 'unverified_host_surface');
    assert.equal(hs.next_action, null);
    assert.deepEqual(hs.next_template, t);
    for (const verb of ['trust_selftest', 'doctor']) {
      const out = (await h.call(verb, { agent_id: 'a' })).json;
      assert.deepEqual(out.next_steps, [], verb);
      assert.deepEqual(out.next_templates, [t], verb);
    }
    // Filled in, the template runs.
    const filled = await h.call(t.verb, { ...t.arguments, available_tools: [...REQUIRED, 'session_handshake'] });
    assert.equal(filled.json.trust_mode, 'full_trust');
  });
});

describe('doctor runtime and gate checks', function () {
  it('checks Node against package.json engines with semver, not the major version', () => {
    assert.equal(nodeFinding('20.0.0', '>=20.19').ok, false);
    assert.match(nodeFinding('20.0.0', '>=20.19').fix!, />=20\.19/);
    assert.equal(nodeFinding('20.18.9', '>=20.19').ok, false);
    assert.equal(nodeFinding('20.19.0', '>=20.19').ok, true);
    assert.equal(nodeFinding('22.1.0', '>=20.19').ok, true);
  });

  it('reports the Node range and the installed gate taps in the order they run', async () => {
    const h = await connect();
    try {
      const findings = (await h.call('doctor', { agent_id: 'a' })).json.findings;
      const byCheck = Object.fromEntries(findings.map((f: { check: string }) => [f.check, f]));
      assert.equal(byCheck.node.detail, `Node ${process.versions.node}; package.json engines.node ">=20.19"`);
      assert.equal(byCheck.gates.ok, true);
      assert.match(byCheck.gates.detail, /^gate taps in order: m1nd-host:read-only \(-300\), m1nd-host:proof \(-200\), m1nd-host:validation \(-100\), graph:workspace-paths \(0\); read-only off, proof gate off$/);
    } finally {
      await h.close();
    }
  });

  it('fails the gates check when the proof gate guards writes no verb can prove, or a plugin gate runs first', async () => {
    const gatedOnly = definePlugin({
      name: 'gated-only',
      version: '1.0.0',
      apply(ctx) {
        ctx.registerVerb(defineVerb({ name: 'gated_write', description: 'A proof-gated write.', input: Type.Object({ agent_id: AgentId }), effect: 'write', proof: () => ({ targets: ['x'] }), handler: () => ({}) }));
        ctx.hooks.gate.tapPromise({ name: 'gated-only:early', stage: -400 }, async () => undefined);
      },
    });
    // Without the edit family, whose surgical_context_v2 proves targets.
    const h = await connect({ env: { M1ND_PROOF_GATE: '1' }, plugins: [gatedOnly], config: { bundles: ['default'], plugins: { disable: ['edit'] } } });
    try {
      const gates = (await h.call('doctor', { agent_id: 'a' })).json.findings.find((f: { check: string }) => f.check === 'gates');
      assert.equal(gates.ok, false);
      assert.match(gates.detail, /plugin gate\(s\) gated-only:early run before the built-in gates/);
      assert.match(gates.detail, /the proof gate is on but no registered verb proves targets, so (\w+, )*gated_write are always refused/);
      assert.match(gates.fix, /proving verb/);
    } finally {
      await h.close();
    }
  });
});
