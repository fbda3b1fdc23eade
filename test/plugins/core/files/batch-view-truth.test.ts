/** batch_view says what view and glob say: a file's line count, whether lines were left out, which files a pattern names. */
import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';

describe('batch_view: line counts and patterns as view and glob read them', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'pkg/one.py': 'def one():\n    return 1\n',
      'pkg/deep/two.py': 'def two():\n    return 2\n',
      'top.py': 'X = 1\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('counts the lines view counts and is not truncated when it shows them all', async () => {
    const view = (await h.call('view', { agent_id: 'a', file_path: 'pkg/one.py' })).json;
    const { json } = await h.call('batch_view', { agent_id: 'a', files: ['pkg/one.py'], max_lines_per_file: 2 });
    const f = json.files[0];
    assert.equal(view.total_lines, 2);
    assert.equal(f.total_lines, 2);
    assert.equal(f.truncated, false);
    assert.equal(f.content.split('\n').length, 2, f.content);
  });

  it('matches a pattern without "/" against base names anywhere, as glob does', async () => {
    const glob = (await h.call('glob', { agent_id: 'a', pattern: '*.py' })).json.paths;
    const { json } = await h.call('batch_view', { agent_id: 'a', files: ['*.py'] });
    assert.deepEqual(json.files.map((f: { file_path: string }) => f.file_path).sort(), [...glob].sort());
    assert.deepEqual([...glob].sort(), ['pkg/deep/two.py', 'pkg/one.py', 'top.py']);
    const anchored = (await h.call('batch_view', { agent_id: 'a', files: ['./pkg/*.py'] })).json;
    assert.deepEqual(anchored.files.map((f: { file_path: string }) => f.file_path), ['pkg/one.py']);
  });
});

describe('view: the symbols a window shows', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'src/box.ts': `export class Box {\n  open(): number {\n    return 1;\n  }\n\n  close(): number {\n    return 2;\n  }\n}\n`,
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it("lists a class's methods inside the window, not only the class", async () => {
    const { json } = await h.call('view', { agent_id: 'a', file_path: 'src/box.ts', offset: 5, limit: 3 });
    assert.deepEqual(json.lines, [6, 8]);
    const ids = json.symbols.map((s: { id: string }) => s.id);
    assert.ok(ids.includes('method:src/box.ts#Box.close'), ids.join(','));
    assert.ok(!ids.includes('method:src/box.ts#Box.open'), 'open() ends at line 4');
    assert.ok(ids.includes('class:src/box.ts#Box'));
  });
});
