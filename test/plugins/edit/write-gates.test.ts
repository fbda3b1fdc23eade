import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const read = (ws: string, f: string) => fs.readFileSync(path.join(ws, f), 'utf8');

/** Every file under `dir` (store included) with its bytes, for byte-for-byte comparison. */
function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath, e.name);
    out.set(path.relative(dir, p), fs.readFileSync(p).toString('base64'));
  }
  return out;
}

describe('write verbs behind the proof gate and the read-only gate', function () {
  this.timeout(60000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses an unproven write, allows it after surgical_context_v2, and refuses it again once a third party edits the file', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_PROOF_GATE: '1' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const edit = (s: string) => ({ agent_id: 'a', file_path: 'src/math.ts', new_content: s });

    const refused = await h.call('apply', edit('export const one = 1;\n'));
    assert.equal(refused.result.isError, true);
    assert.equal(refused.json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN');
    assert.deepEqual(refused.json.error.detail.unproven, ['src/math.ts']);
    assert.match(refused.json.error.hint, /surgical_context_v2/);
    assert.match(read(ws, 'src/math.ts'), /export function add/, 'nothing written');

    await h.call('surgical_context_v2', { agent_id: 'a', file_path: 'src/math.ts' });
    const other = await h.call('apply', { ...edit('export const one = 1;\n'), agent_id: 'b' });
    assert.equal(other.json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN', "a's proof does not let b write");
    const allowed = await h.call('apply', edit('export const one = 1;\n'));
    assert.equal(allowed.result.isError, undefined, JSON.stringify(allowed.json));
    assert.equal(read(ws, 'src/math.ts'), 'export const one = 1;\n');
    const again = await h.call('apply', edit('export const one = 2;\n'));
    assert.equal(again.result.isError, undefined, 'the proof follows the agent’s own write');

    fs.writeFileSync(path.join(ws, 'src/math.ts'), 'export const one = 3; // a person edited this\n');
    const stale = await h.call('apply', edit('export const one = 4;\n'));
    assert.equal(stale.result.isError, true);
    assert.equal(stale.json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN');
    assert.deepEqual(stale.json.error.detail.unproven, ['src/math.ts']);
    assert.equal(read(ws, 'src/math.ts'), 'export const one = 3; // a person edited this\n');
  });

  it('refuses every write verb in read-only mode with the workspace and store byte-for-byte unchanged', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: {} });
    await h.call('ingest', { agent_id: 'a', path: ws });
    await h.close();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
    // The stored graph loads in the background; opening SQLite (read-only, WAL) is not a write of ours.
    await h.call('health', { agent_id: 'a' });
    const before = snapshotTree(ws);
    // edit_preview stages in memory only, so read-only allows it; committing it is a write.
    const preview = (await h.call('edit_preview', { agent_id: 'a', file_path: 'src/math.ts', new_content: 'x' })).json;
    assert.match(preview.preview_id, /^pv_/);
    const calls: [string, Record<string, unknown>][] = [
      ['apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: 'x' }],
      ['apply', { agent_id: 'a', file_path: 'src/new/file.ts', new_content: 'x' }],
      ['apply_batch', { agent_id: 'a', edits: [{ file_path: 'src/math.ts', new_content: 'x' }, { file_path: 'src/cart.ts', new_content: 'y' }] }],
      ['apply_batch', { agent_id: 'a', atomic: false, verify: true, edits: [{ file_path: 'src/math.ts', new_content: 'x' }] }],
      ['edit_commit', { agent_id: 'a', preview_id: preview.preview_id, confirm: true }],
    ];
    for (const [verb, args] of calls) {
      const r = await h.call(verb, args);
      assert.equal(r.result.isError, true, verb);
      assert.equal(r.json.error.code, 'M1ND_ERR_GATE_READ_ONLY', verb);
    }
    assert.deepEqual(snapshotTree(ws), before);
  });
});
