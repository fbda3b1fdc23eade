import assert from 'node:assert/strict';
import { writeCallMesh } from '../../helpers/call-mesh.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { ownHeld, pingDuringGc } from '../../helpers/ping.ts';

describe('lock baselines of a large region', function () {
  this.timeout(180000);
  let h: Harness;
  before(async () => {
    // 80 modules × 20 functions, each calling four functions of other modules: a module's two-hop
    // region (its functions, what they call, the modules importing it and theirs) spans ~1,700 nodes in 80 files.
    const ws = tempDir();
    writeCallMesh(ws, { modules: 80, functions: 20, documented: true, calls: (m, i) => [1, 7, 13, 19].map((d) => [(m + d * (i + 1)) % 80, (i * 3 + d) % 20] as const) });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('captures and diffs the baseline in slices: no ping waits on more than 50 ms of main-thread work, and the baseline is whole', async () => {
    const warm = await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: ['file:src/m0.ts'], radius: 2 });
    await h.call('lock_release', { agent_id: 'a', lock_id: warm.json.lock_id });
    // What the server's own code held: garbage-collection pauses taken out, as in the other event-loop tests.
    const own = ({ held, gc }: { held: number[]; gc: number[] }) => Math.max(...ownHeld(held, gc));
    const created = await pingDuringGc(h, () => h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: ['file:src/m0.ts'], radius: 2 }));
    const { region, lock_id } = created.result.json;
    assert.ok(region.nodes > 1000 && region.files.length === 80, JSON.stringify({ nodes: region.nodes, files: region.files.length }));
    console.log(`      lock_create: longest own stretch ${own(created).toFixed(1)} ms`);
    assert.ok(own(created) < 50, `lock_create: longest main-thread stretch ${own(created).toFixed(1)} ms`);
    const diffed = await pingDuringGc(h, () => h.call('lock_diff', { agent_id: 'a', lock_id }));
    assert.equal(diffed.result.json.changed, false);
    console.log(`      lock_diff: longest own stretch ${own(diffed).toFixed(1)} ms`);
    assert.ok(own(diffed) < 50, `lock_diff: longest main-thread stretch ${own(diffed).toFixed(1)} ms`);
  });
});
