import { strict as assert } from 'node:assert';
import type { StoreDrift } from '../../../plugins/graph/engine/store-drift.ts';
import { WatchReconciler } from '../../../plugins/graph/engine/watch-reconcile.ts';
import { until } from '../../helpers/until.ts';

// CI failed once on the watcher's reconciliation test: the catch-up at start counted as a run, so
// the first reconciliation after dropped events waited out the 30 s gap instead of 5 s of quiet.
describe('WatchReconciler timing', () => {
  function reconciler(timing: { quietMs: number; gapMs: number }) {
    const sinces: number[] = [];
    const drift = async (since: number): Promise<StoreDrift> => {
      sinces.push(since);
      return { walked: 1, stored: 1, changed: ['a.ts'], added: [], leftOut: [], gone: [] };
    };
    const r = new WatchReconciler({ drift, mark: () => undefined, busy: () => false }, timing);
    return { r, sinces };
  }

  it('runs the first activity-driven reconciliation after the quiet time even when a catch-up ran at start', async () => {
    const { r, sinces } = reconciler({ quietMs: 50, gapMs: 60_000 });
    try {
      r.catchUp(1000);
      await until(async () => r.stats.runs === 1, 5000, 'the catch-up');
      const caughtUpBy = Date.now();
      r.arm();
      await until(async () => r.stats.runs === 2, 5000, 'the reconciliation after activity');
      assert.equal(sinces[0], 1000, 'the catch-up compares against the last ingest');
      assert.ok(sinces[1] > 1000 && sinces[1] <= caughtUpBy, 'the next run compares against when the catch-up started');
    } finally {
      await r.stop();
    }
  });

  it('spaces activity-driven reconciliations by the gap', async () => {
    const { r } = reconciler({ quietMs: 20, gapMs: 60_000 });
    try {
      r.arm();
      await until(async () => r.stats.runs === 1, 5000, 'the first reconciliation');
      r.arm();
      await new Promise((done) => setTimeout(done, 400));
      assert.equal(r.stats.runs, 1, 'a second run waits out the gap');
    } finally {
      await r.stop();
    }
  });
});
