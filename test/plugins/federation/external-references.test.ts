import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe('external_references', function () {
  this.timeout(120000);
  let h: Harness;
  let app: string;
  before(async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-ext-'));
    write(parent, { 'lib/src/index.ts': 'export function parse(s: string) { return s.trim(); }\n' });
    app = path.join(parent, 'app');
    write(app, {
      'package.json': JSON.stringify({ type: 'module', private: true, dependencies: { lib: 'file:../lib', chalk: '^5.0.0' } }, null, 2),
      'tsconfig.json': JSON.stringify({ extends: '../tsconfig.base.json', compilerOptions: {} }, null, 2),
      'go.mod': 'module example.com/app\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../lib\n',
      'src/main.ts': "import { parse } from '../../lib/src/index.ts';\nimport { helper } from './helper.ts';\nexport function main() { return parse(helper()); }\n",
      'src/helper.ts': "export function helper() { return ' x '; }\n",
      'docs/guide.md': '# Guide\n\nSee [the library](../../lib/README.md) and [the helper](../src/helper.ts).\n',
    });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: app });
  });
  after(() => h?.close());

  it('lists imports, doc links and manifest entries that leave the root, and nothing inside it', async () => {
    const r = (await h.call('external_references', { agent_id: 'a' })).json;
    const seen = r.references.map((x: any) => `${x.kind} ${x.file}:${x.line} ${x.target}`).sort();
    assert.deepEqual(seen, [
      'doc_link docs/guide.md:3 ../lib/README.md',
      'import src/main.ts:1 ../lib/src/index.ts',
      'manifest go.mod:5 ../lib',
      'manifest package.json:5 ../lib',
      'manifest tsconfig.json:2 ../tsconfig.base.json',
    ]);
    assert.deepEqual(r.roots[0], { root: '../lib', references: 4, kinds: ['doc_link', 'import', 'manifest'] });
  });

  it('answers top_k references and says the rest were cut', async () => {
    const r = (await h.call('external_references', { agent_id: 'a', top_k: 2 })).json;
    assert.equal(r.references.length, 2);
    assert.equal(r.total, 5);
    assert.equal(r.truncated, true);
  });

  it('keeps to the files under scope', async () => {
    const r = (await h.call('external_references', { agent_id: 'a', scope: 'docs' })).json;
    assert.deepEqual(r.references.map((x: any) => x.file), ['docs/guide.md']);
  });

  it('sees the new and removed references of a changed file once re-ingested (references are kept per extraction)', async () => {
    const before = (await h.call('external_references', { agent_id: 'a' })).json;
    assert.equal(before.total, 5);
    write(app, { 'src/helper.ts': "import { x } from '../../shared/x.ts';\nexport function helper() { return ' x ' + x; }\n" });
    write(app, { 'docs/guide.md': '# Guide\n\nSee [the helper](../src/helper.ts).\n' });
    await h.call('ingest', { agent_id: 'a', path: app, incremental: true });
    const after = (await h.call('external_references', { agent_id: 'a' })).json;
    const seen = after.references.map((x: any) => `${x.kind} ${x.file}:${x.line} ${x.target}`);
    assert.ok(seen.includes('import src/helper.ts:1 ../shared/x.ts'), JSON.stringify(seen));
    assert.ok(!seen.some((x: string) => x.startsWith('doc_link docs/guide.md')), JSON.stringify(seen));
    assert.equal(after.total, 5);
  });
});
