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

describe('layers’ severities are the stated figures', function () {
  this.timeout(60000);
  let h: Harness;
  // db ← repo ← s1 ← s2 ← s3 ← top; top also calls repo (four layers down) past s1, which it uses too.
  const FILES: Record<string, string> = {
    'src/db.ts': 'export function query(sql: string): string[] {\n  return [sql];\n}\n',
    'src/repo.ts': "import { query } from './db.ts';\nexport function find(id: string): string[] {\n  return query(id);\n}\n",
    'src/s1.ts': "import { find } from './repo.ts';\nexport function one(id: string): string {\n  return find(id).join();\n}\n",
    'src/s2.ts': "import { one } from './s1.ts';\nexport function two(id: string): string {\n  return one(id);\n}\n",
    'src/s3.ts': "import { two } from './s2.ts';\nexport function three(id: string): string {\n  return two(id);\n}\n",
    'src/top.ts': "import { three } from './s3.ts';\nimport { one } from './s1.ts';\nimport { find } from './repo.ts';\nexport function top(id: string): string {\n  return three(id) + one(id) + find(id).length;\n}\n",
  };
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('a skip four layers down is severity 0.3, not a float artifact', async () => {
    const r = (await h.call('layers', { agent_id: 'a', min_nodes_per_layer: 1, max_layers: 12 })).json;
    const skip = r.violations.find((v: any) => v.kind === 'skip' && v.from === 'src/top.ts' && v.to === 'src/repo.ts');
    assert.ok(skip, JSON.stringify(r.violations));
    assert.equal(skip.severity, 0.3, JSON.stringify(skip));
  });
});
