import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('surgical_context and surgical_context_v2 on a fixture repository', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('shows the numbered file, its symbols with line ranges, and callers, callees, importers and tests', async () => {
    const { json } = await h.call('surgical_context', { agent_id: 'a', file_path: 'src/cart.ts' });
    assert.equal(json.file_path, 'src/cart.ts');
    assert.equal(json.total_lines, 13);
    assert.match(json.content, /^ 1│import \{ add \} from '\.\/math\.ts';/);
    assert.match(json.content, /13│}$/);
    assert.match(json.content_hash, /^[0-9a-f]{40}$/);
    const sym = Object.fromEntries(json.symbols.map((s: { label: string; lines: number[] }) => [s.label, s.lines]));
    assert.deepEqual(sym.total, [4, 6]);
    assert.deepEqual(sym.Cart, [8, 13]);
    const ids = (g: { id: string }[]) => g.map((n) => n.id).sort();
    assert.deepEqual(ids(json.neighbourhood.callees), ['function:src/math.ts#add']);
    assert.deepEqual(ids(json.neighbourhood.importers), ['file:tests/cart.test.ts']);
    assert.ok(ids(json.neighbourhood.tests).some((id) => id.startsWith('file:tests/cart.test.ts') || id === 'function:tests/cart.test.ts#testTotal'));
    assert.deepEqual(ids(json.neighbourhood.callers), [], 'the test calling total is a test, not a caller');
  });

  it('narrows to one symbol: its lines only and its own neighbours', async () => {
    const { json } = await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts', symbol: 'add' });
    assert.deepEqual(json.lines, [2, 4]);
    assert.match(json.content, /^2│export function add/);
    assert.deepEqual(json.neighbourhood.callers.map((n: { id: string }) => n.id).sort(), ['function:src/cart.ts#total']);
    assert.deepEqual(json.neighbourhood.callees, []);
  });

  it('refuses a path outside the workspace and names an unknown symbol with the file’s symbols', async () => {
    const escape = await h.call('surgical_context', { agent_id: 'a', file_path: '../etc/passwd' });
    assert.equal(escape.result.isError, true);
    assert.equal(escape.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    const unknown = await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts', symbol: 'nope' });
    assert.equal(unknown.result.isError, true);
    assert.match(unknown.json.error.hint, /add, mul/);
  });

  it('v2 adds excerpts of connected files ranked by edge strength and proves the file', async () => {
    const { json } = await h.call('surgical_context_v2', { agent_id: 'a', file_path: 'src/cart.ts', max_lines_per_file: 3 });
    const files = json.connected_files.map((f: { file_path: string }) => f.file_path);
    assert.deepEqual(files.sort(), ['src/math.ts', 'tests/cart.test.ts']);
    const math = json.connected_files.find((f: { file_path: string }) => f.file_path === 'src/math.ts');
    assert.deepEqual(math.lines, [[2, 4]]);
    assert.match(math.content, /2│export function add/);
    const test = json.connected_files.find((f: { file_path: string }) => f.file_path === 'tests/cart.test.ts');
    assert.equal(test.lines.reduce((n: number, [a, b]: number[]) => n + b - a + 1, 0) <= 3, true, 'capped at max_lines_per_file');
    assert.equal(json.proof.state, 'ready_to_edit');
    assert.equal(json.proof.content_hash, json.content_hash);
  });
});
