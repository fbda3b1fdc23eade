import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';
import { effectOf, minimalArguments } from '../../core/index.ts';

function snapshot(dir: string): string {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(`${path.relative(dir, p)}:${fs.statSync(p).size}:${fs.readFileSync(p, 'base64')}`);
    }
  };
  walk(dir);
  return files.sort().join('\n');
}

describe('read-only gate', function () {
  it('refuses every write and destructive call before any tap or side effect, calling every verb', async () => {
    const { plugin, record } = recorderPlugin();
    const h = await connect({ env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' }, plugins: [plugin] });
    try {
      fs.writeFileSync(path.join(h.workspace, 'keep.txt'), 'unchanged');
      const before = snapshot(h.workspace);
      let refused = 0;
      for (const verb of h.host.current.records()) {
        const args = minimalArguments(verb.input);
        if (verb.name === 'rec_persist') args.action = 'save';
        const effect = effectOf(verb, args);
        record.taps.length = 0;
        record.effects.length = 0;
        const { result, json } = await h.call(verb.name, args);
        if (effect !== 'write' && effect !== 'destructive') continue;
        assert.equal(result.isError, true, `${verb.name} should be refused`);
        assert.equal(json.error.code, 'M1ND_ERR_GATE_READ_ONLY', verb.name);
        assert.deepEqual(record.taps, [], `no tap ran for ${verb.name}`);
        assert.deepEqual(record.effects, [], `no side effect for ${verb.name}`);
        refused++;
      }
      assert.ok(refused >= 4);
      assert.equal(snapshot(h.workspace), before, 'workspace and store unchanged');
    } finally {
      await h.close();
    }
  });

  it('still serves read and session verbs, and judges argument-dependent effects per call', async () => {
    const { plugin, record } = recorderPlugin();
    const h = await connect({ env: { M1ND_READ_ONLY: 'true' }, plugins: [plugin] });
    try {
      assert.equal((await h.call('rec_read', { agent_id: 'a', note: 'r' })).result.isError, undefined);
      assert.equal((await h.call('rec_session', { agent_id: 'a', note: 's' })).result.isError, undefined);
      assert.equal((await h.call('rec_persist', { agent_id: 'a', action: 'status' })).json.action, 'status');
      assert.equal((await h.call('rec_persist', { agent_id: 'a', action: 'save' })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      assert.deepEqual(record.effects, ['rec_read:r', 'rec_session:s', 'rec_persist:status']);
    } finally {
      await h.close();
    }
  });

  it('leaves write verbs out of tools/list in read-only mode but keeps argument-dependent ones', async () => {
    const h = await connect({ env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' }, plugins: [recorderPlugin().plugin] });
    try {
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('rec_write') && !names.includes('rec_destroy'));
      assert.ok(names.includes('rec_persist') && names.includes('rec_session'));
    } finally {
      await h.close();
    }
  });
});

describe('proof gate', function () {
  it('refuses an empty target set, refuses unproven targets, allows proven ones, per agent', async () => {
    const { plugin, record } = recorderPlugin();
    const h = await connect({ env: { M1ND_PROOF_GATE: '1' }, plugins: [plugin] });
    try {
      const empty = await h.call('rec_gated_write', { agent_id: 'a' });
      assert.equal(empty.json.error.code, 'M1ND_ERR_GATE_PROOF_UNRESOLVED');
      assert.deepEqual(empty.json.error.detail.provers.sort(), ['rec_prove', 'surgical_context_v2']);
      const unproven = await h.call('rec_gated_write', { agent_id: 'a', file_path: 'src/x.ts' });
      assert.equal(unproven.json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN');
      assert.deepEqual(unproven.json.error.detail.unproven, ['src/x.ts']);
      assert.match(unproven.json.error.hint, /rec_prove/);
      await h.call('rec_prove', { agent_id: 'a', file_path: './src/x.ts' });
      const allowed = await h.call('rec_gated_write', { agent_id: 'a', file_path: 'src/x.ts' });
      assert.equal(allowed.json.wrote, 'src/x.ts');
      const other = await h.call('rec_gated_write', { agent_id: 'b', file_path: 'src/x.ts' });
      assert.equal(other.json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN', 'a proof belongs to the agent that made it');
      assert.deepEqual(record.effects, ['rec_gated_write:src/x.ts']);
    } finally {
      await h.close();
    }
  });

  it('is off by default', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      assert.equal((await h.call('rec_gated_write', { agent_id: 'a', file_path: 'y' })).json.wrote, 'y');
    } finally {
      await h.close();
    }
  });
});
