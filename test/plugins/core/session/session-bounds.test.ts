import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

/** A workspace of `dirs` top-level folders with `perDir` marked files each, plus src/late.ts (unmarked). */
function manyFiles(dirs: number, perDir: number): string {
  const ws = tempDir();
  for (let d = 0; d < dirs; d++) {
    fs.mkdirSync(path.join(ws, `d${d}`));
    for (let f = 0; f < perDir; f++) fs.writeFileSync(path.join(ws, `d${d}`, `f${f}.ts`), `export const marker${d}_${f} = ${f};\n`);
  }
  fs.mkdirSync(path.join(ws, 'src'));
  fs.writeFileSync(path.join(ws, 'src', 'late.ts'), 'export function late(): number {\n  return 1;\n}\n');
  return ws;
}

describe('session verbs: bounds and paths never seen', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = manyFiles(36, 15);
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('am_i_stale checks the files seen most recently first and counts the ones past its cap', async () => {
    const found = (await h.call('search', { agent_id: 's1', query: 'marker', top_k: 1000 })).json;
    assert.equal(new Set(found.matches.map((m: { path: string }) => m.path)).size, 540);
    await h.call('view', { agent_id: 's1', file_path: 'src/late.ts' });
    const file = path.join(h.workspace, 'src/late.ts');
    fs.writeFileSync(file, `// edited\n${fs.readFileSync(file, 'utf8')}`);
    const { json } = await h.call('am_i_stale', { agent_id: 's1' });
    assert.equal(json.checked, 500);
    assert.equal(json.unchecked, 41, '541 files seen, 500 checked');
    assert.match(json.note, /41 seen earlier are not checked/);
    assert.deepEqual(json.stale.map((s: { path: string }) => s.path), ['src/late.ts'], 'the file seen last is checked');
    assert.equal(json.fresh.length, 50);
    assert.equal(json.fresh_not_listed, 449, '499 fresh, 50 listed');
  });

  it('am_i_stale tells a path nobody ever had from a file that vanished', async () => {
    await h.call('view', { agent_id: 's2', file_path: 'd0/f1.ts' });
    fs.rmSync(path.join(h.workspace, 'd0/f1.ts'));
    const { json } = await h.call('am_i_stale', { agent_id: 's2', files: ['d0/f1.ts', 'd0/nope.ts'] });
    const by = Object.fromEntries(json.stale.map((s: { path: string; status: string }) => [s.path, s]));
    assert.equal(by['d0/f1.ts'].status, 'vanished');
    assert.equal(by['d0/nope.ts'].status, 'not_found');
    assert.match(by['d0/nope.ts'].next, /check the path/);
    const folder = (await h.call('am_i_stale', { agent_id: 's2', files: ['d1'] })).json.stale[0];
    assert.deepEqual([folder.path, folder.status], ['d1', 'not_a_file']);
    assert.match(folder.next, /glob/);
  });

  it('coverage_session says how many directories its lists leave out', async () => {
    await h.call('view', { agent_id: 's3', file_path: 'd1/f0.ts' });
    const { json } = await h.call('coverage_session', { agent_id: 's3' });
    assert.equal(json.by_directory.length, 20);
    assert.equal(json.unvisited_directories.length, 30);
    // 37 top-level folders (d0…d35 and src), one visited.
    assert.deepEqual(json.not_listed, { by_directory: 17, unvisited_directories: 6 });
  });
});

describe('am_i_stale on a read-only server', function () {
  this.timeout(60000);
  it('does not tell the agent to ingest (refused read-only) when the graph is behind the disk', async () => {
    const ws = manyFiles(1, 2);
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'w', path: ws });
    await writer.close();
    fs.writeFileSync(path.join(ws, 'src/late.ts'), 'export function late(): number {\n  return 2;\n}\n');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1' } });
    try {
      const { json } = await h.call('am_i_stale', { agent_id: 'r', files: ['src/late.ts'] });
      assert.equal(json.stale[0].graph, 'behind');
      assert.doesNotMatch(json.stale[0].next, /^ingest/);
      assert.match(json.stale[0].next, /read-only/);
    } finally {
      await h.close();
    }
  });
});
