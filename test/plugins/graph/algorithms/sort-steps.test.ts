import assert from 'node:assert/strict';
import { sortSteps } from '../../../../plugins/graph/algorithms/sort-steps.ts';
import { prng as rng } from '../../../fuzz/messages.ts';

/** Runs a step generator to its end; returns its value and how many times it yielded. */
function drain<T>(steps: Generator<void, T>): { value: T; yields: number } {
  let yields = 0;
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

describe('sortSteps', () => {
  it('orders like Array.prototype.sort for sizes around its run and merge boundaries', () => {
    const next = rng(7);
    for (const n of [0, 1, 2, 4095, 4096, 4097, 8192, 12_289, 70_001]) {
      const a = Array.from({ length: n }, () => Math.floor(next() * 1e6));
      const expected = [...a].sort((x, y) => x - y);
      const { value } = drain(sortSteps(a, (x, y) => x - y));
      assert.equal(value, a, 'sorts in place and returns the array');
      assert.deepEqual(a, expected, `n=${n}`);
    }
  });

  it('keeps equal elements in their first order (stable), as the built-in sort does', () => {
    const next = rng(11);
    const a = Array.from({ length: 50_000 }, (_, i) => ({ key: Math.floor(next() * 50), i }));
    const expected = [...a].sort((x, y) => x.key - y.key);
    drain(sortSteps(a, (x, y) => x.key - y.key));
    assert.deepEqual(a.map((x) => x.i), expected.map((x) => x.i));
  });

  it('yields between steps on a long list and not at all on a short one', () => {
    const long = Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 100_003);
    // 25 runs of 4,096 plus merges of 16,384 moves: well over a handful of steps.
    assert.ok(drain(sortSteps(long, (x, y) => x - y)).yields >= 25);
    assert.equal(drain(sortSteps([3, 1, 2], (x, y) => x - y)).yields, 0);
  });
});
