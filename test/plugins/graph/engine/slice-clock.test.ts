import assert from 'node:assert/strict';
import { BACKGROUND_SLICE_MS, backgroundYield, SliceClock } from '../../../../plugins/graph/engine/steps.ts';

const busy = (ms: number): void => {
  const t = performance.now();
  while (performance.now() - t < ms);
};

describe('SliceClock', () => {
  it('shares one budget per turn among background slicers, and starts afresh after a yield', async () => {
    await backgroundYield(); // a fresh turn
    const a = new SliceClock(BACKGROUND_SLICE_MS);
    assert.equal(a.spent(), false);
    busy(BACKGROUND_SLICE_MS + 1);
    assert.equal(a.spent(), true);
    // Another background slicer in the same turn: the budget is already spent.
    const b = new SliceClock(4);
    assert.equal(b.spent(), true);
    // A foreground clock (longer slices) keeps its own budget.
    const own = new SliceClock(20);
    assert.equal(own.spent(), false);
    await b.yield();
    assert.equal(b.spent(), false);
    assert.equal(a.spent(), false, 'the new turn is every background slicer\'s');
  });

  it('counts work done after a yield and before the next check', async () => {
    const c = new SliceClock(BACKGROUND_SLICE_MS);
    await c.yield();
    busy(BACKGROUND_SLICE_MS + 1); // e.g. a finalize between two sliced runs
    assert.equal(new SliceClock(BACKGROUND_SLICE_MS).spent(), true);
  });
});
