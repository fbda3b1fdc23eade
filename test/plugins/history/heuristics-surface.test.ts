import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

const FILES: Record<string, string> = {
  'src/core.ts': `export function coreFn(x: number): number {
  return x * 2;
}
`,
  'src/a.ts': `import { coreFn } from './core.ts';
export function aFn(x: number): number {
  return coreFn(x) + 1;
}
`,
  'src/b.ts': `import { aFn } from './a.ts';
export function bFn(): number {
  return aFn(3);
}
`,
  'test/core.test.ts': `import { coreFn } from '../src/core.ts';
export function testCore(): boolean {
  return coreFn(2) === 4;
}
`,
  'src/lonely.ts': `export function alone(): number {
  return 1;
}
`,
};

describe('heuristics_surface', function () {
  this.timeout(120000);
  it('shows every risk component of a file and of a symbol with its known value and source', async () => {
    const ws = tempDir();
    write(ws, FILES);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'initial import'], dayDate(0)); // 5 files: a sweep, never coupling
    touch(ws, ['src/core.ts', 'src/a.ts'], 1, 'core: widen input');
    touch(ws, ['src/core.ts', 'src/a.ts'], 2, 'fix: core overflow');
    touch(ws, ['src/core.ts'], 3, 'core: comment');
    touch(ws, ['src/lonely.ts'], 4, 'lonely: tweak');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'src/core.ts' });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const c = r.json.components;
      assert.equal(r.json.node.id, 'file:src/core.ts');
      assert.deepEqual(c.blast_radius.value, { transitive_dependent_files: 3, direct_dependent_files: 2 });
      assert.match(c.blast_radius.source, /^graph/);
      assert.deepEqual(c.test_coverage.value, { tested_by: ['test/core.test.ts'], count: 1 });
      assert.equal(c.test_coverage.score, 0);
      assert.equal(c.churn.value.commits, 3);
      assert.equal(c.churn.value.authors, 1);
      assert.equal(c.churn.value.lines_changed, 3, 'a line in each of the three commits; the initial import is a sweep');
      assert.match(c.churn.source, /^git/);
      assert.deepEqual(c.co_change.value.partners, [{ file: 'src/a.ts', support: 2, confidence: 0.667 }]);
      assert.equal(c.trust.value.fix_commits, 1);
      assert.ok(c.trust.value.trust < 1 && c.trust.score > 0);
      assert.ok(c.centrality.value.percentile > 0.5, JSON.stringify(c.centrality));
      assert.equal(c.runtime.value, null);
      assert.equal(c.feedback.value, null);
      assert.ok(r.json.risk > 0 && r.json.risk < 1);
      assert.ok(r.json.reasons.some((x: string) => x === '3 files depend on it, directly or transitively'), JSON.stringify(r.json.reasons));

      const lonely = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'src/lonely.ts' });
      assert.deepEqual(lonely.json.components.blast_radius.value, { transitive_dependent_files: 0, direct_dependent_files: 0 });
      assert.equal(lonely.json.components.test_coverage.score, 1);
      assert.ok(lonely.json.reasons.includes('no test calls it'));
      assert.ok(lonely.json.risk < r.json.risk, `${lonely.json.risk} < ${r.json.risk}`);

      // A symbol: node-level reachability; runtime heat and feedback appear once recorded.
      const span = { name: 'coreFn', startTimeUnixNano: '0', endTimeUnixNano: '5000000', attributes: [{ key: 'code.function', value: { stringValue: 'coreFn' } }, { key: 'code.filepath', value: { stringValue: 'src/core.ts' } }], status: {} };
      const ov = await h.call('runtime_overlay', { agent_id: 'a', spans: [span, span] });
      assert.equal(ov.result.isError, undefined, JSON.stringify(ov.json));
      await h.call('learn', { agent_id: 'a', query: 'core', feedback: 'correct', node_ids: ['function:src/core.ts#coreFn'], scope: 'team' });
      const sym = await h.call('heuristics_surface', { agent_id: 'a', node_id: 'function:src/core.ts#coreFn' });
      const s = sym.json.components;
      assert.equal(s.blast_radius.value.files, 3, JSON.stringify(s.blast_radius));
      assert.ok(s.blast_radius.value.transitive_dependents >= 3);
      assert.equal(s.runtime.value.spans, 2);
      assert.equal(s.feedback.value.correct, 1);
    } finally {
      await h.close();
    }
  });

  it('says git is unavailable instead of scoring history as zero', async () => {
    const ws = tempDir();
    write(ws, FILES);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'src/core.ts' });
      assert.equal(r.json.components.churn.score, null);
      assert.match(r.json.components.trust.source, /unavailable/);
      assert.deepEqual(Object.keys(r.json.contributions).sort(), ['blast_radius', 'centrality', 'test_coverage']);
    } finally {
      await h.close();
    }
  });

  it('reads no tremor for a file created less than half the 90-day window ago', async () => {
    const ws = tempDir();
    write(ws, FILES);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'initial import'], dayDate(0));
    write(ws, { 'src/young.ts': 'export const young = 1;\n' });
    git(ws, ['add', '-A'], dayDate(140));
    git(ws, ['commit', '-q', '-m', 'add young'], dayDate(140));
    // The 90-day window is days 90-180: young.ts, born on day 140, then changes ever faster.
    for (const d of [151, 155, 166, 170, 171, 175]) touch(ws, ['src/young.ts'], d, `young ${d}`);
    touch(ws, ['src/lonely.ts'], 180, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'src/young.ts' });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const t = r.json.components.tremor;
      assert.deepEqual([t.value.created, t.value.per_bucket, t.value.trend, t.score], [dayDate(140).replace('.000Z', 'Z'), null, null, 0], 'born 40 days before the newest commit: too young for a trend');
    } finally {
      await h.close();
    }
  });

  it('scores no tremor for a steady rate the buckets happen to tilt', async () => {
    const ws = tempDir();
    write(ws, FILES);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'initial import'], dayDate(0));
    // The 90-day window is days 10-100 in buckets of 15: src/lonely.ts changes once a month (buckets 1, 3 and 5).
    for (const d of [25, 55, 85]) touch(ws, ['src/lonely.ts'], d, `lonely ${d}`);
    touch(ws, ['src/b.ts'], 100, 'last');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'src/lonely.ts' });
      const t = r.json.components.tremor;
      assert.deepEqual([t.value.per_bucket, t.score], [[0, 1, 0, 1, 0, 1], 0], JSON.stringify(t));
    } finally {
      await h.close();
    }
  });
});
