import { strict as assert } from 'node:assert';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type Harness } from '../../helpers/mcp.ts';
import { connectWatching, dropWatcherEvents } from '../../helpers/watching.ts';

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('the graph watcher: reconciliation after a burst', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  let restore: (() => void) | undefined;
  afterEach(async () => {
    await h?.close();
    restore?.();
    h = restore = undefined;
  });

  it('takes in an added file and a deleted one whose events were dropped, once the tree has been quiet a few seconds', async () => {
    restore = dropWatcherEvents('dropped.ts', 'gone.ts');
    const ws = tempDir('m1nd-reconcile-');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/math.ts'), 'export function addPrices(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFileSync(join(ws, 'src/gone.ts'), 'export function goneSoonFn(): number {\n  return 0;\n}\n');
    const served = await connectWatching(ws);
    h = served.h;
    const { call } = served;
    const inGraph = async (name: string) => JSON.stringify((await call('seek', { query: name })).results).includes(`#${name}`);
    await call('ingest', { path: '.' });
    // The watcher starts after the stored graph loads: edit until a query sees an edit.
    let n = 0;
    await until(
      async () => {
        writeFileSync(join(ws, 'src/warm.ts'), `export function warmUp${++n}(): number {\n  return ${n};\n}\n`);
        await new Promise((r) => setTimeout(r, 300));
        return inGraph(`warmUp${n}`);
      },
      30_000,
      'the graph watcher to start',
    );
    assert.ok(await inGraph('goneSoonFn'));

    writeFileSync(join(ws, 'src/dropped.ts'), 'export function droppedEventFn(): number {\n  return 1;\n}\n');
    rmSync(join(ws, 'src/gone.ts'));
    appendFileSync(join(ws, 'src/math.ts'), '\nexport function seenEventFn(): number {\n  return 2;\n}\n');
    await until(() => inGraph('seenEventFn'), 10_000, 'the event-driven re-ingest of src/math.ts');
    assert.equal(await inGraph('droppedEventFn'), false, 'no event reported src/dropped.ts');
    assert.equal(await inGraph('goneSoonFn'), true, 'no event reported the deletion of src/gone.ts');
    // The reconciliation: ~5 s after the watcher's last activity, the walk finds both; the next query takes them in.
    await until(async () => (await inGraph('droppedEventFn')) && !(await inGraph('goneSoonFn')), 20_000, 'the reconciliation to take in src/dropped.ts and drop src/gone.ts');
  });
});
