import { strict as assert } from 'node:assert';
import { captureGraph, digestGraph } from '../../../../plugins/graph/algorithms/summary.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
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
});
