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

describe('drift: a file whose lines and symbols are the same is marked as changed in its edges only', function () {
  this.timeout(60000);
  it('marks a.ts, whose import of the removed d.ts went away, and not b.ts, which was edited', async () => {
    const h = await ingestedFixture({ watch: false });
    try {
      assert.equal((await h.call('drift', { agent_id: 'd' })).json.summary, 'no structural drift');
      fs.rmSync(path.join(h.workspace, 'src/d.ts'));
      fs.appendFileSync(path.join(h.workspace, 'src/b.ts'), '\nexport function b2(): number {\n  return 2;\n}\n');
      await h.call('ingest', { agent_id: 'd', path: '.', incremental: true });
      const { json } = await h.call('drift', { agent_id: 'd' });
      const byPath = new Map(json.structure.files_changed.map((f: { path: string }) => [f.path, f]));
      const a = byPath.get('src/a.ts') as { edges_only?: boolean; loc: number[] } | undefined;
      assert.ok(a, JSON.stringify(json.structure));
      assert.equal(a.edges_only, true, JSON.stringify(a));
      assert.equal((byPath.get('src/b.ts') as { edges_only?: boolean }).edges_only, undefined);
      const relinked = json.structure.files_changed.filter((f: { edges_only?: boolean }) => f.edges_only).length;
      assert.match(json.summary, new RegExp(`1 removed, ${json.structure.files_changed.length} changed file\\(s\\) \\(${relinked} only in their edges`), json.summary);
    } finally {
      await h.close();
    }
  });
});
