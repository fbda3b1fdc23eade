/**
 * Lock watches: when a lock is re-checked against its baseline, and what a re-check records.
 * `on_ingest` re-checks after any call that left the graph at a new generation (an ingest, or the
 * watcher's re-ingest before a query); `on_learn` after each successful `learn`; `periodic` on a
 * timer in each running server; `manual` only when its owner calls lock_diff. A re-check never
 * moves the baseline: it records an event that lock_diff shows, until lock_rebase accepts it.
 */
import { slicePace, type CodeGraphEngine } from '../graph/api.ts';
import { diffCounts, diffSnapshots, snapshot } from './baseline.ts';
import { MAX_EVENTS, type LockBook, type LockRecord, type Strategy, type WatchEvent } from './book.ts';
import { captureRegion } from './region.ts';

/** What each strategy means on this server, in words. */
export function strategyMeaning(strategy: Strategy, periodicSeconds: number, learnRegistered: boolean): string {
  switch (strategy) {
    case 'manual':
      return 'checked only when you call lock_diff';
    case 'on_ingest':
      return 're-checked after any call that moves the graph to a new generation (ingest, or the re-ingest of edited files before a query); changes are recorded as events lock_diff shows';
    case 'on_learn':
      return learnRegistered
        ? 're-checked after each successful learn call (learn changes edge weights); changes are recorded as events lock_diff shows'
        : 'learn is not registered on this server, so this watch never fires here; use on_ingest or manual';
    case 'periodic':
      return `re-checked every ${periodicSeconds} s by a timer in each running m1nd server on this workspace (nothing runs while no server is up); changes are recorded as events lock_diff shows`;
  }
}

/** Main-thread time a re-check takes before it gives the event loop back (a region reads hundreds of files). */
const SLICE_MS = 8;

/** The current diff of a lock against its baseline, captured and compared in slices. */
export async function diffLock(engine: CodeGraphEngine, book: LockBook, lock: LockRecord) {
  const before = await book.baseline(lock);
  const pace = slicePace(SLICE_MS);
  const region = captureRegion(engine, lock.spec);
  const now = await snapshot(engine, region.nodes, region.truncated, pace);
  const diff = await diffSnapshots(before, now, (id) => engine.graph.indexOf(id) >= 0, pace);
  await pace();
  return { region, now, diff };
}

/** Re-checks the locks a trigger concerns; records an event per lock that changed; returns how many did. */
export async function recheck(engine: CodeGraphEngine, book: LockBook, trigger: WatchEvent['trigger'], wants: (lock: LockRecord) => boolean): Promise<number> {
  let changed = 0;
  for (const lock of await book.all()) {
    if (!wants(lock)) continue;
    const { diff } = await diffLock(engine, book, lock);
    const counts = diffCounts(diff);
    const last = lock.events[lock.events.length - 1];
    const moved = lock.checked_generation !== engine.generation;
    lock.checked_generation = engine.generation;
    if (diff.changed && !(last && last.generation === engine.generation && JSON.stringify(last.counts) === JSON.stringify(counts))) {
      lock.events.push({ at: Date.now(), trigger, generation: engine.generation, counts, files: diff.files.map((f) => f.path) });
      if (lock.events.length > MAX_EVENTS) lock.events.splice(0, lock.events.length - MAX_EVENTS);
      changed++;
      await book.save(lock);
    } else if (moved) {
      await book.save(lock);
    }
  }
  return changed;
}
