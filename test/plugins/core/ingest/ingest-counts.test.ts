import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../../helpers/mcp.ts';

describe('ingest counts', function () {
  this.timeout(120000);

  it('reports a skipped total equal to the sum of its breakdown, and names the files that parse with errors', async () => {
    const ws = tempDir();
    const write = (rel: string, text: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    };
    write('src/ok.ts', 'export function ok(): number {\n  return 1;\n}\n');
    write('src/broken.ts', 'export function broken( {\n  return 1;\n');
    write('py/fine.py', 'def fine():\n    return 1\n');
    write('notes.txt', 'plain text: no parser\n');
    write('data.csv', 'a,b\n1,2\n');
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    write('big.ts', `export const big = "${'x'.repeat(1_100_000)}";\n`);
    const h = await connect({ workspaceRoot: ws });
    try {
      const r = (await h.call('ingest', { agent_id: 'a', path: '.' })).json;
      const byReason = r.skippedByReason as Record<string, number>;
      const sum = Object.values(byReason).reduce((n, k) => n + k, 0);
      assert.ok(sum >= 3, JSON.stringify(byReason));
      assert.equal(r.files.skipped, sum, `files.skipped ${r.files.skipped} vs breakdown ${JSON.stringify(byReason)}`);
      assert.ok(byReason.unsupported >= 2, 'notes.txt and data.csv have no parser');
      assert.match(r.skipped_note, new RegExp(`^${byReason.unsupported} unsupported file`));
      const listedReasons = new Set((r.skipped as { path: string; reason: string }[]).map((s) => s.reason));
      assert.ok(!listedReasons.has('unsupported'));
      assert.ok((r.skipped as { path: string }[]).some((s) => s.path === 'big.ts'), JSON.stringify(r.skipped));
      assert.equal(r.parseErrors.files, 1);
      assert.deepEqual(r.parseErrors.worst.map((f: { path: string }) => f.path), ['src/broken.ts']);
      assert.equal(r.parseErrors.worst[0].firstLine, 1);
    } finally {
      await h.close();
    }
  });
});
