import assert from 'node:assert/strict';
import { CodeGraph, RELATION_CODE, type GraphNode } from '../../../plugins/graph/engine/graph.ts';
import { LexicalIndex } from '../../../plugins/graph/engine/lexical-index.ts';
import { buildComposite } from '../../../plugins/graph/federated-view-build.ts';
import { CompositeGraph } from '../../../plugins/graph/federated-composite.ts';
import type { FederationMember } from '../../../plugins/graph/federated-view-names.ts';

function fn(path: string, name: string, line: number): GraphNode {
  return { id: `function:${path}#${name}`, kind: 'function', label: name, path, startLine: line, endLine: line + 2, language: 'typescript', qualifiedName: name, exported: true };
}

/** A member graph: a file and two functions, the first calling the second; an emptied slot between them. */
function memberGraph(path: string, first: string, second: string): CodeGraph {
  const g = new CodeGraph();
  const file = g.upsertNode({ id: `file:${path}`, kind: 'file', label: path.split('/').pop()!, path, startLine: 1, endLine: 9, language: 'typescript' });
  const gone = g.upsertNode(fn(path, 'removed', 7));
  const a = g.upsertNode(fn(path, first, 1));
  const b = g.upsertNode(fn(path, second, 4));
  g.addEdge(file, a, RELATION_CODE.contains, 1);
  g.addEdge(a, b, RELATION_CODE.calls, 1);
  g.addEdge(gone, b, RELATION_CODE.calls, 1);
  g.removeNode(gone);
  g.finalize();
  return g;
}

const member = (name: string, graph: CodeGraph): FederationMember => ({ name, own: false, engine: { graph } as unknown as FederationMember['engine'] });

describe('the federated view\'s composite graph', () => {
  const lib = memberGraph('src/index.ts', 'parseLedger', 'normalise');
  const app = memberGraph('src/main.ts', 'importLedger', 'format');
  const links = [{ source: 'app::function:src/main.ts#format', target: 'lib::function:src/index.ts#parseLedger', relation: 'calls' as const }];

  it('answers every member node under its <repo>:: id and path, found again by that id', async () => {
    const { graph } = await buildComposite([member('lib', lib), member('app', app)], links);
    assert.equal(graph.nodeCount, lib.nodeCount + app.nodeCount);
    assert.equal(graph.nodeCapacity, lib.nodeCapacity + app.nodeCapacity);
    const ids = [...graph.nodes()].map(([, n]) => n.id).sort();
    assert.deepEqual(ids, [
      'app::file:src/main.ts', 'app::function:src/main.ts#format', 'app::function:src/main.ts#importLedger',
      'lib::file:src/index.ts', 'lib::function:src/index.ts#normalise', 'lib::function:src/index.ts#parseLedger',
    ]);
    for (const [i, n] of graph.nodes()) {
      assert.equal(graph.indexOf(n.id), i);
      assert.equal(n.path, `${n.id.split('::')[0]}::${n.id.includes('main') ? 'src/main.ts' : 'src/index.ts'}`);
    }
    const parse = graph.get('lib::function:src/index.ts#parseLedger')!;
    assert.deepEqual({ ...parse, id: '', path: '' }, { ...lib.get('function:src/index.ts#parseLedger')!, id: '', path: '' });
    assert.equal(graph.indexOf('function:src/index.ts#parseLedger'), -1, 'an id without its repository');
    assert.equal(graph.indexOf('other::function:src/index.ts#parseLedger'), -1, 'a repository not in the view');
    assert.equal(graph.get('lib::function:src/index.ts#removed'), null, 'an emptied member slot');
  });

  it('reads the member nodes in place: the key of a node is the member\'s own node object, the same on every read', async () => {
    const { graph } = await buildComposite([member('lib', lib), member('app', app)], links);
    const i = graph.indexOf('app::function:src/main.ts#format');
    assert.equal(graph.nodeKey(i), app.get('function:src/main.ts#format'));
    assert.equal(graph.nodeKey(i), graph.nodeKey(i));
  });

  it('keeps every live member edge and adds the cross-repository links', async () => {
    const { graph, counts } = await buildComposite([member('lib', lib), member('app', app)], links);
    assert.deepEqual(counts, { depends_on: 0, imports: 0, calls: 1, inherits: 0, references: 0 });
    const edges = Array.from({ length: graph.edgeCapacity }, (_, e) => graph.edge(e)).filter((e) => e !== null).map((e) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::file:src/main.ts -contains-> app::function:src/main.ts#importLedger',
      'app::function:src/main.ts#format -calls-> lib::function:src/index.ts#parseLedger',
      'app::function:src/main.ts#importLedger -calls-> app::function:src/main.ts#format',
      'lib::file:src/index.ts -contains-> lib::function:src/index.ts#parseLedger',
      'lib::function:src/index.ts#parseLedger -calls-> lib::function:src/index.ts#normalise',
    ]);
    assert.deepEqual(graph.incoming('lib::function:src/index.ts#parseLedger', 'calls').map((e) => e.source), ['app::function:src/main.ts#format']);
  });

  it('is a snapshot: a node a member adds after the build is not in it, and the composite itself refuses changes', async () => {
    const g = memberGraph('src/a.ts', 'one', 'two');
    const { graph } = await buildComposite([member('m', g)], []);
    g.upsertNode(fn('src/a.ts', 'three', 8));
    g.finalize();
    assert.equal(graph.indexOf('m::function:src/a.ts#three'), -1);
    assert.equal(graph.nodeCount, 3);
    assert.throws(() => graph.upsertNode(fn('src/a.ts', 'four', 9)), /read-only/);
    assert.throws(() => graph.removeNode(0), /read-only/);
  });

  it('is indexed for seek, with namespaced results', async () => {
    const { graph } = await buildComposite([member('lib', lib), member('app', app)], links);
    const index = new LexicalIndex(() => null);
    index.ensure(graph);
    const hits = index.query(graph, 'parse ledger', null, { topK: 3 });
    assert.equal(hits[0]?.id, 'lib::function:src/index.ts#parseLedger');
    assert.equal(hits[0]?.path, 'lib::src/index.ts');
  });

  describe('with members nested in another one (ws, ws/a, ws/a/b, ws/c)', () => {
    /** A graph of files, one function each (`<path>#f`), with the edges given between the functions. */
    function graphOf(paths: string[], calls: [string, string][]): CodeGraph {
      const g = new CodeGraph();
      g.upsertNode({ id: 'module:.', kind: 'module', label: '.', path: '.', startLine: 0, endLine: 0, language: null });
      for (const p of paths) {
        const file = g.upsertNode({ id: `file:${p}`, kind: 'file', label: p, path: p, startLine: 1, endLine: 3, language: 'typescript' });
        g.addEdge(file, g.upsertNode(fn(p, 'f', 1)), RELATION_CODE.contains, 1);
      }
      for (const [from, to] of calls) g.addEdge(g.indexOf(`function:${from}#f`), g.indexOf(`function:${to}#f`), RELATION_CODE.calls, 1);
      g.finalize();
      return g;
    }
    const nestedIn = (m: FederationMember, nested: { folder: string; member: string }[]): FederationMember => ({ ...m, nested });
    // ws holds everyone's files; a holds b's; each member's graph as its own ingest makes it.
    const ws = graphOf(['x.ts', 'a/y.ts', 'a/b/z.ts', 'c/w.ts', 'a/gone.ts'], [['x.ts', 'a/y.ts'], ['a/y.ts', 'a/b/z.ts'], ['c/w.ts', 'a/y.ts'], ['a/b/z.ts', 'x.ts'], ['x.ts', 'a/gone.ts']]);
    const a = graphOf(['y.ts', 'b/z.ts'], [['y.ts', 'b/z.ts']]);
    const b = graphOf(['z.ts'], []);
    const c = graphOf(['w.ts'], []);
    const members = () => [
      nestedIn(member('ws', ws), [{ folder: 'a/', member: 'a' }, { folder: 'a/b/', member: 'b' }, { folder: 'c/', member: 'c' }]),
      nestedIn(member('a', a), [{ folder: 'b/', member: 'b' }]),
      member('b', b),
      member('c', c),
    ];

    it("holds each file once, under its nearest root's member, and counts what each member gave", async () => {
      const { graph } = await buildComposite(members(), []);
      const ids = [...graph.nodes()].map(([, n]) => n.id).filter((id) => id.includes('#')).sort();
      assert.deepEqual(ids, ['a::function:y.ts#f', 'b::function:z.ts#f', 'c::function:w.ts#f', 'ws::function:x.ts#f']);
      assert.equal(graph.nodeCount, 3 + 3 + 3 + 3);
      assert.ok(graph instanceof CompositeGraph);
      const counts = graph.memberCounts();
      assert.deepEqual(counts[0], { name: 'ws', nodes: 3, nested: [
        // x→a/y, and a/y→a/b/z (between two nested folders, counted for the first).
        { repo: 'a', folder: 'a/', files: 2, nodes: 4, edges: 2 },
        { repo: 'b', folder: 'a/b/', files: 1, nodes: 2, edges: 1 },
        { repo: 'c', folder: 'c/', files: 1, nodes: 2, edges: 1 },
      ] });
    });

    it("ties the outer member's edges into a nested folder to that member's nodes, once, and leaves a missing counterpart out", async () => {
      const link = { source: 'ws::function:x.ts#f', target: 'a::function:y.ts#f', relation: 'calls' as const };
      const { graph, counts } = await buildComposite(members(), [link]);
      const calls = Array.from({ length: graph.edgeCapacity }, (_, e) => graph.edge(e)).filter((e) => e?.relation === 'calls').map((e) => `${e!.source} -> ${e!.target}`).sort();
      assert.deepEqual(calls, [
        'a::function:y.ts#f -> b::function:z.ts#f',
        'b::function:z.ts#f -> ws::function:x.ts#f',
        'c::function:w.ts#f -> a::function:y.ts#f',
        'ws::function:x.ts#f -> a::function:y.ts#f',
      ]);
      // The link standing for an edge ws's graph ties already is counted, not added twice.
      assert.equal(counts.calls, 1);
      assert.equal(graph.get('ws::function:a/y.ts#f'), null);
    });
  });
});
