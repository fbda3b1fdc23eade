/**
 * What a surgical context says about the code around a symbol: the excerpt of a caller's file shows
 * the caller, a capped group says how many it holds, and a method is named with its class.
 */
import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const CALLER_FILES = 45;

function files(): Record<string, string> {
  const out: Record<string, string> = {
    'src/util.ts': `export function fmt(n: number): string {\n  return String(n);\n}\n`,
    'src/two.ts': `export class A {\n  run(): number {\n    return 1;\n  }\n}\n\nexport class B {\n  run(): number {\n    return 2;\n  }\n}\n`,
    'src/price.ts': `export function price(n: number): number {\n  return n * 2;\n}\n`,
    // A caller whose file opens with a long import block: the call is far below the head.
    'src/shop.ts': `${Array.from({ length: 12 }, (_, i) => `import { x${i} } from './dep${i}.ts';`).join('\n')}
import { fmt } from './util.ts';
import { price } from './price.ts';
export class Shop {
  label(): string {
    return fmt(price(${Array.from({ length: 12 }, (_, i) => `x${i}`).join(' + ')}));
  }
}
`,
  };
  for (let i = 0; i < 12; i++) out[`src/dep${i}.ts`] = `export const x${i} = ${i};\n`;
  for (let i = 0; i < CALLER_FILES; i++) out[`src/use${i}.ts`] = `import { fmt } from './util.ts';\n\nexport function use${i}(): string {\n  return fmt(${i});\n}\n`;
  return out;
}

describe('surgical context: excerpts, group totals and names that match the code', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), files());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it("shows a caller's own lines in its file's excerpt, not the import block at the file's head", async () => {
    const { json } = await h.call('surgical_context_v2', { agent_id: 'a', file_path: 'src/price.ts', symbol: 'price', max_lines_per_file: 5 });
    const shop = json.connected_files.find((f: { file_path: string }) => f.file_path === 'src/shop.ts');
    assert.ok(shop, 'the caller file is connected');
    assert.deepEqual(shop.lines, [[16, 18]], 'the caller Shop.label spans lines 16-18');
    assert.match(shop.content, /return fmt\(/);
    assert.doesNotMatch(shop.content, /import \{ x0 \}/);
  });

  it('says when a symbol name names several symbols of the file, and which one it shows', async () => {
    const bare = (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/two.ts', symbol: 'run' })).json;
    assert.equal(bare.focus.label, 'A.run');
    assert.match(bare.note, /"run" names 2 symbols of src\/two\.ts; shown: A\.run\. Pass another's qualified name or id: B\.run/);
    const exact = (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/two.ts', symbol: 'B.run' })).json;
    assert.equal(exact.focus.label, 'B.run');
    assert.equal(exact.note, undefined);
  });

  it('says how many neighbours a capped group holds, and names a method with its class', async () => {
    const { json } = await h.call('surgical_context', { agent_id: 'a', file_path: 'src/util.ts', symbol: 'fmt' });
    const nb = json.neighbourhood;
    assert.equal(nb.callers.length, 40, 'the list is capped');
    assert.equal(nb.totals.callers, CALLER_FILES + 1, 'every use<i> and Shop.label call fmt');
    assert.equal(nb.totals.importers, CALLER_FILES + 1);
    const priced = await h.call('surgical_context', { agent_id: 'a', file_path: 'src/price.ts', symbol: 'price' });
    assert.deepEqual(priced.json.neighbourhood.callers.map((n: { id: string; label: string }) => [n.id, n.label]), [['method:src/shop.ts#Shop.label', 'Shop.label']]);
    assert.deepEqual(priced.json.neighbourhood.totals, { callers: 1, callees: 0, importers: 1, tests: 0 });
  });
});

describe('surgical context and validate_plan: calling a class runs its constructor', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'app/enc.py': `def encode(value):\n    return str(value)\n`,
      'app/models.py': `from app.enc import encode\n\n\nclass Req:\n    def __init__(self, value):\n        self.body = encode(value)\n\n    def size(self):\n        return len(self.body)\n`,
      'app/client.py': `from app.models import Req\n\n\ndef build(value):\n    return Req(value)\n`,
      'app/__init__.py': '',
      'tests/test_models.py': `from app.models import Req\n\n\ndef test_body():\n    assert Req(1).body == "1"\n`,
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it("lists the class's callers and tests as the callers and tests of its __init__", async () => {
    const { json } = await h.call('surgical_context', { agent_id: 'a', file_path: 'app/models.py', symbol: 'Req.__init__' });
    assert.deepEqual(json.neighbourhood.callers.map((n: { id: string }) => n.id), ['function:app/client.py#build']);
    assert.ok(json.neighbourhood.tests.some((n: { path: string }) => n.path === 'tests/test_models.py'), JSON.stringify(json.neighbourhood.tests));
  });

  it("counts a test that calls the class as reaching the code its __init__ calls", async () => {
    const plan = (await h.call('validate_plan', { agent_id: 'a', actions: [{ action_type: 'modify', file_path: 'app/enc.py' }] })).json;
    assert.deepEqual(plan.actions[0].tests_via_dependents.sample, [{ file_path: 'tests/test_models.py', hop: 2 }]);
    assert.deepEqual(plan.tests_to_run, ['tests/test_models.py']);
  });
});
