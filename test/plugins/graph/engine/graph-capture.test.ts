import { strict as assert } from 'node:assert';
import { captureGraph, digestGraph, digestGraphPaced } from '../../../../plugins/graph/algorithms/summary.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { CodeGraph, RELATION_CODE } from '../../../../plugins/graph/engine/graph.ts';
import { removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

describe('a captured graph (the session baseline drift compares with)', () => {
  it('digests later exactly as the graph digested at the moment of the capture, whatever changed since', async () => {
    const root = writeWorkspace({
      'app/orders.py': 'from app.stock import reserve\n\ndef place_order(item):\n    return reserve(item)\n',
      'app/stock.py': 'def reserve(item):\n    return item\n',
    });
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    try {
      await e.ingest();
      const now = digestGraph(e.graph, 1);
      const capture = captureGraph(e.graph);
      writeFiles(root, { 'app/stock.py': 'def reserve(item, count):\n    return release(item)\n\ndef release(item):\n    return item\n' });
      await e.ingest({ paths: ['app/stock.py'] });
      const strip = (d: ReturnType<typeof digestGraph>) => ({ ...d, at: 0 });
      assert.deepEqual(strip(digestGraph(capture, 1)), strip(now));
      assert.notDeepEqual(digestGraph(e.graph, 1).files.get('app/stock.py'), now.files.get('app/stock.py'));
    } finally {
      await e.close();
      removeWorkspace(root);
    }
  });

  it('digests paced exactly as in one go, over many steps, and a live graph as it was when the digest began', async () => {
    const g = new CodeGraph();
    for (let f = 0; f < 300; f++) {
      const file = g.upsertNode({ id: `file:m${f}.py`, kind: 'file', label: `m${f}.py`, path: `m${f}.py`, startLine: 1, endLine: 200, language: 'python' });
      for (let k = 0; k < 100; k++) {
        const i = g.upsertNode({ id: `function:m${f}.py#f${k}`, kind: 'function', label: `f${k}`, path: `m${f}.py`, startLine: k * 2 + 1, endLine: k * 2 + 2, language: 'python' });
        g.addEdge(file, i, RELATION_CODE.contains, 1);
        if (k > 0) g.addEdge(i, i - 1, RELATION_CODE.calls, 0.5 + (k % 3) / 4);
      }
    }
    g.finalize();
    const strip = (d: ReturnType<typeof digestGraph>) => ({ ...d, at: 0 });
    const expected = strip(digestGraph(g, 7));
    let paces = 0;
    const got = await digestGraphPaced(g, 7, async () => {
      // The graph changes under the paced digest: the digest still describes the moment it began.
      if (++paces === 2) {
        g.upsertNode({ id: 'function:late.py#x', kind: 'function', label: 'x', path: 'late.py', startLine: 1, endLine: 2, language: 'python' });
        g.finalize();
      }
    });
    assert.ok(paces >= 5, `paced ${paces} times`);
    assert.deepEqual(strip(got), expected);
    assert.ok(!got.files.has('late.py'));
  });
});
