/**
 * view on files no agent can read whole: a multi-megabyte single line (a data dump, a bundle) and
 * binary bytes. The answer stays agent-sized, says what it left out, and the call never holds the
 * event loop for the seconds it takes to tokenise megabytes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../../helpers/ping.ts';

describe('view of a file with enormous lines or binary bytes', function () {
  this.timeout(120000);
  let h: Harness;

  before(async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(ws, 'src/dump.ts'), `export const dump = [${Array.from({ length: 600_000 }, (_, i) => i).join(',')}];\nexport const after = 1;\n`);
    fs.writeFileSync(path.join(ws, 'src/blob.py'), Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 256)));
    h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
    await h.call('view', { agent_id: 'a', file_path: 'src/a.ts' }); // the tokenizer and the verb are warm
  });

  after(() => h?.close());

  it('cuts each line to a readable length, says so, and keeps the lines after it', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('view', { agent_id: 'a', file_path: 'src/dump.ts' }));
    const json = result.json;
    assert.equal(result.result.isError, undefined, JSON.stringify(json).slice(0, 300));
    assert.equal(json.total_lines, 2);
    const lines = json.content.split('\n');
    assert.equal(lines.length, 2, 'both lines shown');
    assert.ok(lines[0].length < 3000, `first line shown with ${lines[0].length} chars`);
    assert.match(lines[0], /line cut: \d+ more characters/);
    assert.match(lines[1], /^2│export const after = 1;$/);
    assert.equal(json.truncated, true);
    assert.match(json.note ?? '', /longer than \d+ characters/);
    const own = ownHeld(held, gc);
    assert.ok(Math.max(...own) < 250, `view held the event loop: ${describeHeld(own)}`);
  });

  it('shows no bytes of a binary file, and says what it is', async () => {
    const { result, json } = await h.call('view', { agent_id: 'a', file_path: 'src/blob.py' });
    assert.equal(result.isError, undefined);
    assert.equal(json.content, '');
    assert.match(json.note, /binary/);
  });
});

describe('batch_view of a file with enormous lines or binary bytes', function () {
  this.timeout(120000);

  it('cuts the long line and names the binary file instead of showing its bytes', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'dump.ts'), `export const dump = "${'y'.repeat(50_000)}";\n`);
    fs.writeFileSync(path.join(ws, 'blob.py'), Buffer.from([0x70, 0, 0x71, 0xff, 0, 0x0a]));
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      await h.call('ingest', { agent_id: 'a', path: '.' });
      const { json } = await h.call('batch_view', { agent_id: 'a', files: ['dump.ts', 'blob.py'] });
      const [dump, blob] = json.files ?? json.results ?? json.items;
      assert.ok(dump.content.length < 3000, `${dump.content.length} chars`);
      assert.match(dump.content, /line cut: \d+ more characters/);
      assert.equal(dump.truncated, true);
      assert.match(blob.error, /binary file/);
      assert.equal(blob.content, undefined);
    } finally {
      await h.close();
    }
  });
});
