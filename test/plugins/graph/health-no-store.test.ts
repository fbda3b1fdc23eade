import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('health on a workspace never ingested', function () {
  this.timeout(60000);

  it('reports an absent store and an empty graph without creating the store, and the first ingest creates it', async () => {
    const ws = writeFixtureRepo(tempDir());
    const store = path.join(ws, '.m1nd');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.graph.loaded, false);
      assert.equal(health.graph.node_count, 0);
      assert.equal(health.team_store.kind, 'sqlite');
      assert.equal(health.team_store.created, false);
      // The daemon's health reads its state row: a read of a store that does not exist finds nothing.
      assert.ok(health.daemon, 'the daemon reports in health');
      assert.equal(fs.existsSync(store), false, 'health (and the background load before it) created no store');

      const ingest = (await h.call('ingest', { agent_id: 'a', path: '.' })).json;
      assert.equal(ingest.error, undefined, JSON.stringify(ingest).slice(0, 300));
      assert.equal(fs.existsSync(path.join(store, 'm1nd.db')), true, 'the first ingest created the store');
      const after = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(after.graph.loaded, true);
      assert.ok(after.graph.node_count > 0);
      assert.equal(after.team_store.created, undefined);
      assert.equal(after.team_store.connected, true);
    } finally {
      await h.close();
    }
  });
});
