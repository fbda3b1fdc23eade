import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

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

describe('doctor: the store folder', function () {
  this.timeout(60000);
  it('a store folder whose parents do not exist yet is writable (ingest creates them); one under a file is not', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'a.ts'), 'export const a = 1;\n');
    const deep = path.join(tempDir(), 'x', 'y', 'store');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_STORE_DIR: deep } });
    try {
      const store = (await h.call('doctor', { agent_id: 'a' })).json.findings.find((f: { check: string }) => f.check === 'store_dir');
      assert.equal(store.ok, true, store.detail);
      const ingest = await h.call('ingest', { agent_id: 'a', path: ws });
      assert.notEqual(ingest.result.isError, true);
      assert.ok(fs.existsSync(deep));
    } finally {
      await h.close();
    }
    const file = path.join(tempDir(), 'plain-file');
    fs.writeFileSync(file, '');
    const bad = await connect({ workspaceRoot: ws, env: { M1ND_STORE_DIR: path.join(file, 'store') } });
    try {
      const store = (await bad.call('doctor', { agent_id: 'a' })).json.findings.find((f: { check: string }) => f.check === 'store_dir');
      assert.equal(store.ok, false);
      assert.match(store.detail, /is a file, not a folder/);
    } finally {
      await bad.close();
    }
  });
});

describe('a read-only server with an empty graph', function () {
  this.timeout(60000);
  it('suggests no ingest (the read-only gate refuses it) and says what to do instead', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'a.ts'), 'export const a = 1;\n');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1' } });
    try {
      const hs = (await h.call('session_handshake', { agent_id: 'a' })).json;
      assert.equal(hs.can_ingest, false);
      assert.notEqual(hs.next_action?.verb, 'ingest');
      const play = (await h.call('recovery_playbook', { agent_id: 'a', trust_mode: 'needs_ingest' })).json;
      for (const step of play.steps) {
        const { result, json } = await h.call(step.verb, step.arguments);
        assert.notEqual(result.isError, true, `${step.verb}: ${JSON.stringify(json).slice(0, 200)}`);
      }
      assert.match(play.steps[0].why, /read-only/);
      const graph = (await h.call('doctor', { agent_id: 'a' })).json.findings.find((f: { check: string }) => f.check === 'graph');
      assert.match(graph.fix, /read-only/);
    } finally {
      await h.close();
    }
  });
});
