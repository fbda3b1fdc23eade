import assert from 'node:assert/strict';
import { CodeGraph } from '../../../plugins/graph/engine/graph.ts';
import { ownShare } from '../../../plugins/federation/nested-roots.ts';
import { threadMs } from '../../helpers/ping.ts';

/** `files` files of 9 functions each, a tenth of them under `lib/`; each function calls the next one. */
function bigGraph(files: number): CodeGraph {
  const g = new CodeGraph();
  for (let f = 0; f < files; f++) {
    const path = f % 10 === 0 ? `lib/m${f}.py` : `app/m${f}.py`;
    g.upsertNode({ id: `file:${path}`, kind: 'file', label: `m${f}.py`, path, startLine: 1, endLine: 90, language: 'python' });
    for (let s = 0; s < 9; s++) {
      const at = g.upsertNode({ id: `function:${path}#f${s}`, kind: 'function', label: `f${s}`, path, startLine: s * 10 + 1, endLine: s * 10 + 9, language: 'python' });
      if (s > 0) g.addEdge(at - 1, at, 0, 1);
    }
  }
  return g;
}

describe("federate's count of what a member holds of its own and of the members nested in it", function () {
  this.timeout(60000);

  it('counts a nested folder\'s files and nodes for its member, and holds the loop in short slices on a 100K-node graph', async () => {
    const g = bigGraph(10_000);
    let longest = 0;
    let on = true;
    const loop = (async () => {
      for (let c = threadMs(); on; ) {
        await new Promise((r) => setTimeout(r, 1));
        const now = threadMs();
        longest = Math.max(longest, now - c);
        c = now;
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    longest = 0;
    const share = await ownShare(g, [{ folder: 'lib/', member: 'lib' }]);
    on = false;
    await loop;
    assert.deepEqual(share, { nodes: 90_000, edges: 72_000, nested: [{ repo: 'lib', folder: 'lib/', files: 1000, nodes: 10_000 }] });
    // In one piece the pass held this graph ~40 ms; in 8 ms slices a stretch is a slice and a timer's turn.
    assert.ok(longest < 25, `the pass held the loop ${longest.toFixed(1)} ms in one stretch`);
  });
});
