import assert from 'node:assert/strict';
import { writeCallMesh } from '../../../helpers/call-mesh.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { ownHeld, pingDuringGc } from '../../../helpers/ping.ts';

describe('trail_merge of many trails on a large graph', function () {
  this.timeout(180000);
  let h: Harness;
  before(async () => {
    // 80 modules × 20 functions, each calling four functions of other modules (~1,700 nodes).
    const ws = tempDir();
    writeCallMesh(ws, { modules: 80, functions: 20, calls: (m, i) => [1, 7, 13, 19].map((d) => [(m + d * (i + 1)) % 80, (i * 3 + d) % 20] as const) });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('links every pair of ten trails without holding the event loop more than 50 ms, and still finds the paths', async () => {
    const trails: string[] = [];
    for (let k = 0; k < 10; k++) {
      // One function each, in modules far apart in the mesh: no shared node, no direct edge between them.
      const saved = (await h.call('trail_save', { agent_id: 'a', label: `part ${k}`, visited_nodes: [`src/m${k * 8}.ts#f${k * 8}_${(k * 7) % 20}`] })).json;
      assert.equal(saved.nodes, 1, JSON.stringify(saved));
      trails.push(saved.trail_id);
    }
    const own = ({ held, gc }: { held: number[]; gc: number[] }) => Math.max(...ownHeld(held, gc));
    const merged = await pingDuringGc(h, () => h.call('trail_merge', { agent_id: 'a', trail_ids: trails, label: 'all parts' }));
    const { connections } = merged.result.json;
    assert.equal(connections.length, 45);
    const paths = connections.reduce((n: number, c: { paths: unknown[] }) => n + c.paths.length, 0);
    console.log(`      trail_merge: ${paths} paths over 45 pairs, longest own stretch ${own(merged).toFixed(1)} ms`);
    assert.ok(own(merged) < 50, `trail_merge: longest main-thread stretch ${own(merged).toFixed(1)} ms`);
  });
});
