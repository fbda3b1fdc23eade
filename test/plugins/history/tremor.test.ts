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

  it('measures a file created inside the window over its own life: steady since then is no rise', async () => {
    const ws = tempDir();
    write(ws, { 'hot.ts': 'export const hot = 1;\n', 'other.ts': 'export const other = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    // The window is days 0-90. young.ts (born day 40) changes every ~4 days; rising.ts (born day 30) ever faster;
    // early.ts (born day 5) changes six times in its first week, then twice more.
    const born: [string, number][] = [['early.ts', 5], ['rising.ts', 30], ['young.ts', 40]];
    const events: [string, number][] = [
      ...[40, 70, 80, 85, 88, 89].map((d) => ['hot.ts', d] as [string, number]),
      ...[44, 48, 52, 57, 61, 65, 69, 73, 77, 82, 86].map((d) => ['young.ts', d] as [string, number]),
      ...[55, 68, 75, 78, 82, 85, 86, 88].map((d) => ['rising.ts', d] as [string, number]),
      ...[6, 7, 8, 9, 10, 11, 50, 80].map((d) => ['early.ts', d] as [string, number]),
    ];
    const steps = [...born.map(([f, d]) => ['add', f, d] as const), ...events.map(([f, d]) => ['edit', f, d] as const)].sort((a, b) => a[2] - b[2]);
    for (const [kind, f, d] of steps) {
      if (kind === 'edit') touch(ws, [f], d, `edit ${f}`);
      else {
        write(ws, { [f]: `export const x = ${d};\n` });
        git(ws, ['add', '-A'], dayDate(d));
        git(ws, ['commit', '-q', '-m', `add ${f}`], dayDate(d));
      }
    }
    touch(ws, ['other.ts'], 90, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('tremor', { agent_id: 'a', window: 'all', include_history: true, top_k: 50 });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.deepEqual(r.json.tremors.map((t: any) => t.file).sort(), ['hot.ts', 'rising.ts'], JSON.stringify(r.json.tremors));
      const rising = r.json.tremors.find((t: any) => t.file === 'rising.ts');
      assert.deepEqual([rising.created, rising.bucket_days, rising.per_bucket], [dayDate(30).replace('.000Z', 'Z'), 10, [1, 0, 1, 1, 2, 4]], JSON.stringify(rising));
    } finally {
      await h.close();
    }
  });

  it('does not call a steady rate accelerating because of where its commits fall in the buckets', async () => {
    const ws = tempDir();
    write(ws, { 'hot.ts': 'export const hot = 1;\n', 'steady.ts': 'export const steady = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    // The 90-day window is days 10-100 in buckets of 15: steady.ts changes once a month (buckets 1, 3 and 5).
    const events: [string, number][] = [
      ...[25, 55, 85].map((d) => ['steady.ts', d] as [string, number]),
      ...[30, 70, 80, 90, 95, 99].map((d) => ['hot.ts', d] as [string, number]),
    ];
    for (const [f, d] of events.sort((a, b) => a[1] - b[1])) touch(ws, [f], d, `edit ${f}`);
    touch(ws, ['hot.ts'], 100, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('tremor', { agent_id: 'a', window: '90d', include_history: true });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.deepEqual(r.json.tremors.map((t: any) => t.file), ['hot.ts'], JSON.stringify(r.json.tremors));
      assert.equal(r.json.accelerating_count, 1);
    } finally {
      await h.close();
    }
  });
});
