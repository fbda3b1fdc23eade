import assert from 'node:assert/strict';
import { fileIndexOf, warmFileIndex } from '../../../plugins/graph/api.ts';
import { CodeGraph } from '../../../plugins/graph/engine/graph.ts';
import { classNamesOf, warmClassNames } from '../../../plugins/structure/facts-cache.ts';
import { codeFilesOf } from '../../../plugins/structure/facts-warmer.ts';

/** A graph of `files` Python files, each with a class and two functions (a big workspace's node count). */
function bigGraph(files: number): CodeGraph {
  const g = new CodeGraph();
  for (let i = 0; i < files; i++) {
    const path = `pkg${i % 97}/mod_${(i * 7919) % files}.py`;
    g.upsertNode({ id: `file:${path}`, kind: 'file', label: path.split('/')[1], path, startLine: 1, endLine: 40, language: 'python' });
    g.upsertNode({ id: `class:${path}#C${i % 500}`, kind: 'class', label: `C${i % 500}`, path, startLine: 1, endLine: 20, language: 'python' });
    for (const f of ['load', 'save']) g.upsertNode({ id: `function:${path}#${f}`, kind: 'function', label: f, path, startLine: 21, endLine: 30, language: 'python' });
  }
  g.upsertNode({ id: 'file:README.md', kind: 'file', label: 'README.md', path: 'README.md', startLine: 1, endLine: 3, language: 'markdown' });
  g.finalize();
  return g;
}

/** Runs `work` with a 1 ms ticker beside it: its result and the turns the loop gave the ticker meanwhile. */
async function ticked<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let running = true;
  let ticks = 0;
  const ticker = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 1));
      ticks++;
    }
  })();
  const result = await work();
  running = false;
  await ticker;
  return { result, ticks };
}

describe("the background facts job's start", () => {
  const g = bigGraph(40_000);

  it('gathers the code files in path order in background slices, the loop turning between them', async () => {
    const { result, ticks } = await ticked(() => codeFilesOf(g, () => false));
    const expected = [...g.nodes()].map(([, n]) => n).filter((n) => n.kind === 'file' && n.language === 'python').map((n) => n.path).sort();
    assert.deepEqual(result?.map((f) => f.path), expected);
    assert.ok(result!.every((f) => f.language === 'python'));
    // 160,001 nodes in slices of ~5 ms: the ticker runs between them (one pass in one go gives it 0 or 1 turns).
    assert.ok(ticks >= 3, `the loop turned ${ticks} times`);
  });

  it('stops between slices once cancelled', async () => {
    let calls = 0;
    assert.equal(await codeFilesOf(g, () => ++calls > 0), null);
  });

  it('makes the class names ahead in slices, the same as the call-time read', async () => {
    const { ticks } = await ticked(() => warmClassNames(g));
    assert.ok(ticks >= 2, `the loop turned ${ticks} times`);
    const warmed = classNamesOf(g);
    const labels = new Set<string>();
    for (const [, n] of g.nodes()) if (n.kind === 'class') labels.add(n.label);
    assert.deepEqual([...warmed.names].sort(), [...labels].sort());
    assert.equal(warmed.names.length, 500);
    // The key (what tells a facts worker its names are current) depends on the set, not on the order.
    const reversed = new CodeGraph();
    const other = new CodeGraph();
    const classes = [...g.nodes()].map(([, n]) => n).filter((n) => n.kind === 'class');
    for (const n of [...classes].reverse()) reversed.upsertNode(n);
    for (const n of classes) other.upsertNode(n);
    other.upsertNode({ ...classes[0], id: 'class:x#Cx', label: 'Cx' });
    assert.equal(classNamesOf(reversed).key, warmed.key);
    assert.notEqual(classNamesOf(other).key, warmed.key);
  });

  it("makes each node's file index ahead between paces, the same as the call-time one, and leaves a changed graph's to the call", async () => {
    const paced = bigGraph(40_000);
    let paces = 0;
    await warmFileIndex(paced, async () => void paces++);
    assert.ok(paces >= 19, `${paces} paces over 160,001 nodes`);
    const warmed = fileIndexOf(paced);
    const fresh = bigGraph(40_000);
    assert.deepEqual([...warmed], [...fileIndexOf(fresh)]);
    const file = paced.indexOf('file:README.md');
    assert.equal(warmed[file], file, 'a file is its own file');
    assert.equal(warmed[paced.indexOf(`class:${paced.node(0)!.path}#C0`)], 0);

    // The graph changes during the warm: nothing is cached for the old version, the call makes the new one.
    const changing = bigGraph(4_000);
    await warmFileIndex(changing, async () => {
      if (changing.indexOf('file:new.py') < 0) changing.upsertNode({ id: 'file:new.py', kind: 'file', label: 'new.py', path: 'new.py', startLine: 1, endLine: 1, language: 'python' });
    });
    const after = fileIndexOf(changing);
    assert.equal(after.length, changing.nodeCapacity);
    assert.equal(after[changing.indexOf('file:new.py')], changing.indexOf('file:new.py'));
  });
});
