import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { removeTree } from '../../../plugins/history/remove-tree.ts';
import { tempDir } from '../../helpers/mcp.ts';
import { gcPauses, ownHeld, threadMs } from '../../helpers/ping.ts';

/** `files` one-line files in 10 folders, a nested folder in each (an exported snapshot is shaped so). */
function writeTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 10}`, i % 3 === 0 ? 'sub' : '');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.dat`), `${i}\n`);
  }
}

/** Runs `work` while a 1 ms timer loop records the main-thread CPU between its turns, less GC pauses. */
async function heldDuring(work: () => Promise<void>): Promise<number[]> {
  const pauses = gcPauses();
  const held: number[] = [];
  const spans: [number, number][] = [];
  let done = false;
  const ticks = (async () => {
    let cpu = threadMs();
    let wall = performance.now();
    while (!done) {
      await new Promise((r) => setTimeout(r, 1));
      const now = threadMs();
      held.push(now - cpu);
      cpu = now;
      spans.push([wall, (wall = performance.now())]);
    }
  })();
  await work();
  done = true;
  await ticks;
  return ownHeld(held, await pauses.within(spans));
}

describe('removeTree (the history plugin removing an evicted snapshot)', function () {
  this.timeout(120_000);

  it('removes nested folders and their files, and a missing folder without an error', async () => {
    const base = tempDir('m1nd-remove-tree-');
    const root = path.join(base, 'snap');
    writeTree(root, 300);
    writeTree(path.join(base, 'outside'), 5);
    fs.symlinkSync(path.join(base, 'outside'), path.join(root, 'd1', 'link')); // the link goes, not what it points at
    await removeTree(root);
    assert.equal(fs.existsSync(root), false);
    assert.equal(fs.readdirSync(path.join(base, 'outside')).length, 5);
    await removeTree(root);
  });

  // fs.promises.rm starts a folder's every removal at once and runs their completions in one poll
  // phase: the timer below waited 10–24 ms on it for this tree, 1–4 ms on removeTree.
  it('never holds the loop long while it removes 4,000 files', async () => {
    const root = path.join(tempDir('m1nd-remove-tree-'), 'snap');
    writeTree(root, 4000);
    const held = await heldDuring(() => removeTree(root));
    assert.equal(fs.existsSync(root), false);
    const worst = Math.max(...held);
    assert.ok(worst < 8, `a timer waited on ${worst.toFixed(1)} ms of main-thread work over ${held.length} turns`);
  });
});
