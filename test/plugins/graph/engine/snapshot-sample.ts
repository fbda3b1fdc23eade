/** A sample graph for the snapshot tests (shared with the child process that measures memory). */
import { CodeGraph, type GraphNode } from '../../../../plugins/graph/engine/graph.ts';
import type { SnapshotFacts } from '../../../../plugins/graph/engine/graph-snapshot.ts';

/** A graph with every optional node field, UTF-16 strings (a surrogate pair too), empty slots and dead edges. */
export function sampleGraph(files: number): CodeGraph {
  const g = new CodeGraph();
  for (let f = 0; f < files; f++) {
    const path = `pkg/m${f}.py`;
    const file = g.upsertNode({ id: `file::${path}`, kind: 'file', label: `m${f}.py`, path, startLine: 1, endLine: 40 + f, language: 'python', lastCommitAt: 1_700_000_000 + f, commitCount: f % 7, isTest: f % 5 === 0 });
    let prev = file;
    for (let s = 0; s < 12; s++) {
      const name = s % 4 === 0 ? `naïve_${s}` : s % 4 === 1 ? `数据_${f}_${s}` : s % 4 === 2 ? `emoji_😀_${s}` : `plain_${s}`;
      const node: GraphNode = { id: `${path}::${name}`, kind: s % 3 === 0 ? 'class' : 'function', label: name, path, startLine: s + 1, endLine: s + 2, language: 'python', qualifiedName: `m${f}.${name}` };
      if (s % 2 === 0) node.doc = `Doc of ${name}: ${'x'.repeat(s * 17)}`;
      if (s % 5 === 0) node.exported = s % 10 === 0;
      if (s === 7) node.signatures = [`def ${name}(a)`, `def ${name}(a, b) → ok`];
      const i = g.upsertNode(node);
      g.addEdge(file, i, 0, 1);
      g.addEdge(prev, i, 2, 0.25 + s / 100);
      prev = i;
    }
  }
  // Empty slots and dead edges: the snapshot renumbers densely.
  g.removeNode(g.indexOf('pkg/m1.py::plain_3'));
  g.removeEdge(3);
  g.removeEdge(17);
  g.finalize();
  return g;
}

export const facts = (files: number): SnapshotFacts => ({
  files: Array.from({ length: files }, (_, f) => ({ path: `pkg/m${f}.py`, extractionKey: `key-${f}-é`, language: 'python' as const, parseErrors: f % 3, parseErrorLine: f, precise: f % 2 === 0 })),
  unresolved: [{ from: 'pkg/m0.py', specifier: 'missing' } as never],
  fingerprint: null,
});
