import assert from 'node:assert/strict';
import { simulateRemoval, simulateRemovalPaced } from '../../../../plugins/graph/algorithms/reachability.ts';
import { CodeGraph, RELATION_CODE } from '../../../../plugins/graph/engine/graph.ts';

/** 40 files of 1,000 functions each, calling along a chain with some cross-file calls: walks of many steps. */
function graph(): CodeGraph {
  const g = new CodeGraph();
  const files = 40;
  const per = 1_000;
  for (let f = 0; f < files; f++) g.upsertNode({ id: `file:m${f}.py`, kind: 'file', label: `m${f}.py`, path: `m${f}.py`, startLine: 1, endLine: per, language: 'python' });
  for (let f = 0; f < files; f++) {
    for (let k = 0; k < per; k++) {
      const i = g.upsertNode({ id: `function:m${f}.py#f${k}`, kind: 'function', label: `f${k}`, path: `m${f}.py`, startLine: k, endLine: k + 1, language: 'python' });
      g.addEdge(g.indexOf(`file:m${f}.py`), i, RELATION_CODE.contains, 1);
    }
  }
  for (let f = 0; f < files; f++) {
    for (let k = 1; k < per; k++) g.addEdge(g.indexOf(`function:m${f}.py#f${k - 1}`), g.indexOf(`function:m${f}.py#f${k}`), RELATION_CODE.calls, 1);
    if (f > 0) g.addEdge(g.indexOf(`function:m${f - 1}.py#f${per - 1}`), g.indexOf(`function:m${f}.py#f0`), RELATION_CODE.calls, 1);
  }
  g.finalize();
  return g;
}

describe('simulateRemovalPaced', () => {
  it('answers as simulateRemoval does, pacing between steps of the walks', async () => {
    const removed = [graph().indexOf('function:m20.py#f500'), graph().indexOf('file:m3.py')];
    const expected = simulateRemoval(graph(), removed);
    assert.ok(expected.orphaned.length > 10_000, `orphaned ${expected.orphaned.length}`);
    const g = graph();
    let paces = 0;
    const got = await simulateRemovalPaced(g, removed, async () => {
      paces++;
    });
    assert.deepEqual(got, expected);
    assert.ok(paces >= 4, `paced ${paces} times`);
  });

  it('starts again on the new version when the graph changes meanwhile', async () => {
    const g = graph();
    const at = g.indexOf('function:m30.py#f10');
    let paces = 0;
    const got = await simulateRemovalPaced(g, [at], async () => {
      if (++paces !== 2) return;
      // A new caller of f11 from an entry point: it stays reachable after the removal.
      const extra = g.upsertNode({ id: 'function:late.py#entry', kind: 'function', label: 'entry', path: 'late.py', startLine: 1, endLine: 2, language: 'python' });
      g.addEdge(extra, g.indexOf('function:m30.py#f11'), RELATION_CODE.calls, 1);
      g.finalize();
    });
    assert.deepEqual(got, simulateRemoval(g, [at]));
    assert.ok(!got.orphaned.includes(g.indexOf('function:m30.py#f11')));
  });
});
