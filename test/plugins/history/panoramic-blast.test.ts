import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** a → b → c → a is an import cycle; d imports a and e imports d; lone.ts is imported by nobody. */
const FILES: Record<string, string> = {
  'src/a.ts': "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n",
  'src/b.ts': "import { c } from './c.ts';\nexport const b = (): number => c() + 1;\n",
  'src/c.ts': "import { a } from './a.ts';\nexport const c = (): number => (Math.random() > 2 ? a() : 0);\n",
  'src/d.ts': "import { a } from './a.ts';\nexport const d = (): number => a() * 2;\n",
  'src/e.ts': "import { d } from './d.ts';\nexport const e = (): number => d() - 1;\n",
  'src/lone.ts': 'export const lone = 1;\n',
};

describe('panoramic blast radius', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = tempDir();
    for (const [rel, text] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    }
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
  });
  after(() => h?.close());

  it('counts every file that depends on a file through a chain or a cycle, the file itself never', async () => {
    const r = await h.call('panoramic', { agent_id: 'a', top_n: 50 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const row = (f: string) => r.json.files.find((x: any) => x.file === f);
    // a's dependents: c (imports it), b (imports c), d (imports it), e (imports d).
    assert.equal(row('src/a.ts').transitive_dependents, 4);
    assert.equal(row('src/b.ts').transitive_dependents, 4, 'a, c, d, e');
    assert.equal(row('src/c.ts').transitive_dependents, 4, 'b, a, d, e');
    assert.equal(row('src/d.ts').transitive_dependents, 1, 'e');
    assert.equal(row('src/e.ts').transitive_dependents, 0);
    assert.equal(row('src/lone.ts').transitive_dependents, 0);
    assert.equal(row('src/a.ts').direct_dependents, 2, 'c and d');
    assert.equal(row('src/a.ts').components.blast, 1, 'the largest blast scales to 1');
    assert.equal(r.json.note, 'no git history: churn is null and risk uses blast and centrality only');
  });

  it('keeps the walk over all files when scope narrows the rows', async () => {
    const r = await h.call('panoramic', { agent_id: 'a', scope: 'src/d.ts' });
    assert.deepEqual(r.json.files.map((x: any) => [x.file, x.transitive_dependents]), [['src/d.ts', 1]]);
  });
});
