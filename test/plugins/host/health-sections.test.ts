import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { definePlugin } from '../../../core/index.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const SURFACE = ['health', 'trust_selftest', 'recovery_playbook', 'doctor', 'ingest', 'seek', 'help', 'session_handshake'];

describe('health sections that fail', function () {
  this.timeout(60000);

  it('a plugin whose status throws is reported, and the other sections still answer', async () => {
    const sour = definePlugin({
      name: 'sour',
      version: '1.0.0',
      apply(ctx) {
        ctx.hooks.health.tapPromise('sour', async () => {
          throw new Error('sour store unreadable');
        });
      },
    });
    const h = await connect({ plugins: [sour] });
    try {
      const health = await h.call('health', { agent_id: 'a' });
      assert.notEqual(health.result.isError, true, JSON.stringify(health.json).slice(0, 300));
      assert.equal(health.json.status, 'degraded');
      assert.match(health.json.status_reasons.join(' '), /plugin sour cannot report its status: sour store unreadable/);
      assert.equal(health.json.graph.engine, true, 'the graph section still answers');
      const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
      const finding = doctor.findings.find((f: { check: string }) => f.check === 'plugin:sour');
      assert.match(finding.detail, /sour store unreadable/);
      const self = (await h.call('trust_selftest', { agent_id: 'a', available_tools: SURFACE })).json;
      assert.equal(self.checks.find((c: { check: string }) => c.check === 'plugins_loaded').ok, false);
    } finally {
      await h.close();
    }
  });

  it('a damaged graph store: the trust verbs answer, name the error, and the fix doctor gives works', async () => {
    const ws = writeFixtureRepo(tempDir());
    const first = await connect({ workspaceRoot: ws });
    await first.call('ingest', { agent_id: 'a', path: ws });
    await first.close();
    const db = path.join(ws, '.m1nd', 'm1nd.db');
    const fd = fs.openSync(db, 'r+');
    fs.writeSync(fd, Buffer.alloc(100, 'x'), 0, 100, 0);
    fs.closeSync(fd);
    const h = await connect({ workspaceRoot: ws });
    try {
      for (const verb of ['health', 'doctor', 'session_handshake', 'trust_selftest', 'recovery_playbook']) {
        const { result, json } = await h.call(verb, verb === 'health' ? { agent_id: 'a' } : { agent_id: 'a', available_tools: SURFACE });
        assert.notEqual(result.isError, true, `${verb}: ${JSON.stringify(json).slice(0, 300)}`);
      }
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.status, 'degraded');
      assert.equal(health.graph.engine, true);
      assert.match(health.graph.error, /not a database/);
      const hs = (await h.call('session_handshake', { agent_id: 'a', available_tools: SURFACE })).json;
      assert.equal(hs.trust_mode, 'orientation_only', 'ingest is not the next step: it fails on the same store');
      assert.equal(hs.next_action.verb, 'doctor');
      const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
      const graph = doctor.findings.find((f: { check: string }) => f.check === 'graph');
      assert.equal(graph.ok, false);
      assert.match(graph.detail, /not a database/);
      assert.ok(graph.fix.includes(db), graph.fix);
      // The fix as given: move the store aside and ingest.
      fs.renameSync(db, `${db}.damaged`);
      const ingest = await h.call('ingest', { agent_id: 'a', path: ws });
      assert.notEqual(ingest.result.isError, true, JSON.stringify(ingest.json).slice(0, 300));
      const after = (await h.call('doctor', { agent_id: 'a' })).json;
      assert.equal(after.findings.find((f: { check: string }) => f.check === 'graph').ok, true);
      assert.equal((await h.call('health', { agent_id: 'a' })).json.status, 'ok');
    } finally {
      await h.close();
    }
  });

  it('health and doctor pass on the generation and staleness the graph plugin reports', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      await h.call('ingest', { agent_id: 'a', path: ws });
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.graph.generation, 2);
      assert.equal(health.graph.stale, false);
      // The graph plugin's last_ingest is this server's own (null after a restart): not passed on as the graph's.
      assert.equal(health.graph.last_ingest, undefined);
      const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
      assert.match(doctor.findings.find((f: { check: string }) => f.check === 'graph').detail, /\(generation 2\)/);
    } finally {
      await h.close();
    }
  });
});
