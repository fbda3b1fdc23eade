import { strict as assert } from 'node:assert';
import { mkdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

/**
 * Waits until the engine's watcher has marked something dirty (a query's result says stale), then a
 * little longer: the native watcher may report one write as a create and, in a later batch, an update;
 * an update that lands after `ensureFresh()` drained the set marks the file again for the next one.
 */
async function untilStale(engine: CodeGraphEngine): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!engine.seek('anything').stale) {
    if (Date.now() > deadline) throw new Error('the watcher reported nothing within 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 150));
}

const files = (engine: CodeGraphEngine): string[] => [...engine.filePaths()];

describe("the graph's own watcher (native events, then ensureFresh)", function () {
  this.timeout(60_000);
  let root: string;
  let engine: CodeGraphEngine;

  beforeEach(async () => {
    root = writeWorkspace({
      'src/a.py': 'def alpha():\n    return 1\n',
      'src/b.py': 'from src.a import alpha\n\ndef beta():\n    return alpha()\n',
      'lib/util.ts': 'export function helper(): number {\n  return 1;\n}\n',
      'lib/more.ts': 'export const more = 2;\n',
      '.gitignore': 'generated/\n*.tmp.py\n',
    });
    engine = new CodeGraphEngine({ root, typeCheck: false });
    await engine.open();
    await engine.ingest();
    await engine.watch({ debounceMs: 20 });
  });
  afterEach(async () => {
    await engine.close();
    removeWorkspace(root);
  });

  it('re-ingests an added file and a changed one', async () => {
    writeFiles(root, { 'src/c.py': 'def gamma():\n    return 3\n' });
    await untilStale(engine);
    let fresh = await engine.ensureFresh();
    assert.deepEqual(fresh.reingested, ['src/c.py']);
    assert.ok(engine.getNode('function:src/c.py#gamma'));

    writeFiles(root, { 'src/a.py': 'def alpha():\n    return 1\n\ndef alpha_two():\n    return 2\n' });
    await untilStale(engine);
    fresh = await engine.ensureFresh();
    assert.deepEqual(fresh.reingested, ['src/a.py']);
    assert.ok(engine.getNode('function:src/a.py#alpha_two'));
    assert.equal(engine.seek('alpha two').stale, false);
  });

  it('removes a deleted file and follows a renamed one', async () => {
    unlinkSync(join(root, 'src/b.py'));
    await untilStale(engine);
    await engine.ensureFresh();
    assert.equal(engine.getNode('file:src/b.py'), null);
    assert.equal(engine.getNode('function:src/b.py#beta'), null);

    renameSync(join(root, 'lib/util.ts'), join(root, 'lib/tools.ts'));
    await untilStale(engine);
    await engine.ensureFresh();
    assert.equal(engine.getNode('file:lib/util.ts'), null);
    assert.ok(engine.getNode('function:lib/tools.ts#helper'));
  });

  it('walks a folder that was renamed, deleted or created with files in it', async () => {
    renameSync(join(root, 'lib'), join(root, 'pkg'));
    await untilStale(engine);
    await engine.ensureFresh();
    assert.deepEqual(files(engine).filter((p) => p.startsWith('lib/') || p.startsWith('pkg/')).sort(), ['pkg/more.ts', 'pkg/util.ts']);

    rmSync(join(root, 'pkg'), { recursive: true });
    await untilStale(engine);
    await engine.ensureFresh();
    assert.deepEqual(files(engine).filter((p) => p.startsWith('pkg/')), []);

    mkdirSync(join(root, 'fresh/deep'), { recursive: true });
    writeFiles(root, { 'fresh/deep/new.py': 'def newcomer():\n    return 0\n' });
    await untilStale(engine);
    await engine.ensureFresh();
    assert.ok(engine.getNode('function:fresh/deep/new.py#newcomer'));
  });

  it('never marks paths .gitignore or the skip list leave out', async () => {
    writeFiles(root, {
      'generated/out.py': 'def generated_thing():\n    return 0\n',
      'src/scratch.tmp.py': 'def scratch_thing():\n    return 0\n',
      'node_modules/dep/index.ts': 'export const dep = 1;\n',
      '.cache/x.py': 'def cached_thing():\n    return 0\n',
    });
    // A file that is watched, written last: once it is marked, the others' events have been seen too.
    writeFiles(root, { 'src/late.py': 'def late():\n    return 0\n' });
    await untilStale(engine);
    await new Promise((r) => setTimeout(r, 200));
    const fresh = await engine.ensureFresh();
    assert.deepEqual(fresh.reingested, ['src/late.py']);
    assert.ok(engine.getNode('function:src/late.py#late'));
    for (const p of ['generated/out.py', 'src/scratch.tmp.py', 'node_modules/dep/index.ts', '.cache/x.py']) assert.equal(engine.getNode(`file:${p}`), null, p);
  });

  it('re-reads the rules when a .gitignore changes', async () => {
    writeFiles(root, { '.gitignore': 'generated/\n*.tmp.py\nlib/\n' });
    await untilStale(engine);
    await engine.ensureFresh();
    assert.deepEqual(files(engine).filter((p) => p.startsWith('lib/')), []);
    writeFiles(root, { 'lib/util.ts': 'export function helper(): number {\n  return 2;\n}\n', 'src/after.py': 'def after():\n    return 0\n' });
    await untilStale(engine);
    const fresh = await engine.ensureFresh();
    assert.deepEqual(fresh.reingested, ['src/after.py']);
  });
});
