import { strict as assert } from 'node:assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTasks, SLICE_MS } from '../../../../plugins/graph/engine/ingest-parse.ts';
import type { IngestContext, IngestSummary } from '../../../../plugins/graph/engine/ingest-types.ts';
import type { ParseOutcome, ParseTask } from '../../../../plugins/graph/engine/parse-pool/parse-file.ts';
import { sharedParsePool } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import { BACKGROUND_SLICE_MS, runStepsSliced } from '../../../../plugins/graph/engine/steps.ts';
import { loadDefaultParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { tempDir } from '../../../helpers/mcp.ts';
import { loopIterations } from '../../../helpers/loop-iterations.ts';

const FILES = 120;

function writeFiles(root: string): ParseTask[] {
  mkdirSync(join(root, 'src'), { recursive: true });
  const tasks: ParseTask[] = [];
  for (let i = 0; i < FILES; i++) {
    const text = `export function f${i}(x: number): number {\n  return x + ${i};\n}\n`;
    writeFileSync(join(root, 'src', `m${i}.ts`), text);
    tasks.push({ path: `src/m${i}.ts`, language: 'typescript', size: text.length, mtimeMs: 0, sameKey: null });
  }
  return tasks;
}

const phases = (): IngestSummary['phases'] => ({ walk: 0, read: 0, parse: 0, git: 0, persist: 0, build: 0 });

/** Busy for `ms` of wall time (a file's staging that costs something). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('parseTasks through the parse pool', function () {
  this.timeout(120_000);
  let root: string;
  let tasks: ParseTask[];
  let ctx: IngestContext;

  before(async () => {
    root = tempDir('m1nd-parse-slices-');
    tasks = writeFiles(root);
    ctx = { root, parser: await loadDefaultParser(), workerNice: 0 } as unknown as IngestContext;
  });
  after(async () => {
    await sharedParsePool(2, 0).stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('takes the outcomes in task order and in slices: never a whole batch of costly files in one loop turn', async () => {
    // A turn counter the event loop advances between macrotasks.
    const loop = loopIterations();
    const order: number[] = [];
    const perTurn = new Map<number, number>();
    try {
      const workers = await parseTasks(ctx, tasks, 2, {}, phases(), () => {}, (i: number, outcome: ParseOutcome) => {
        assert.equal(outcome.kind, 'parsed');
        busy(1);
        order.push(i);
        perTurn.set(loop.count, (perTurn.get(loop.count) ?? 0) + 1);
      });
      assert.equal(workers, 2, 'the pool parsed');
    } finally {
      loop.stop();
    }
    assert.deepEqual(order, tasks.map((_, i) => i));
    // A pool batch is 24 files: taken at once, one turn would hold 24 ms of staging here. The counter
    // advances in the loop's check phase, so one of its turns may hold two slices, each a macrotask of
    // its own: a drain's next slice (check phase) and a new drain started by a batch's message (poll
    // phase) — seen once on a loaded CI machine (15 files). Two slices stay under a whole batch.
    const most = Math.max(...perTurn.values());
    assert.ok(most <= 2 * (SLICE_MS + 2) && 2 * (SLICE_MS + 2) < 24, `${most} files of 1 ms taken in one loop turn (slice ${SLICE_MS} ms)`);
  });

  it('a background run takes its outcomes within the loop iteration\'s background budget, shared with the other background work', async () => {
    // Each piece of work (an outcome taken, a step of another background slicer) is 1 ms; a
    // check-phase counter marks the loop's iterations (each after a poll phase, where requests are
    // taken in). Counted in pieces, not milliseconds: a descheduled thread makes pieces longer, never
    // more of them. Before, the drain kept a 3 ms clock of its own and yielded with setImmediate: its
    // pieces ran in the same iteration as the other slicer's budget.
    const loop = loopIterations();
    const perIteration = new Map<number, number>();
    const piece = (): void => {
      busy(1);
      perIteration.set(loop.count, (perIteration.get(loop.count) ?? 0) + 1);
    };
    let running = true;
    const other = runStepsSliced(
      (function* () {
        while (running) (piece(), yield);
      })(),
      BACKGROUND_SLICE_MS,
    );
    try {
      await parseTasks(ctx, tasks, 2, { sliceMs: 3 }, phases(), () => {}, () => piece());
    } finally {
      running = false;
      loop.stop();
      await other;
    }
    const most = Math.max(...perIteration.values());
    assert.ok(most <= BACKGROUND_SLICE_MS + 2, `${most} pieces of 1 ms in one loop iteration (background budget ${BACKGROUND_SLICE_MS} ms)`);
  });

  it('stops the run on the first error of take and reports that error', async () => {
    let taken = 0;
    await assert.rejects(
      parseTasks(ctx, tasks, 2, {}, phases(), () => {}, () => {
        if (++taken === 30) throw new Error('the store refused');
      }),
      /the store refused/,
    );
    assert.equal(taken, 30, 'nothing taken after the error');
  });
});
