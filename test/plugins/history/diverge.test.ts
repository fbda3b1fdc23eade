import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

describe('diverge against what git holds at both ends', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    write(ws, { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n', 'src/c.ts': 'export const c = 1;\n', 'notes.txt': 'no parser reads this\n', 'data.csv': 'x,y\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    touch(ws, ['src/a.ts', 'src/b.ts'], 1, 'a and b');
    touch(ws, ['src/a.ts', 'src/b.ts'], 2, 'a and b again');
    git(ws, ['checkout', '-q', '-b', 'side'], dayDate(3));
    touch(ws, ['src/c.ts'], 3, 'c alone');
    git(ws, ['checkout', '-q', 'main'], dayDate(4));
    touch(ws, ['notes.txt'], 4, 'notes');
    git(ws, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], dayDate(5));
    git(ws, ['tag', 'base'], dayDate(5));
    touch(ws, ['src/a.ts', 'src/b.ts'], 6, 'a and b once more');
    touch(ws, ['src/a.ts', 'src/b.ts'], 7, 'a and b, the fourth time');
    touch(ws, ['src/a.ts', 'src/c.ts'], 8, 'a and c');
    touch(ws, ['src/a.ts', 'src/c.ts'], 9, 'a and c again');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
  });
  after(() => h?.close());

  it('new_coupling from a merge baseline leaves out the pairs committed together before it', async () => {
    const r = await h.call('diverge', { agent_id: 'a', baseline: 'base', head: 'HEAD', include_anomalies: false });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.new_coupling, [{ a: 'src/a.ts', b: 'src/c.ts', support: 2 }], 'src/a.ts and src/b.ts were committed together twice before the baseline');
  });

  it('drift is 0 against HEAD with a clean working tree, files the graph does not parse included', async () => {
    const r = await h.call('diverge', { agent_id: 'a', baseline: 'HEAD', include_coupling_changes: false, include_anomalies: false });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.counts.files_changed, 0);
    assert.equal(r.json.drift, 0);
  });

  it('drift counts the working tree\'s tracked changes, within the scope', async () => {
    write(ws, { 'src/d.ts': 'export const d = 1;\n', 'top.ts': 'export const top = 1;\n', 'top.md': '# Top\n' });
    git(ws, ['add', 'src/d.ts', 'top.ts', 'top.md'], dayDate(10));
    const all = await h.call('diverge', { agent_id: 'a', baseline: 'HEAD', include_coupling_changes: false, include_anomalies: false });
    assert.equal(all.json.drift, 0.333, '3 of the 9 tracked files are new (the fixture\'s package.json is tracked too)');
    const src = await h.call('diverge', { agent_id: 'a', baseline: 'HEAD', scope: 'src', include_coupling_changes: false, include_anomalies: false });
    assert.equal(src.json.drift, 0.25, '1 of the 4 files under src is new');
    git(ws, ['rm', '-q', '--cached', 'src/d.ts', 'top.ts', 'top.md'], dayDate(10));
  });
});
