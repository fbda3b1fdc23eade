import assert from 'node:assert/strict';
import { featuresOf, signatures, similarPairs, similarPairsPaced, warmSignatures } from '../../../../plugins/graph/algorithms/signatures.ts';
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
    const plain = graph();
    const direct = signatures(plain);
    const g = graph();
    let paces = 0;
    await warmSignatures(g, async () => {
      paces++;
    });
    assert.ok(paces >= 2, `paced ${paces} times`);
    const warmed = signatures(g);
    let withFeatures = 0;
    for (let i = 0; i < g.nodeCapacity; i++) {
      const f = featuresOf(warmed, i);
      assert.deepEqual(f && Array.from(f), featuresOf(direct, i) && Array.from(featuresOf(direct, i)!), `node ${i}`);
      if (!f) continue;
      withFeatures++;
      // Sorted and distinct: one feature per (relation, target kind, target label) the node has.
      for (let k = 1; k < f.length; k++) assert.ok(f[k - 1] < f[k], `node ${i} sorted, distinct`);
      const distinct = new Set<string>();
      for (let k = plain.outOffsets[i]; k < plain.outOffsets[i + 1]; k++) {
        const e = plain.outEdges[k];
        const t = plain.node(plain.edgeTarget[e])!;
        distinct.add(`${plain.edgeRelation[e]} ${t.kind} ${t.label}`);
      }
      assert.equal(f.length, distinct.size, `node ${i}: one feature per distinct relation and target`);
    }
    assert.ok(withFeatures > 5_000);
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
