/** What edit_preview and apply report about an edit: the dependents and tests the changed code really has. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

describe('edit reports: dependents and tests of the changed code', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), {
      'app/__init__.py': '',
      'app/enc.py': `def encode(value):\n    return str(value)\n`,
      'app/models.py': `from app.enc import encode\n\n\nclass Req:\n    def __init__(self, value):\n        self.body = encode(value)\n`,
      'app/client.py': `from app.models import Req\n\n\ndef build(value):\n    return Req(value)\n`,
      'app/other.py': `def other():\n    return 1\n`,
      'tests/test_other.py': `from app.other import other\n\n\ndef test_other():\n    assert other() == 1\n`,
    });
    // tests/test_other.py changes with app/enc.py in every commit: co-changed, yet it never runs encode.
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'init');
    for (let i = 0; i < 4; i++) {
      fs.appendFileSync(path.join(ws, 'app/enc.py'), `# ${i}\n`);
      fs.appendFileSync(path.join(ws, 'tests/test_other.py'), `# ${i}\n`);
      git(ws, 'commit', '-qam', `pair ${i}`);
    }
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('leaves out of tests_to_run a test that only changed together with the file in git', async () => {
    const { json } = await h.call('edit_preview', { agent_id: 'a', file_path: 'app/enc.py', hunks: [{ old_text: 'return str(value)', new_text: 'return repr(value)' }] });
    assert.deepEqual(json.graph_effect.symbols.changed.map((s: { id: string }) => s.id), ['function:app/enc.py#encode']);
    assert.deepEqual(json.graph_effect.tests_to_run, []);
  });

  it("names the callers of a class among the dependents of its changed __init__", async () => {
    const { json } = await h.call('edit_preview', { agent_id: 'a', file_path: 'app/models.py', hunks: [{ old_text: 'def __init__(self, value):', new_text: 'def __init__(self, value, strict):' }] });
    assert.deepEqual(json.graph_effect.symbols.changed.map((s: { id: string }) => s.id).sort(), ['class:app/models.py#Req', 'method:app/models.py#Req.__init__']);
    const of = json.graph_effect.dependents.filter((d: { of: string }) => d.of === 'method:app/models.py#Req.__init__').map((d: { id: string }) => d.id);
    assert.deepEqual(of, ['function:app/client.py#build']);
  });
});

describe('apply report on TypeScript: calls the type checker links', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }),
      // `Item.is` is a method of an object literal typed by an alias: only the checker links a call of it.
      'src/item.ts': `function freeze<T>(o: T): T {\n  return Object.freeze(o);\n}\n\nexport interface Item {\n  readonly kind: 'Item';\n}\n\ntype ItemFactory = Readonly<{ is(x: { kind: string }): x is Item }>;\n\nexport const Item: ItemFactory = freeze<ItemFactory>({\n  is(x): x is Item {\n    return x.kind === 'Item';\n  },\n});\n`,
      // Another `is`: a name alone does not say which one a call means.
      'src/shape.ts': `type ShapeFactory = Readonly<{ is(x: { kind: string }): boolean }>;\n\nexport const Shape: ShapeFactory = Object.freeze<ShapeFactory>({\n  is(x): boolean {\n    return x.kind === 'Shape';\n  },\n});\n`,
      'src/use.ts': `import { Item } from './item.js';\n\nexport function check(x: { kind: string }): boolean {\n  return Item.is(x);\n}\n\nexport function other(): number {\n  return 1;\n}\n`,
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws, wait_precise: true });
  });
  after(() => h?.close());

  it('does not report an unchanged call the checker links as a removed edge', async () => {
    const callees = async () => (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/use.ts', symbol: 'check' })).json.neighbourhood.callees.map((n: { path: string; relation: string }) => `${n.relation} ${n.path}`);
    const linked = await callees();
    assert.ok(linked.includes('calls src/item.ts'), `the checker links check() to Item.is: ${linked}`);
    const text = fs.readFileSync(path.join(ws, 'src/use.ts'), 'utf8').replace('return 1;', 'return 2;');
    const { json } = await h.call('apply', { agent_id: 'a', file_path: 'src/use.ts', new_content: text });
    assert.deepEqual(json.graph.symbols.changed.map((s: { id: string }) => s.id), ['function:src/use.ts#other']);
    assert.deepEqual(json.graph.edges.sample_removed, [], `check() still calls Item.is; ${JSON.stringify(json.graph.edges)}`);
    assert.equal(json.graph.type_check, undefined);
    assert.deepEqual(await callees(), linked);
  });
});
