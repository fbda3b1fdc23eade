import assert from 'node:assert/strict';
import { lexicalSeeds, warmSeedIndex } from '../../../../plugins/graph/algorithms/seed-index.ts';
import { CodeGraph } from '../../../../plugins/graph/engine/graph.ts';

const WORDS = ['parse', 'header', 'email', 'message', 'encode', 'decode', 'token', 'stream', 'buffer', 'policy'];

/** 6,000 functions named from a small vocabulary, with some names shared by thousands of nodes (long posting lists). */
function graph(): CodeGraph {
  const g = new CodeGraph();
  for (let i = 0; i < 6_000; i++) {
    const name = `${WORDS[i % WORDS.length]}_${WORDS[(i * 7) % WORDS.length]}_${i % 97}`;
    g.upsertNode({ id: `function:pkg/m${i % 60}.py#${name}_${i}`, kind: 'function', label: name, path: `pkg/m${i % 60}.py`, startLine: i, endLine: i + 2, language: 'python' });
  }
  g.finalize();
  return g;
}

describe('warmSeedIndex', () => {
  it('builds, paced between steps, the index a first lexicalSeeds call would build: same hits', async () => {
    const queries = ['parse header', 'email message encode', 'tok', 'stream_buffer', 'policy decode 42'];
    const direct = graph();
    const expected = queries.map((q) => lexicalSeeds(direct, q, 25));
    assert.ok(expected.every((hits) => hits.length > 0));
    const g = graph();
    let paces = 0;
    await warmSeedIndex(g, async () => {
      paces++;
    });
    assert.ok(paces >= 5, `paced ${paces} times`);
    queries.forEach((q, k) => assert.deepEqual(lexicalSeeds(g, q, 25), expected[k], q));
  });

  it('gives up when the graph changes meanwhile, and the next read builds for the new version', async () => {
    const g = graph();
    let paces = 0;
    await warmSeedIndex(g, async () => {
      if (++paces !== 2) return;
      g.upsertNode({ id: 'function:pkg/late.py#zebra_parse', kind: 'function', label: 'zebra_parse', path: 'pkg/late.py', startLine: 1, endLine: 2, language: 'python' });
      g.finalize(); // a change lands as the engine makes it: nodes, then a new version
    });
    assert.equal(paces, 2, 'stopped at the first step after the change');
    assert.ok(lexicalSeeds(g, 'zebra', 5).some((h) => g.node(h.index)?.label === 'zebra_parse'));
  });

  it('does nothing when an index already exists', async () => {
    const g = graph();
    lexicalSeeds(g, 'parse', 5);
    let paces = 0;
    await warmSeedIndex(g, async () => {
      paces++;
    });
    assert.equal(paces, 0);
  });
});
