import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { writeSyntheticRepo } from '../../../../bench/synthetic-repo.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { sharedCommitWorker } from '../../../../plugins/graph/engine/store-writer/writer.ts';
import { graphLines, removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

/** True while the shared commit worker's thread runs. */
const workerRunning = (): boolean => (sharedCommitWorker() as unknown as { worker: unknown }).worker !== null;

describe('the commit worker after a big ingest', function () {
  this.timeout(300_000);
  const roots: string[] = [];
  after(async () => {
    await sharedCommitWorker().stop();
    for (const r of roots) removeWorkspace(r);
  });

  it('keeps running after a commit under the release size (it idles out later)', async () => {
    const root = writeWorkspace({}, 'm1nd-commit-release-');
    roots.push(root);
    writeSyntheticRepo(root, 80);
    const engine = new CodeGraphEngine({ root, storeDir: join(root, '.store'), typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
    try {
      await engine.ingest({ releaseCommitWorkerFiles: 500 });
      assert.equal(workerRunning(), true);
    } finally {
      await engine.close();
    }
  });

  it('stops at once after a commit of the release size (here 500 files) or more, restarts for the next big write, and the graph and store are whole', async () => {
    const root = writeWorkspace({}, 'm1nd-commit-release-');
    roots.push(root);
    writeSyntheticRepo(root, 520);
    const storeDir = join(root, '.store');
    const engine = new CodeGraphEngine({ root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
    let second: ReturnType<typeof graphLines>;
    try {
      const s = await engine.ingest({ releaseCommitWorkerFiles: 500 });
      assert.ok(s.files.parsed >= 500, `${s.files.parsed} files`);
      assert.equal(workerRunning(), false, 'the worker was stopped after the commit');
      // A second full ingest streams through a new worker.
      writeFiles(root, { 'extra/added.py': 'def added():\n    return 1\n' });
      const again = await engine.ingest({ incremental: false, releaseCommitWorkerFiles: 500 });
      assert.equal(again.files.parsed, s.files.parsed + 1);
      assert.equal(workerRunning(), false);
      assert.ok(engine.graph.get('function:extra/added.py#added'));
      second = graphLines(engine.graph);
    } finally {
      await engine.close();
    }
    // Re-linked from the store (no snapshot): the store holds every row of the last commit.
    const reopened = new CodeGraphEngine({ root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0, snapshots: false });
    try {
      await reopened.open();
      assert.deepEqual(graphLines(reopened.graph), second);
    } finally {
      await reopened.close();
    }
  });
});
