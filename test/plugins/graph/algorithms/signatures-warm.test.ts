import assert from 'node:assert/strict';
import { signatures, similarPairs, similarPairsPaced, warmSignatures } from '../../../../plugins/graph/algorithms/signatures.ts';
import { CodeGraph, RELATION_CODE } from '../../../../plugins/graph/engine/graph.ts';

/** Functions calling and referencing each other by a few shared labels: 6,000 comparable nodes over several steps. */
function graph(): CodeGraph {
  const g = new CodeGraph();
  const n = 6_000;
  for (let i = 0; i < n; i++) g.upsertNode({ id: `function:m${i % 40}.py#f${i}`, kind: 'function', label: `f${i % 300}`, path: `m${i % 40}.py`, startLine: i, endLine: i + 3, language: 'python' });
  for (let i = 0; i < n; i++) {
    g.addEdge(i, (i * 7 + 1) % n, RELATION_CODE.calls, 1);
    if (i % 3 === 0) g.addEdge(i, (i * 13 + 5) % n, RELATION_CODE.references, 0.5);
  }
  g.finalize();
  return g;
}

describe('warmSignatures', () => {
  it('makes the same features as signatures, paced between steps, and caches them', async () => {
    const direct = signatures(graph()).features;
    const g = graph();
    let paces = 0;
    await warmSignatures(g, async () => {
      paces++;
    });
    assert.ok(paces >= 2, `paced ${paces} times`);
    const warmed = signatures(g);
    assert.equal(warmed.features.length, direct.length);
    assert.ok(direct.filter(Boolean).length > 5_000);
    for (let i = 0; i < direct.length; i++) assert.deepEqual(warmed.features[i], direct[i], `node ${i}`);
    assert.equal(signatures(g), warmed, 'cached for the graph version');
  });
});

describe('similarPairsPaced', () => {
  it('finds the pairs similarPairs finds, pacing between steps', async () => {
    const expected = similarPairs(graph(), 0.3, { limit: 200 });
    assert.ok(expected.pairs.length > 20 && expected.candidates > 2_000, `${expected.pairs.length} pairs of ${expected.candidates}`);
    let paces = 0;
    const got = await similarPairsPaced(graph(), 0.3, { limit: 200 }, async () => {
      paces++;
    });
    assert.deepEqual(got, expected);
    assert.ok(paces >= 5, `paced ${paces} times`);
  });
});
