import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { GraphStore, type FileWrite } from '../../../../plugins/graph/engine/store.ts';
import { extraction, removeWorkspace, sym, writeWorkspace } from './helpers.ts';
import { loopIterations } from '../../../helpers/loop-iterations.ts';

function writes(n: number, tag: string): FileWrite[] {
  return Array.from({ length: n }, (_, i) => {
    const path = `pkg/m${String(i).padStart(4, '0')}.py`;
    return {
      row: { path, hash: `${tag}${i}`, size: 10 + i, mtimeMs: 1, language: 'python', loc: 2, parseErrors: 0, extractionKey: `python:v:${tag}${i}` },
      extraction: extraction(path, 'python', { symbols: [sym('function', `f_${tag}_${i}`, 1, 2)] }),
    };
  });
}

describe('GraphStore file rows read without holding the thread', function () {
  this.timeout(60_000);
  let dir: string;
  let store: GraphStore;

  before(() => {
    dir = writeWorkspace({}, 'm1nd-store-rows-');
    store = new GraphStore(join(dir, 'store'));
    store.commitIngest({ upserts: writes(1000, 'a'), removes: [], meta: { root: dir, parserVersion: 'v' } });
  });
  after(() => {
    store.close();
    removeWorkspace(dir);
  });

  it('reads every row in pages, yielding between them, the same rows as one read', async () => {
    store.commitIngest({ upserts: writes(3, 'b'), removes: ['pkg/m0999.py'], meta: { root: dir, parserVersion: 'v' } });
    const loop = loopIterations();
    const sliced = await store.fileRowsSliced(0);
    loop.stop();
    assert.ok(loop.count > 0, 'the loop went round between pages');
    const whole = store.fileRows();
    assert.equal(sliced.size, 999);
    assert.deepEqual([...sliced.entries()].sort(), [...whole.entries()].sort());
    assert.equal(sliced.get('pkg/m0001.py')!.hash, 'b1');
  });

  it('looks up some paths in one statement, stored ones only', () => {
    store.commitIngest({ upserts: writes(1, 'c'), removes: [], meta: { root: dir, parserVersion: 'v' } });
    const some = store.fileRowsOf(['pkg/m0000.py', 'pkg/m0500.py', 'pkg/m0999.py', 'nowhere.py', 'pkg/m0000.py']);
    assert.deepEqual([...some.keys()].sort(), ['pkg/m0000.py', 'pkg/m0500.py']);
    assert.equal(some.get('pkg/m0000.py')!.hash, 'c0');
    assert.equal(some.get('pkg/m0500.py')!.size, 510);
    assert.equal(store.preciseRowsOf(['pkg/m0000.py']).size, 0);
    store.putPrecise([{ path: 'pkg/m0500.py', hash: 'a500', fingerprint: 'fp', edgesJson: '[]' }]);
    assert.deepEqual([...store.preciseRowsOf(['pkg/m0000.py', 'pkg/m0500.py']).keys()], ['pkg/m0500.py']);
  });
});
