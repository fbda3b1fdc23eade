import assert from 'node:assert/strict';
import { graphDelta, type FilesSnapshot } from '../../../plugins/edit/graph-delta.ts';

/** A snapshot of src/a.ts: `symbols` id → text hash, and the edges leaving them. */
function snap(symbols: Record<string, string>, edges: string[]): FilesSnapshot {
  return {
    symbols: new Map(Object.entries(symbols).map(([id, text], i) => [id, { id, kind: 'function', lines: [i * 10 + 1, i * 10 + 5] as [number, number], text }])),
    edges: new Set(edges),
    dependents: new Map(),
    tests: new Map(),
  };
}

describe('the graph delta of a write while the type checker has not re-linked the written files', () => {
  const a = 'function:src/a.ts#check';
  const b = 'function:src/a.ts#run';
  const c = 'function:src/a.ts#old';
  const before = snap({ [a]: 'h1', [b]: 'h2', [c]: 'h3' }, [`${a} calls method:src/item.ts#Item.is`, `${b} calls method:src/item.ts#Item.make`, `${b} calls ${c}`, `${c} calls function:src/x.ts#x`]);
  // run() was edited and old() removed; the re-ingest's name-resolved graph lost the checker's edges of check() and run().
  const after = snap({ [a]: 'h1', [b]: 'h2-edited' }, []);

  it('counts an unchanged symbol\'s lost edge as pending, and an edited or removed symbol\'s, or one into a removed symbol, as removed', () => {
    const d = graphDelta(before, after, true);
    assert.equal(d.edges.pending_relink, 1);
    assert.equal(d.edges.removed, 3);
    assert.deepEqual(d.edges.sample_removed.sort(), [`${b} calls ${c}`, `${b} calls method:src/item.ts#Item.make`, `${c} calls function:src/x.ts#x`].sort());
  });

  it('counts every lost edge as removed once the checker has settled', () => {
    const d = graphDelta(before, after);
    assert.equal(d.edges.pending_relink, undefined);
    assert.equal(d.edges.removed, 4);
  });
});
