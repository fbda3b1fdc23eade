import assert from 'node:assert/strict';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir } from '../../../helpers/mcp.ts';

describe('ingest path', function () {
  this.timeout(120000);

  it('refuses a path that names nothing in the workspace, before replacing the stored graph', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const first = await h.call('ingest', { agent_id: 'a', path: '.', wait_precise: false });
      const generation = first.json.generation;
      const { result, json } = await h.call('ingest', { agent_id: 'a', path: 'scr/typo', wait_precise: false });
      assert.equal(result.isError, true, JSON.stringify(json).slice(0, 300));
      assert.equal(json.error.code, 'M1ND_ERR_PATH_NOT_FOUND');
      assert.match(json.error.message, /scr\/typo/);
      assert.match(json.error.hint, /"path":"\."/, 'names the call that ingests the workspace');
      const health = await h.call('health', { agent_id: 'a' });
      assert.equal(health.json.graph.generation ?? generation, generation, 'nothing was re-ingested');
      const sub = await h.call('ingest', { agent_id: 'a', path: 'src', wait_precise: false });
      assert.equal(sub.result.isError, undefined, 'an existing folder still refreshes the workspace');
    } finally {
      await h.close();
    }
  });
});
