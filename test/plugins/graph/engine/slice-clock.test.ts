import assert from 'node:assert/strict';
import { BACKGROUND_SLICE_MS, backgroundYield, runStepsSliced, SliceClock } from '../../../../plugins/graph/engine/steps.ts';
import { loopIterations } from '../../../helpers/loop-iterations.ts';

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

describe('background slicers', () => {
  it('hold the loop for one turn budget between two iterations, however many run at once, and take turns', async () => {
    // Each step is 1 ms of work; a check-phase counter marks the loop's iterations (each after a poll
    // phase, where requests and I/O are taken in). Counted in steps, not milliseconds: a descheduled
    // thread makes steps longer, never more of them. Before, the slicers yielded through 0 ms timers
    // that Node ran in one timers phase, each with a fresh budget: these three held 21 steps in one
    // iteration.
    const loop = loopIterations();
    let running = true;
    const perIteration = new Map<number, string>();
    const slicer = (name: string, sliceMs: number) =>
      runStepsSliced(
        (function* () {
          while (running) {
            busy(1);
            perIteration.set(loop.count, (perIteration.get(loop.count) ?? '') + name);
            yield;
          }
        })(),
        sliceMs,
      );
    const runs = [slicer('a', BACKGROUND_SLICE_MS), slicer('b', 3), slicer('c', BACKGROUND_SLICE_MS)];
    await new Promise((r) => setTimeout(r, 400));
    running = false;
    loop.stop();
    await Promise.all(runs);
    const most = Math.max(...[...perIteration.values()].map((s) => s.length));
    assert.ok(most <= BACKGROUND_SLICE_MS + 1, `${most} steps of 1 ms in one loop iteration (budget ${BACKGROUND_SLICE_MS} ms): ${[...perIteration.values()].filter((s) => s.length > BACKGROUND_SLICE_MS + 1).slice(0, 3).join(' ')}`);
    const all = [...perIteration.values()].join('');
    for (const name of 'abc') assert.ok(all.split(name).length - 1 >= 5, `slicer ${name} ran ${all.split(name).length - 1} steps of ${all.length}: each takes its turn`);
  });
});
