import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

describe('tremor on a repository whose files change at different rates', function () {
  this.timeout(120000);
  it('ranks the accelerating file first and leaves out the steady and the slowing ones', async () => {
    const ws = tempDir();
    write(ws, { 'hot.ts': 'export const hot = 1;\n', 'steady.ts': 'export const steady = 1;\n', 'cooling.ts': 'export const cooling = 1;\n', 'other.ts': 'export const other = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    const plan: [string, number[]][] = [
      ['hot.ts', [40, 70, 80, 85, 88, 89]],
      ['steady.ts', [5, 20, 35, 50, 65, 80]],
      ['cooling.ts', [1, 2, 4, 8, 15, 30]],
    ];
    const events = plan.flatMap(([f, days]) => days.map((d) => [f, d] as const)).sort((a, b) => a[1] - b[1]);
    for (const [f, d] of events) touch(ws, [f], d, `edit ${f}`);
    touch(ws, ['other.ts'], 90, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('tremor', { agent_id: 'a', window: 'all', include_history: true });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.deepEqual(r.json.tremors.map((t: any) => t.file), ['hot.ts']);
      assert.ok(r.json.tremors[0].trend > 0.3 && r.json.tremors[0].confidence > 0.3, JSON.stringify(r.json.tremors[0]));
      assert.equal(r.json.tremors[0].per_bucket.reduce((a: number, b: number) => a + b, 0), 6);
    } finally {
      await h.close();
    }
  });

  it('leaves out a file whose commits accelerated before it was deleted', async () => {
    const ws = tempDir();
    write(ws, { 'gone.ts': 'export const gone = 1;\n', 'kept.ts': 'export const kept = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    for (const d of [40, 70, 80, 85, 88, 89]) touch(ws, ['gone.ts', 'kept.ts'], d, `edit ${d}`);
    git(ws, ['rm', '-q', 'gone.ts'], dayDate(90));
    git(ws, ['commit', '-q', '-m', 'drop gone.ts'], dayDate(90));
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('tremor', { agent_id: 'a', window: 'all' });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.deepEqual(r.json.tremors.map((t: any) => t.file), ['kept.ts']);
      assert.equal(r.json.accelerating_count, 1);
    } finally {
      await h.close();
    }
  });

  it('measures a file created inside the window from its creation: steady since then is no rise', async () => {
    const ws = tempDir();
    write(ws, { 'hot.ts': 'export const hot = 1;\n', 'other.ts': 'export const other = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    write(ws, { 'young.ts': 'export const young = 1;\n' });
    git(ws, ['add', '-A'], dayDate(40));
    git(ws, ['commit', '-q', '-m', 'add young.ts'], dayDate(40));
    // 90 days in 6 buckets of 15: young.ts, born in the third, changes 3 times in each of the last three.
    const events: [string, number][] = [
      ...[40, 70, 80, 85, 88, 89].map((d) => ['hot.ts', d] as [string, number]),
      ...[46, 50, 55, 61, 65, 70, 76, 80, 85].map((d) => ['young.ts', d] as [string, number]),
    ];
    for (const [f, d] of events.sort((a, b) => a[1] - b[1])) touch(ws, [f], d, `edit ${f}`);
    touch(ws, ['other.ts'], 90, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('tremor', { agent_id: 'a', window: 'all', include_history: true, top_k: 50 });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.deepEqual(r.json.tremors.map((t: any) => t.file), ['hot.ts'], JSON.stringify(r.json.tremors));
      // Asked for any trend at all, young.ts shows its creation and the three buckets measured, flat.
      const any = await h.call('tremor', { agent_id: 'a', window: 'all', threshold: 0, top_k: 50 });
      const young = any.json.tremors.find((t: any) => t.file === 'young.ts');
      assert.deepEqual([young.created, young.buckets_measured, young.trend, young.commits], [dayDate(40).replace('.000Z', 'Z'), 3, 0, 10], JSON.stringify(young));
    } finally {
      await h.close();
    }
  });
});
