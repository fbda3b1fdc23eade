import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('mission_verify checks what the events really observed', function () {
  this.timeout(60000);

  it('a read of a missing file verifies nothing, a failed command is no graph answer, and the next move is the caller’s', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const m = (await h.call('mission_start', { agent_id: 'a', repo: 'fixture', task: 'why the total is off', mode: 'bug_hunt' })).json.mission_id;

      await h.call('mission_event', { agent_id: 'a', mission_id: m, event: { action: 'view', path: 'src/nope.ts' } });
      const missing = (await h.call('mission_verify', { agent_id: 'a', mission_id: m, claim: 'nope.ts rounds the total', evidence_refs: ['src/nope.ts'] })).json;
      assert.equal(missing.verified, false);
      assert.deepEqual(missing.direct_refs, []);
      assert.deepEqual(missing.missing_refs, ['src/nope.ts']);
      assert.match(missing.reason, /src\/nope\.ts is no file, directory or symbol of the workspace/);

      await h.call('mission_event', { agent_id: 'a', mission_id: m, event: { action: 'command', cmd: 'grep -n round src/math.ts', exit_status: 1, refs: ['src/math.ts'] } });
      const failed = (await h.call('mission_verify', { agent_id: 'a', mission_id: m, claim: 'add() rounds its result', evidence_refs: ['src/math.ts'] })).json;
      assert.equal(failed.verified, false);
      assert.deepEqual(failed.graph_refs, []);
      assert.deepEqual(failed.failed_refs, ['src/math.ts']);
      assert.match(failed.reason, /only failed commands cite src\/math\.ts/);
      assert.doesNotMatch(failed.reason, /graph/);

      const handoff = (await h.call('mission_handoff', { agent_id: 'a', mission_id: m, recipient_agent_id: 'b' })).json;
      assert.deepEqual(handoff.next.arguments, { agent_id: 'b', file_path: 'src/math.ts' });
      assert.deepEqual(handoff.hypotheses.find((x: { text: string }) => x.text === 'add() rounds its result').failed_refs, ['src/math.ts']);
      const next = (await h.call('mission_next', { agent_id: 'b', mission_id: m })).json.next;
      assert.equal(next.arguments.agent_id, 'b');

      await h.call('mission_event', { agent_id: 'b', mission_id: m, event: { action: 'view', path: 'src/math.ts' } });
      const read = (await h.call('mission_verify', { agent_id: 'b', mission_id: m, claim: 'add() rounds its result', evidence_refs: ['src/math.ts'] })).json;
      assert.equal(read.verified, true);
      assert.deepEqual(read.direct_refs, ['src/math.ts']);
    } finally {
      await h.close();
    }
  });

  it('mission_close memorizes a verified claim only with a file read behind it, and says which it left out', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const m = (await h.call('mission_start', { agent_id: 'a', repo: 'fixture', task: 'layout review' })).json.mission_id;
      await h.call('mission_event', { agent_id: 'a', mission_id: m, event: { action: 'command', cmd: 'ls src', exit_status: 0, refs: ['src'] } });
      await h.call('mission_event', { agent_id: 'a', mission_id: m, event: { action: 'view', path: 'src/math.ts' } });
      assert.equal((await h.call('mission_verify', { agent_id: 'a', mission_id: m, claim: 'src holds the TypeScript sources', evidence_refs: ['src'] })).json.verified, true);
      assert.equal((await h.call('mission_verify', { agent_id: 'a', mission_id: m, claim: 'mul multiplies by repeated add', evidence_refs: ['src/math.ts'] })).json.verified, true);
      const closed = (await h.call('mission_close', { agent_id: 'a', mission_id: m, write_light_memory: true })).json;
      assert.equal(closed.memorized.stored.length, 1);
      assert.match(closed.memorized.stored[0], /\(src\/math\.ts\)$/);
      assert.deepEqual(closed.memorized.not_memorized.map((x: { claim: string }) => x.claim), ['src holds the TypeScript sources']);
    } finally {
      await h.close();
    }
  });
});
