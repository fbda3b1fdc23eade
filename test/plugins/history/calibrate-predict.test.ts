import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

describe('calibrate_predict measures what predict can be asked and can answer', function () {
  this.timeout(120000);
  it('leaves files outside the graph out of the replay\'s seeds and rankings, as predict does', async () => {
    const ws = tempDir();
    write(ws, { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 1;\n', 'notes.txt': 'no parser reads this\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    // a.ts always changes with notes.txt; b.ts joins it in the older commits only.
    for (let day = 1; day <= 15; day++) touch(ws, day <= 12 ? ['a.ts', 'b.ts', 'notes.txt'] : ['a.ts', 'notes.txt'], day, `change ${day}`);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const p = await h.call('predict', { agent_id: 'a', changed_node: 'a.ts' });
      assert.deepEqual(p.json.predictions.map((x: any) => x.file), ['b.ts'], 'notes.txt is no graph file: predict never answers it');
      const r = await h.call('calibrate_predict', { agent_id: 'a', top_k: 5 });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      // 16 multi-file commits, the newest 3 held out (a.ts + notes.txt): a.ts is asked about each, notes.txt never.
      assert.deepEqual([r.json.held_out_commits, r.json.queries], [3, 3], JSON.stringify(r.json));
      const at1 = r.json.metrics.find((m: any) => m.k === 1);
      assert.deepEqual([at1.precision, at1.baseline_precision], [0, 0], 'predict\'s first answer, b.ts, changed in none of them');
    } finally {
      await h.close();
    }
  });
});
