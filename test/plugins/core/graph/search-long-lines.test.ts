import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../../helpers/mcp.ts';

describe('search on a long line', function () {
  this.timeout(120000);

  it('shows the part of the line around the match, not the line\'s first characters', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'data.ts'), `export const data = [${Array.from({ length: 20_000 }, (_, i) => i).join(',')}, 987654321];\nexport const near = 987654321;\n`);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      await h.call('ingest', { agent_id: 'a', path: '.' });
      const { json } = await h.call('search', { agent_id: 'a', query: '987654321' });
      assert.equal(json.matches.length, 2);
      const [far, short] = json.matches;
      assert.equal(far.line, 1);
      assert.ok(far.column > 100_000);
      assert.ok(far.text.length <= 402, `${far.text.length} chars`);
      assert.ok(far.text.includes('987654321'), `the match's own text is shown: ${far.text.slice(0, 60)}…${far.text.slice(-60)}`);
      assert.match(far.text, /^…/, 'marked as cut at its start');
      assert.equal(short.text, 'export const near = 987654321;');
    } finally {
      await h.close();
    }
  });
});
