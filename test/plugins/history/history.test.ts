import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write, writeHistoryRepo } from './git-fixture.ts';

describe('history verbs on a repository with a scripted git history', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    writeHistoryRepo(ws);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
  });
  after(() => h?.close());

  it('ghost_edges finds the co-change pairs without a static edge and leaves out the imported pair', async () => {
    const r = await h.call('ghost_edges', { agent_id: 'a', depth: 'all' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const pairs = r.json.ghost_edges.map((e: any) => `${e.a}+${e.b}`);
    assert.deepEqual(pairs.sort(), ['py/config.py+py/retry.py', 'src/api.ts+src/wire.ts']);
    const api = r.json.ghost_edges.find((e: any) => e.a === 'src/api.ts');
    assert.equal(api.support, 7, 'the commits before the rename count for src/wire.ts');
    assert.equal(r.json.coupled_pairs_with_static_edge, 1, 'cart.ts + math.ts co-change but cart imports math');
    assert.equal(r.json.sweeping_commits_skipped, 2, 'the initial import and the formatting commit');
  });

  it('does not count a formatting commit touching every file as coupling', async () => {
    const r = await h.call('ghost_edges', { agent_id: 'a', depth: 'all', min_support: 1 });
    assert.ok(!r.json.ghost_edges.some((e: any) => e.a === 'go/server.go' || e.b === 'go/server.go' || e.a === 'docs/guide.md' || e.b === 'docs/guide.md'), JSON.stringify(r.json.ghost_edges));
    const t = await h.call('timeline', { agent_id: 'a', node: 'go/server.go', depth: 'all' });
    assert.deepEqual(t.json.co_changes, []);
    assert.ok(t.json.commits.some((c: any) => c.sweeping === true));
  });

  it('timeline follows a rename and reports commits, authors, partners and velocity', async () => {
    const r = await h.call('timeline', { agent_id: 'a', node: 'src/wire.ts', depth: 'all', top_k: 3 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.former_names, ['src/schema.ts']);
    assert.equal(r.json.total_commits, 10, 'initial, day 1, rename, 6 cycles, the formatting commit');
    assert.equal(r.json.commits.length, 3);
    assert.equal(r.json.co_changes[0].file, 'src/api.ts');
    assert.equal(r.json.co_changes[0].static_edge, false);
    assert.deepEqual(r.json.authors.map((a: any) => a.name).sort(), ['Ada', 'Bob']);
    assert.ok(['accelerating', 'slowing', 'steady'].includes(r.json.velocity.trend));
  });

  it('predict ranks the co-change partner first, and a static dependent too', async () => {
    const r = await h.call('predict', { agent_id: 'a', changed_node: 'function:py/retry.py#retry' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.changed.file, 'py/retry.py');
    assert.equal(r.json.predictions[0].file, 'py/config.py');
    assert.ok(r.json.predictions[0].components.co_change > 0.5);
    const api = await h.call('predict', { agent_id: 'a', changed_node: 'src/api.ts' });
    assert.deepEqual(api.json.changed, { node: 'file:src/api.ts', file: 'src/api.ts', commits: 9, sweeping_commits: 2 }, 'the initial import and the formatting commit are sweeps');
    const wire = api.json.predictions.find((p: any) => p.file === 'src/wire.ts');
    assert.deepEqual([wire.support, wire.confidence], [7, 1], 'the 7 commits that are no sweep all touched src/wire.ts');
    const m = await h.call('predict', { agent_id: 'a', changed_node: 'src/math.ts' });
    assert.equal(m.json.predictions[0].file, 'src/cart.ts');
    assert.equal(m.json.predictions[0].components.static, 1, 'cart.ts imports math.ts');
    assert.equal(m.json.calibration.calibrated, false);
  });

  it('calibrate_predict replays held-out commits, reports precision and recall, and predict then decides', async () => {
    const r = await h.call('calibrate_predict', { agent_id: 'a', top_k: 5 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.ok(r.json.held_out_commits >= 2, JSON.stringify(r.json));
    const at1 = r.json.metrics.find((m: any) => m.k === 1);
    assert.equal(at1.precision, 1, 'each held-out pair is predicted from its history');
    assert.equal(at1.recall, 1);
    assert.ok(r.json.act_threshold !== null && r.json.act_threshold > 0);
    assert.equal(r.json.stored, true);
    const p = await h.call('predict', { agent_id: 'a', changed_node: 'src/api.ts' });
    assert.equal(p.json.predictions[0].file, 'src/wire.ts');
    assert.equal(p.json.predictions[0].decision, 'act');
    assert.ok(p.json.predictions.slice(1).every((x: any) => x.decision !== 'act'), JSON.stringify(p.json.predictions));
  });

  it('mines only the new commits after HEAD moves', async () => {
    touch(ws, ['src/api.ts', 'src/wire.ts'], 60, 'api: one more');
    const r = await h.call('timeline', { agent_id: 'a', node: 'src/api.ts', depth: 'all' });
    assert.equal(r.json.source.mined, 'incremental');
    assert.equal(r.json.source.new_commits, 1);
    assert.equal(r.json.total_commits, 10, 'the new commit is in the (appended) index');
    assert.equal(r.json.co_changes[0].support, 8);
    const again = await h.call('timeline', { agent_id: 'a', node: 'src/api.ts', depth: 'all' });
    assert.equal(again.json.source.mined, 'cached');
  });

  it('mines the whole history again after it was rewritten', async () => {
    git(ws, ['reset', '-q', '--hard', 'HEAD~1'], dayDate(61));
    touch(ws, ['src/cart.ts'], 62, 'cart: instead');
    const r = await h.call('timeline', { agent_id: 'a', node: 'src/api.ts', depth: 'all' });
    assert.equal(r.json.source.mined, 'full');
    assert.equal(r.json.total_commits, 9, 'the dropped commit (the 10th) is gone from the history');
  });

  it('diverge between two refs lists exactly the symbols added, removed and changed', async () => {
    write(ws, { 'src/shop.ts': 'export class Shop {\n  open(): number {\n    return 1;\n  }\n  close(): number {\n    return 0;\n  }\n}\n' });
    git(ws, ['add', '-A'], dayDate(70));
    git(ws, ['commit', '-q', '-m', 'shop'], dayDate(70));
    git(ws, ['tag', 'before'], dayDate(70));
    write(ws, {
      'src/shop.ts': 'export class Shop {\n  open(): number {\n    return 1;\n  }\n  close(): number {\n    return -1;\n  }\n}\n',
      'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n',
      'py/retry.py': 'import time\n\n\ndef retry(fn, attempts=3):\n    return fn()\n',
    });
    git(ws, ['add', '-A'], dayDate(71));
    git(ws, ['commit', '-q', '-m', 'shop closes with -1, sub, simpler retry'], dayDate(71));
    const r = await h.call('diverge', { agent_id: 'a', baseline: 'before', head: 'HEAD' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.symbols.added, ['function:src/math.ts#sub']);
    assert.deepEqual(r.json.symbols.removed, ['function:py/retry.py#backoff']);
    assert.deepEqual([...r.json.symbols.changed].sort(), ['function:py/retry.py#retry', 'method:src/shop.ts#Shop.close'], 'the class itself did not change, only its method');
    assert.deepEqual(r.json.files.modified.sort(), ['py/retry.py', 'src/math.ts', 'src/shop.ts']);
    assert.ok(r.json.anomalies.some((a: any) => a.kind === 'test_deficit' && a.file === 'src/math.ts'));
    const bad = await h.call('diverge', { agent_id: 'a', baseline: 'no-such-tag' });
    assert.equal(bad.json.error.code, 'M1ND_ERR_HISTORY_BAD_REF');
  });
});

describe('history verbs without git', function () {
  this.timeout(60000);
  it('say plainly that there is no repository', async () => {
    const ws = tempDir();
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      (await import('node:fs')).writeFileSync(`${ws}/a.ts`, 'export const a = 1;\n');
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('ghost_edges', { agent_id: 'a' });
      assert.equal(r.result.isError, true);
      assert.equal(r.json.error.code, 'M1ND_ERR_HISTORY_NO_GIT');
      assert.match(r.json.error.message, /not inside a git repository/);
    } finally {
      await h.close();
    }
  });
});

describe('history verbs on a folder no commit touches', function () {
  this.timeout(60000);
  it('say the repository has commits, none touching the served folder, and name the next move', async () => {
    const repo = tempDir();
    git(repo, ['init', '-q']);
    write(repo, { 'README.md': '# top\n' });
    git(repo, ['add', 'README.md']);
    git(repo, ['commit', '-q', '-m', 'readme at the root']);
    write(repo, { 'sub/a.ts': 'export function a(): number {\n  return 1;\n}\n' });
    const ws = `${repo}/sub`;
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('ghost_edges', { agent_id: 'a' });
      assert.equal(r.result.isError, true);
      assert.equal(r.json.error.code, 'M1ND_ERR_HISTORY_NO_GIT');
      assert.doesNotMatch(r.json.error.message, /no commits yet/);
      assert.match(r.json.error.message, /has commits \(HEAD [0-9a-f]{12}\), but none of them touches the served folder sub\//);
      assert.match(r.json.error.hint, /git add sub\//);
      assert.match(r.json.error.hint, /serve the repository root/);
      const s = await h.call('heuristics_surface', { agent_id: 'a', file_path: 'a.ts' });
      assert.equal(s.result.isError, undefined, JSON.stringify(s.json));
      assert.match(s.json.components.churn.source, /none of them touches the served folder sub\//);
    } finally {
      await h.close();
    }
  });

  it('say "no commits yet" only when the repository has none', async () => {
    const repo = tempDir();
    git(repo, ['init', '-q']);
    write(repo, { 'a.ts': 'export const a = 1;\n' });
    const h = await connect({ workspaceRoot: repo, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: repo });
      const r = await h.call('ghost_edges', { agent_id: 'a' });
      assert.equal(r.json.error.code, 'M1ND_ERR_HISTORY_NO_GIT');
      assert.match(r.json.error.message, /has no commits yet/);
      assert.match(r.json.error.hint, /commit your work first/);
    } finally {
      await h.close();
    }
  });
});
