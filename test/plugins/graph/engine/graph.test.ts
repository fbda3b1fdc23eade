import { strict as assert } from 'node:assert';
import { CodeGraph, RELATION_CODE, fileNodeId, moduleNodeId, symbolNodeId, type GraphNode } from '../../../../plugins/graph/engine/graph.ts';

function node(id: string): GraphNode {
  return { id, kind: 'file', label: id, path: id, startLine: 1, endLine: 1, language: 'python' };
}

describe('CodeGraph', () => {
  it('builds ids in the documented forms', () => {
    assert.equal(fileNodeId('src/a.py'), 'file:src/a.py');
    assert.equal(moduleNodeId(''), 'module:.');
    assert.equal(moduleNodeId('src'), 'module:src');
    assert.equal(symbolNodeId('function', 'src/a.py', 'Foo.bar'), 'function:src/a.py#Foo.bar');
  });

  it('answers out- and in-edges through the CSR after finalize', () => {
    const g = new CodeGraph();
    const a = g.upsertNode(node('a'));
    const b = g.upsertNode(node('b'));
    const c = g.upsertNode(node('c'));
    g.addEdge(a, b, RELATION_CODE.calls, 1);
    g.addEdge(a, c, RELATION_CODE.imports, 0.8);
    g.addEdge(c, b, RELATION_CODE.calls, 0.5);
    g.finalize();
    const out: number[] = [];
    g.forEachOut(a, (t) => out.push(t));
    assert.deepEqual(out.sort(), [b, c].sort());
    const into: [number, number][] = [];
    g.forEachIn(b, (s, w) => into.push([s, Math.round(w * 10) / 10]));
    assert.deepEqual(into.sort(), [[a, 1], [c, 0.5]].sort());
    assert.equal(g.outDegree(a), 2);
    assert.equal(g.inDegree(b), 2);
    assert.deepEqual(g.outgoing('a', 'imports'), [{ source: 'a', target: 'c', relation: 'imports', weight: g.edgeWeight[1] }]);
  });

  it('builds the same adjacency in steps as in one go, and keeps the previous one until the last step', () => {
    const make = (): CodeGraph => {
      const g = new CodeGraph();
      for (let i = 0; i < 3000; i++) g.upsertNode(node(`n${i}`));
      for (let e = 0; e < 40_000; e++) g.addEdge((e * 7) % 3000, (e * 13 + 1) % 3000, RELATION_CODE.calls, 1);
      for (let e = 0; e < 40_000; e += 5) g.removeEdge(e);
      return g;
    };
    const whole = make();
    whole.finalize();
    const stepped = make();
    const steps = stepped.finalizeSteps();
    let yields = 0;
    while (!steps.next().done) {
      yields++;
      assert.equal(stepped.needsFinalize, true, 'the new adjacency appears only at the last step');
    }
    assert.ok(yields >= 4, `40,000 edge slots in ${yields} steps`);
    assert.equal(stepped.needsFinalize, false);
    assert.deepEqual([stepped.outOffsets, stepped.outEdges, stepped.inOffsets, stepped.inEdges], [whole.outOffsets, whole.outEdges, whole.inOffsets, whole.inEdges]);
  });

  it('builds the adjacency again when the graph changes between two steps', () => {
    const g = new CodeGraph();
    for (let i = 0; i < 100; i++) g.upsertNode(node(`n${i}`));
    for (let e = 0; e < 20_000; e++) g.addEdge(e % 100, (e + 1) % 100, RELATION_CODE.calls, 1);
    const steps = g.finalizeSteps();
    steps.next();
    const late = g.addEdge(5, 50, RELATION_CODE.imports, 1);
    while (!steps.next().done);
    const out: number[] = [];
    g.forEachOut(5, (_t, _w, _r, edge) => out.push(edge));
    assert.ok(out.includes(late), 'the edge added between two steps is in the adjacency');
    assert.equal(g.edgeCount, 20_001);
  });

  it('keeps a node index when the same id is upserted again', () => {
    const g = new CodeGraph();
    const a = g.upsertNode(node('a'));
    const again = g.upsertNode({ ...node('a'), endLine: 9 });
    assert.equal(again, a);
    assert.equal(g.get('a')!.endLine, 9);
    assert.equal(g.nodeCount, 1);
  });

  it('removes a node with every edge touching it, including edges added since the last finalize', () => {
    const g = new CodeGraph();
    const a = g.upsertNode(node('a'));
    const b = g.upsertNode(node('b'));
    const c = g.upsertNode(node('c'));
    g.addEdge(a, b, 0, 1);
    g.finalize();
    g.addEdge(c, b, 0, 1);
    const removed = g.removeNode(b);
    assert.equal(removed.length, 2);
    g.finalize();
    assert.equal(g.edgeCount, 0);
    assert.equal(g.node(b), null);
    assert.equal(g.indexOf('b'), -1);
    assert.equal(g.nodeCount, 2);
  });

  it('compacts dead edge slots and returns the id remapping', () => {
    const g = new CodeGraph();
    const a = g.upsertNode(node('a'));
    const b = g.upsertNode(node('b'));
    const e0 = g.addEdge(a, b, 0, 1);
    const e1 = g.addEdge(b, a, 2, 0.5);
    g.removeEdge(e0);
    const remap = g.compactEdges();
    assert.equal(remap[e0], -1);
    assert.equal(remap[e1], 0);
    assert.equal(g.edgeCapacity, 1);
    assert.deepEqual(g.edge(0), { source: 'b', target: 'a', relation: 'calls', weight: 0.5 });
  });
});
