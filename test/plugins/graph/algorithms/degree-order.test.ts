import assert from 'node:assert/strict';
import { degreeOrder } from '../../../../plugins/graph/algorithms/graph-facts.ts';
import { CodeGraph, RELATION_CODE } from '../../../../plugins/graph/engine/graph.ts';

describe('degreeOrder', () => {
  it('orders live nodes by degree, ties by index, and ranks each node by its place (removed nodes unranked)', () => {
    const g = new CodeGraph();
    const n = 3_000;
    for (let i = 0; i < n; i++) g.upsertNode({ id: `function:m.py#f${i}`, kind: 'function', label: `f${i}`, path: 'm.py', startLine: i, endLine: i + 1, language: 'python' });
    for (let i = 0; i < n; i++) for (let k = 0; k < (i * 31) % 7; k++) g.addEdge(i, (i * 17 + k * 101 + 3) % n, RELATION_CODE.calls, 1);
    g.removeNode(g.indexOf('function:m.py#f10'));
    g.finalize();
    const live = [...g.nodes()].map(([i]) => i);
    const deg = (i: number) => g.inDegree(i) + g.outDegree(i);
    const expected = [...live].sort((a, b) => deg(a) - deg(b) || a - b);
    const { order, rank } = degreeOrder(g);
    assert.deepEqual([...order], expected);
    assert.equal(rank[10], -1);
    expected.forEach((v, k) => assert.equal(rank[v], k));
    assert.ok(new Set(expected.map(deg)).size > 5, 'several degrees');
  });
});
