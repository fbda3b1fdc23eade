import { strict as assert } from 'node:assert';
import { CodeGraph } from '../../../../plugins/graph/engine/graph.ts';
import { sortStrings } from '../../../../plugins/graph/engine/lexical-buffers.ts';
import { LexicalIndex } from '../../../../plugins/graph/engine/lexical-index.ts';
import { computePageRank, PageRankCache, pageRankSteps } from '../../../../plugins/graph/engine/stats.ts';
import { loopIterations } from '../../../helpers/loop-iterations.ts';

/** A graph of `n` functions, each calling a few others (deterministic). */
function graphOf(n: number): CodeGraph {
  const g = new CodeGraph();
  for (let i = 0; i < n; i++) g.upsertNode({ id: `function:m${i % 50}.py#handle_item_${i}`, kind: 'function', label: `handle_item_${i}`, path: `m${i % 50}.py`, startLine: 1, endLine: 2, language: 'python', qualifiedName: `handle_item_${i}`, doc: `Handles item ${i} of batch ${i % 97}.` });
  for (let i = 0; i < n; i++) for (const k of [1, 7, 31]) g.addEdge(i, (i * k + 13) % n, 2, 1);
  g.finalize();
  return g;
}

describe('sliced seek index and PageRank', () => {
  it('sorts strings in steps exactly as Array.prototype.sort does', () => {
    for (const n of [0, 1, 2047, 2048, 2049, 10_000]) {
      const xs = Array.from({ length: n }, (_, i) => ((i * 2654435761) % 1000003).toString(36) + (i % 7 ? 'a' : 'Z'));
      const steps = sortStrings(xs.slice(), 2048);
      let r = steps.next();
      let yields = 0;
      while (!r.done) (r = steps.next()), yields++;
      assert.deepEqual(r.value, xs.slice().sort());
      if (n > 4096) assert.ok(yields > n / 2048, `only ${yields} yields for ${n} strings`);
    }
  });

  it('computes the same PageRank in slices (a yield per iteration) as in one piece', async () => {
    const g = graphOf(5000);
    const whole = computePageRank(g);
    let yields = 0;
    const steps = pageRankSteps(g);
    let r = steps.next();
    while (!r.done) (r = steps.next()), yields++;
    assert.ok(yields >= whole.iterations, `${yields} yields for ${whole.iterations} iterations`);
    assert.deepEqual([...r.value.scores], [...whole.scores]);
    const cache = new PageRankCache();
    const sliced = await cache.getAsync(g, 0);
    assert.deepEqual([...sliced.scores], [...whole.scores]);
    assert.equal(cache.get(g), sliced, 'the cache holds the sliced result');
  });

  it('restarts a sliced PageRank when the graph changes between slices', async () => {
    const g = graphOf(3000);
    const cache = new PageRankCache();
    const pending = cache.getAsync(g, 0);
    g.addEdge(0, 1, 2, 1);
    g.finalize();
    const r = await pending;
    assert.equal(r.version, g.version);
    assert.deepEqual([...r.scores], [...computePageRank(g).scores]);
  });

  it('answers prefix expansions from the vocabulary the sliced build sorted', async () => {
    const g = graphOf(3000);
    const lx = new LexicalIndex();
    await lx.ensureAsync(g, 1);
    assert.ok(lx.expand('hand').length > 0, 'prefix expansion finds the stems of handle');
    const hits = lx.query(g, 'handle item batch', null, { topK: 3 });
    assert.equal(hits.length, 3);
    const fresh = new LexicalIndex();
    fresh.rebuild(g);
    assert.deepEqual(fresh.expand('ite'), lx.expand('ite'));
    assert.deepEqual(fresh.stats(), lx.stats());
  });

  it('re-indexes a burst of changed nodes in slices, with the same answers as re-indexing at once', async () => {
    const g = graphOf(3000);
    const lx = new LexicalIndex();
    await lx.ensureAsync(g, 50);
    const once = new LexicalIndex();
    once.rebuild(g);
    // A re-ingest of many files: 1,500 nodes get new objects, with new docs.
    for (let i = 0; i < 1500; i++) g.upsertNode({ ...g.node(i)!, doc: `Reworked item ${i} for ledger ${i % 13}.` });
    g.finalize();
    const loop = loopIterations();
    await lx.ensureAsync(g, 0.5);
    loop.stop();
    once.sync(g);
    assert.ok(loop.count > 0, 'other callbacks ran while the index re-indexed');
    const q = (x: LexicalIndex) => x.query(g, 'reworked ledger item', null, { topK: 10 }).map((h) => [h.id, h.score]);
    assert.deepEqual(q(lx), q(once));
    assert.ok(lx.query(g, 'ledger', null, { topK: 1 }).length === 1);
  });
});
