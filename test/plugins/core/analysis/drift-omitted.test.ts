import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ingestedFixture } from './analysis-fixture.ts';

describe('drift: a list cut to its limit says how much was left out', function () {
  this.timeout(60000);
  it('counts the symbols added beyond the ten listed per file', async () => {
    const h = await ingestedFixture({ watch: false });
    try {
      await h.call('persist', { agent_id: 'd', action: 'checkpoint', path: 'before' });
      const added = Array.from({ length: 14 }, (_, i) => `\nexport function extra${i}(): number {\n  return ${i};\n}\n`).join('');
      fs.appendFileSync(path.join(h.workspace, 'src/d.ts'), added);
      await h.call('ingest', { agent_id: 'd', path: '.', incremental: true });
      const { json } = await h.call('drift', { agent_id: 'd', since: 'before' });
      const d = json.structure.files_changed.find((f: { path: string }) => f.path === 'src/d.ts');
      assert.equal(d.symbols_added.length, 10, JSON.stringify(d));
      assert.deepEqual(d.omitted, { symbols_added: 4 }, '14 functions were added: 10 listed, 4 left out');
      assert.equal(json.structure.omitted, undefined, 'every file is listed');
    } finally {
      await h.close();
    }
  });
});
