import { strict as assert } from 'node:assert';
import { appendFileSync, readdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { walkCacheOf } from '../../../../plugins/graph/engine/ingest.ts';
import { detectLanguage } from '../../../../plugins/graph/engine/parsers/languages.ts';
import type { GraphStore } from '../../../../plugins/graph/engine/store.ts';
import { WalkCache, walkWorkspace, walkWorkspaceAsync, type WalkOptions } from '../../../../plugins/graph/engine/walk.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

/** Sets every directory's mtime (and the ignore files') a minute back, out of the cache's racy window. */
function age(root: string): void {
  const past = new Date(Date.now() - 60_000);
  const visit = (dir: string): void => {
    utimesSync(dir, past, past);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) visit(join(dir, e.name));
      else if (e.name === '.gitignore') utimesSync(join(dir, e.name), past, past);
    }
  };
  visit(root);
}

const comparable = (w: ReturnType<typeof walkWorkspace>) => ({ ...w, files: w.files.map((f) => ({ ...f })) });

describe('WalkCache (the incremental walk fast path)', () => {
  let root: string;
  let options: WalkOptions;
  beforeEach(() => {
    root = writeWorkspace({
      '.gitignore': 'gen_*.py\n',
      'src/a.py': 'x = 1\n',
      'src/gen_b.py': 'x = 1\n',
      'src/sub/.gitignore': 'local.py\n',
      'src/sub/local.py': 'x = 1\n',
      'src/sub/kept.py': 'x = 1\n',
      'vendor/v.py': 'x = 1\n',
      'big.py': 'x = 1\n'.repeat(400),
      'notes.txt': 'text\n',
      'go.mod': 'module m\n',
    });
    options = { root, maxFileBytes: 1000, detectLanguage, reportPruned: false };
    age(root);
  });
  afterEach(() => removeWorkspace(root));

  it('answers an unchanged tree from the cache with the same result as a listing, with fresh file stats', async () => {
    const cache = new WalkCache();
    const listed = await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
    appendFileSync(join(root, 'src/a.py'), 'y = 2\n'); // an edit changes no directory
    const cached = await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'cached');
    assert.deepEqual(comparable(cached), comparable(walkWorkspace(options)));
    assert.equal(cached.files.find((f) => f.path === 'src/a.py')?.size, statSync(join(root, 'src/a.py')).size);
    assert.notEqual(listed.files.find((f) => f.path === 'src/a.py')?.size, cached.files.find((f) => f.path === 'src/a.py')?.size);
    assert.deepEqual(cached.skipped.map((s) => `${s.path} ${s.reason}`), ['big.py too_large', 'src/gen_b.py gitignored', 'src/sub/local.py gitignored']);
  });

  it('re-lists when a file is added or deleted, or when an ignore file changes in place', async () => {
    const cache = new WalkCache();
    await walkWorkspaceAsync(options, 20, cache);
    writeFileSync(join(root, 'src/sub/new.py'), 'z = 3\n');
    let w = await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
    assert.ok(w.files.some((f) => f.path === 'src/sub/new.py'));

    age(root);
    await walkWorkspaceAsync(options, 20, cache); // records the aged tree
    unlinkSync(join(root, 'src/a.py'));
    w = await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
    assert.ok(!w.files.some((f) => f.path === 'src/a.py'));

    age(root);
    await walkWorkspaceAsync(options, 20, cache);
    writeFileSync(join(root, 'src/sub/.gitignore'), 'kept.py\n');
    w = await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
    assert.deepEqual(w.files.map((f) => f.path), ['src/sub/local.py', 'src/sub/new.py']);
  });

  it('does not cache a walk of directories changed just before it (racy timestamps)', async () => {
    const cache = new WalkCache();
    writeFileSync(join(root, 'src/c.py'), 'c = 1\n'); // src/ changed now
    await walkWorkspaceAsync(options, 20, cache);
    await walkWorkspaceAsync(options, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
  });

  it('is not used for other walk options', async () => {
    const cache = new WalkCache();
    await walkWorkspaceAsync(options, 20, cache);
    const w = await walkWorkspaceAsync({ ...options, exclude: ['src/**'] }, 20, cache);
    assert.equal(cache.lastWalk, 'listed');
    assert.deepEqual(w.files.map((f) => f.path), []);
  });
});

describe('incremental ingest with the walk cache', function () {
  this.timeout(30_000);
  let root: string;
  let engine: CodeGraphEngine;
  const lastWalk = () => walkCacheOf((engine as unknown as { loaded: { store: GraphStore } }).loaded.store).lastWalk;
  before(async () => {
    root = writeWorkspace({ 'app/main.py': 'from app.util import helper\n\ndef main():\n    return helper()\n', 'app/util.py': 'def helper():\n    return 1\n' });
    age(root);
    engine = new CodeGraphEngine({ root, storeDir: join(root, '..', `${root.split('/').pop()}-store`) });
    await engine.open();
    await engine.ingest();
  });
  after(async () => {
    await engine.close();
    removeWorkspace(`${root}-store`);
    removeWorkspace(root);
  });

  it('finds a new file, then a deleted one, then an edit in an unchanged tree from the cache', async () => {
    assert.equal((await engine.ingest({ incremental: true })).files.parsed, 0);
    writeFileSync(join(root, 'app/extra.py'), 'from app.util import helper\n\ndef extra():\n    return helper()\n');
    let s = await engine.ingest({ incremental: true });
    assert.equal(lastWalk(), 'listed');
    assert.equal(s.files.parsed, 1);
    assert.ok(engine.getNode('function:app/extra.py#extra'), 'the new file is in the graph');

    age(root);
    await engine.ingest({ incremental: true }); // records the aged tree
    unlinkSync(join(root, 'app/extra.py'));
    s = await engine.ingest({ incremental: true });
    assert.equal(lastWalk(), 'listed');
    assert.equal(s.files.removed, 1);
    assert.equal(engine.getNode('function:app/extra.py#extra'), null);

    age(root);
    await engine.ingest({ incremental: true });
    s = await engine.ingest({ incremental: true });
    assert.equal(lastWalk(), 'cached');
    assert.equal(s.files.parsed, 0);
    assert.equal(s.files.scanned, 2);
    appendFileSync(join(root, 'app/util.py'), '\ndef more():\n    return 2\n');
    s = await engine.ingest({ incremental: true });
    assert.equal(lastWalk(), 'cached');
    assert.equal(s.files.parsed, 1);
    assert.ok(engine.getNode('function:app/util.py#more'), 'the edit is in the graph');
  });
});
