import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/**
 * Type facts read across files, and what a one-file edit re-links. Receiver types elsewhere follow a
 * function's result (declared or inferred), a class's field types and a module-level variable's
 * value: edits of those re-link their readers, and an edit adding a function no one calls re-links
 * only its own file.
 */
const LIB = `class Klass:
    def go(self):
        return 1


class Other:
    def go(self):
        return 2


def make():
    return Klass()


def build() -> Klass:
    return Klass()


class Holder:
    item: Klass
`;

const READERS = 12;

function reader(i: number): string {
  return `from pkg.lib import make, build, Holder


def use_make_${i}():
    make().go()


def use_build_${i}():
    build().go()


def use_holder_${i}(h: Holder):
    h.item.go()
`;
}

async function callersOf(h: Harness, id: string): Promise<string[]> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  return (json.direct as { id: string; relation: string }[]).filter((e) => e.relation.split('+').includes('calls')).map((e) => e.id).sort();
}

async function reingest(h: Harness): Promise<Record<string, unknown>> {
  return (await h.call('ingest', { agent_id: 'a', path: '.', incremental: true })).json;
}

describe('incremental ingest: what a one-file edit re-links', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  const lib = (): string => path.join(ws, 'pkg/lib.py');
  before(async () => {
    ws = tempDir();
    fs.mkdirSync(path.join(ws, 'pkg'));
    fs.writeFileSync(path.join(ws, 'pkg/__init__.py'), '');
    fs.writeFileSync(lib(), LIB);
    for (let i = 0; i < READERS; i++) fs.writeFileSync(path.join(ws, `pkg/reader_${i}.py`), reader(i));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
  });
  after(() => h.close());

  it('starts with every reader calling Klass.go through make(), build() and Holder.item', async () => {
    const callers = await callersOf(h, 'method:pkg/lib.py#Klass.go');
    assert.equal(callers.length, 3 * READERS, callers.join(', '));
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Other.go'), []);
  });

  it('re-links only the edited file when a function nobody calls is added', async () => {
    fs.appendFileSync(lib(), '\n\ndef unused_helper(x):\n    return Klass()\n');
    const json = await reingest(h);
    assert.equal((json.files as { parsed: number }).parsed, 1);
    // Every reader looked up `make`, `build`, `Holder`, `go` in lib.py; none reads `unused_helper`.
    assert.equal(json.relinkedFiles, 1, JSON.stringify(json).slice(0, 400));
    assert.equal((await callersOf(h, 'method:pkg/lib.py#Klass.go')).length, 3 * READERS);
  });

  it("re-links the readers of a function whose inferred result changed, and their calls follow it", async () => {
    fs.writeFileSync(lib(), fs.readFileSync(lib(), 'utf8').replace('def make():\n    return Klass()', 'def make():\n    return Other()'));
    const json = await reingest(h);
    assert.ok((json.relinkedFiles as number) > READERS, `relinked ${json.relinkedFiles}`);
    const other = await callersOf(h, 'method:pkg/lib.py#Other.go');
    assert.deepEqual(other, Array.from({ length: READERS }, (_, i) => `function:pkg/reader_${i}.py#use_make_${i}`).sort());
    assert.equal((await callersOf(h, 'method:pkg/lib.py#Klass.go')).length, 2 * READERS);
  });

  it('re-links the readers of a declared result type and of a field type that changed', async () => {
    fs.writeFileSync(
      lib(),
      fs.readFileSync(lib(), 'utf8').replace('def build() -> Klass:\n    return Klass()', 'def build() -> Other:\n    return Other()').replace('    item: Klass', '    item: Other'),
    );
    await reingest(h);
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Klass.go'), []);
    assert.equal((await callersOf(h, 'method:pkg/lib.py#Other.go')).length, 3 * READERS);
  });
});

describe('calls on a module-level instance another module imports', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  const lib = (made: string): string => `class Klass:\n    def go(self):\n        return 1\n\n\nclass Other:\n    def go(self):\n        return 2\n\n\ndef make() -> Other:\n    return Other()\n\n\ninst = ${made}\nCOUNT = 3\n`;
  before(async () => {
    ws = tempDir();
    fs.mkdirSync(path.join(ws, 'pkg'));
    fs.writeFileSync(path.join(ws, 'pkg/__init__.py'), '');
    fs.writeFileSync(path.join(ws, 'pkg/lib.py'), lib('Klass()'));
    fs.writeFileSync(path.join(ws, 'pkg/use.py'), 'from pkg.lib import inst\nfrom pkg.lib import inst as renamed\n\n\ndef run():\n    inst.go()\n\n\ndef run_renamed():\n    renamed.go()\n');
    // Over 48 files: the ingest streams its rows and builds from light copies of the extractions.
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(ws, `pkg/filler_${i}.py`), `VALUE_${i} = ${i}\n`);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
  });
  after(() => h.close());

  it('resolves the call to the class of the value the variable holds, under its own name or an alias', async () => {
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Klass.go'), ['function:pkg/use.py#run', 'function:pkg/use.py#run_renamed']);
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Other.go'), []);
  });

  it('follows the variable when its value changes (a function whose declared result is Other)', async () => {
    fs.writeFileSync(path.join(ws, 'pkg/lib.py'), lib('make()'));
    const json = await reingest(h);
    assert.ok((json.relinkedFiles as number) >= 2, `relinked ${json.relinkedFiles}`);
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Klass.go'), []);
    assert.deepEqual(await callersOf(h, 'method:pkg/lib.py#Other.go'), ['function:pkg/use.py#run', 'function:pkg/use.py#run_renamed']);
  });
});
