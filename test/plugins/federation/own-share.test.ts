import assert from 'node:assert/strict';
import { CodeGraph } from '../../../plugins/graph/engine/graph.ts';
import { ownShare } from '../../../plugins/federation/nested-roots.ts';
import { gcPauses, ownHeld, threadMs } from '../../helpers/ping.ts';

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

  it('counts a nested folder\'s files and nodes for its member, and holds the loop in short slices on a 500K-node graph', async () => {
    const g = bigGraph(50_000);
    const held: number[] = [];
    const spans: [number, number][] = [];
    let on = true;
    const loop = (async () => {
      for (let c = threadMs(), w = performance.now(); on; ) {
        await new Promise((r) => setTimeout(r, 1));
        const now = threadMs();
        const end = performance.now();
        held.push(now - c);
        spans.push([w, end]);
        c = now;
        w = end;
      }
    })();
    await new Promise((r) => setTimeout(r, 20));
    const pauses = gcPauses();
    const from = held.length;
    const t0 = performance.now();
    const share = await ownShare(g, [{ folder: 'lib/', member: 'lib' }]);
    const took = performance.now() - t0;
    // Timer turns while the pass ran: none when it runs in one piece.
    const turns = held.length - from;
    on = false;
    await loop;
    // Collections of the test process's whole heap (every earlier suite's, in a full run) are not the pass's.
    const longest = Math.max(...ownHeld(held.slice(from), await pauses.within(spans.slice(from))));
    assert.deepEqual(share, { nodes: 450_000, edges: 360_000, nested: [{ repo: 'lib', folder: 'lib/', files: 5000, nodes: 50_000 }] });
    // In one piece (before 40a3c1e) the pass gave no turn: 26 ms here, 22 of them the pass's own; in 8 ms slices 4 turns, 8 ms at most.
    assert.ok(turns >= 1, `${turns} timer turns in the pass's ${took.toFixed(0)} ms`);
    assert.ok(longest < 30, `the pass held the loop ${longest.toFixed(1)} ms in one stretch`);
  });
});
