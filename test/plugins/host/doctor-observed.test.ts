import assert from 'node:assert/strict';
import { connect, type Harness } from '../../helpers/mcp.ts';

describe('doctor: the verb an agent observed, as its host names it', function () {
  let h: Harness;
  before(async () => {
    h = await connect();
  });
  after(() => h.close());

  it('a host-prefixed name of a registered verb is registered, and doctor stays healthy about it', async () => {
    const { json } = await h.call('doctor', { agent_id: 'a', observed_tool: 'mcp__m1nd__seek' });
    const f = json.findings.find((x: { check: string }) => x.check === 'observed_tool');
    assert.equal(f.ok, true);
    assert.match(f.detail, /your host's name for seek\) is registered \(plugin core\)/);
    const typo = (await h.call('doctor', { agent_id: 'a', observed_tool: 'mcp__m1nd__helth' })).json;
    const t = typo.findings.find((x: { check: string }) => x.check === 'observed_tool');
    assert.equal(t.ok, false);
    assert.match(t.fix, /did you mean health/);
  });
});

describe('session_handshake: the scope an agent reports', function () {
  let h: Harness;
  before(async () => {
    h = await connect();
  });
  after(() => h.close());

  it('a folder whose name starts with two dots is inside the workspace; the parent is outside', async () => {
    const inside = (await h.call('session_handshake', { agent_id: 'a', scope: '..cache/x' })).json;
    assert.equal(inside.binding.wrong_workspace_binding, false);
    const outside = (await h.call('session_handshake', { agent_id: 'a', scope: '../elsewhere' })).json;
    assert.equal(outside.binding.wrong_workspace_binding, true);
    assert.equal(outside.trust_mode, 'wrong_workspace_binding');
  });
});

describe('session_handshake: its description', function () {
  it('names every trust mode it can answer', async () => {
    const h = await connect();
    try {
      const tool = (await h.client.listTools()).tools.find((t) => t.name === 'session_handshake')!;
      for (const mode of ['degraded', 'wrong binding', 'needs_ingest', 'orientation_only', 'unverified', 'full_trust']) assert.ok(tool.description!.includes(mode), mode);
    } finally {
      await h.close();
    }
  });
});
