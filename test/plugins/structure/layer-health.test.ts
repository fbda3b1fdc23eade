import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { LAYERED_FILES } from './layered-repo.ts';

describe('layer_inspect health counts each bad arc once', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), LAYERED_FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('an upward arc that closes a cycle is one bad arc, not two: health stays within 0..1 and matches the arcs', async () => {
    // src/lib: ping ↔ pong, one arc each way; the lighter one is upward and both are in the cycle.
    const all = (await h.call('layers', { agent_id: 'a', scope: 'src/lib', min_nodes_per_layer: 1 })).json;
    for (const layer of all.layers) {
      const r = (await h.call('layer_inspect', { agent_id: 'a', scope: 'src/lib', min_nodes_per_layer: 1, level: layer.level })).json;
      const hl = r.health;
      const leaving = hl.arcs_inside + hl.arcs_down + hl.arcs_upward + hl.arcs_to_utility;
      assert.ok(hl.score >= 0 && hl.score <= 1, JSON.stringify(r));
      // Every arc in this scope is inside the one cycle: none is healthy.
      assert.equal(hl.arcs_in_cycles, leaving, JSON.stringify(r));
      if (leaving > 0) assert.equal(hl.score, 0, JSON.stringify(r));
    }
  });
});
