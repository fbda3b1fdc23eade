import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const read = (ws: string, f: string) => fs.readFileSync(path.join(ws, f), 'utf8');

describe('edit_preview and edit_commit', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  it('stages exact-match hunks without writing: unified diff, base hash and the graph effect', async () => {
    const original = read(ws, 'src/math.ts');
    const { json } = await h.call('edit_preview', {
      agent_id: 'a',
      file_path: 'src/math.ts',
      hunks: [
        { old_text: 'return a + b;', new_text: 'return b + a;' },
        { old_text: 'export function mul', new_text: 'export function neg(a: number): number {\n  return -a;\n}\n\nexport function mul' },
      ],
    });
    assert.match(json.preview_id, /^pv_/);
    assert.equal(read(ws, 'src/math.ts'), original, 'nothing written');
    assert.equal(json.base_hash, (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts' })).json.content_hash);
    assert.match(json.diff, /^--- a\/src\/math\.ts/m);
    assert.match(json.diff, /^-  return a \+ b;$/m);
    assert.match(json.diff, /^\+  return b \+ a;$/m);
    assert.deepEqual(json.lines, { added: 5, removed: 1 });
    assert.deepEqual(json.graph_effect.symbols.changed.map((s: { id: string }) => s.id), ['function:src/math.ts#add']);
    assert.deepEqual(json.graph_effect.symbols.added.map((s: { id: string }) => s.id), ['function:src/math.ts#neg']);
    assert.ok(json.graph_effect.dependents.some((d: { id: string }) => d.id === 'function:src/cart.ts#total'));
    assert.deepEqual(json.warnings, []);

    const unconfirmed = await h.call('edit_commit', { agent_id: 'a', preview_id: json.preview_id });
    assert.equal(unconfirmed.json.error.code, 'M1ND_ERR_EDIT_CONFIRM_REQUIRED');
    assert.equal(read(ws, 'src/math.ts'), original);
    const done = await h.call('edit_commit', { agent_id: 'a', preview_id: json.preview_id, confirm: true });
    assert.equal(done.result.isError, undefined, JSON.stringify(done.json));
    assert.match(read(ws, 'src/math.ts'), /return b \+ a;[\s\S]*export function neg/);
    assert.deepEqual(done.json.graph.symbols.added.map((s: { id: string }) => s.id), ['function:src/math.ts#neg']);
    const reused = await h.call('edit_commit', { agent_id: 'a', preview_id: json.preview_id, confirm: true });
    assert.equal(reused.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND', 'a preview is used once');
  });

  it('refuses to commit over a file changed since the preview, naming the refresh call', async () => {
    const { json } = await h.call('edit_preview', { agent_id: 'a', file_path: 'src/math.ts', new_content: 'export {};\n' });
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '// edited meanwhile\n');
    const r = await h.call('edit_commit', { agent_id: 'a', preview_id: json.preview_id, confirm: true });
    assert.equal(r.json.error.code, 'M1ND_ERR_EDIT_STALE_BASE');
    assert.match(r.json.error.hint, /surgical_context_v2\(\{"agent_id":"a","file_path":"src\/math\.ts"\}\)/);
    assert.match(read(ws, 'src/math.ts'), /edited meanwhile/);
  });

  it('refuses ambiguous or missing hunks, keeps previews per agent, and warns about line endings and BOM', async () => {
    const twice = await h.call('edit_preview', { agent_id: 'a', file_path: 'src/math.ts', hunks: [{ old_text: 'number', new_text: 'bigint' }] });
    assert.equal(twice.json.error.code, 'M1ND_ERR_EDIT_HUNK_MISMATCH');
    assert.match(twice.json.error.message, /matches 7 places/);
    const none = await h.call('edit_preview', { agent_id: 'a', file_path: 'src/math.ts', hunks: [{ old_text: 'nowhere', new_text: 'x' }] });
    assert.match(none.json.error.message, /matches 0 places/);
    const crlf = read(ws, 'src/math.ts').replace(/\n/g, '\r\n');
    const warned = (await h.call('edit_preview', { agent_id: 'a', file_path: 'src/math.ts', new_content: '\uFEFF' + crlf })).json;
    assert.deepEqual(warned.warnings, ['line endings change from lf to crlf', 'a byte-order mark (BOM) is added']);
    const stolen = await h.call('edit_commit', { agent_id: 'b', preview_id: warned.preview_id, confirm: true });
    assert.equal(stolen.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND', "b cannot commit a's preview");
    await h.call('edit_commit', { agent_id: 'a', preview_id: warned.preview_id, confirm: true });
    assert.equal(fs.readFileSync(path.join(ws, 'src/math.ts')).subarray(0, 3).toString('hex'), 'efbbbf', 'the BOM is written as given');
  });
});
