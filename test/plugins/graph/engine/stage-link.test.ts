import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { writeSyntheticRepo } from '../../../../bench/synthetic-repo.ts';
import { GraphBuilder } from '../../../../plugins/graph/engine/build.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { storedGitFacts, storedResolverConfig } from '../../../../plugins/graph/engine/stored-graph-inputs.ts';
import { GraphStore } from '../../../../plugins/graph/engine/store.ts';
import { sharedCommitWorker } from '../../../../plugins/graph/engine/store-writer/writer.ts';
import { graphLines, removeWorkspace, writeWorkspace } from './helpers.ts';

/** The graph the store's files give when built at once from their full extractions. */
function storedGraph(storeDir: string): ReturnType<typeof graphLines> {
  const store = new GraphStore(storeDir);
  try {
    const { files } = store.loadAll();
    const builder = new GraphBuilder();
    builder.apply({ upsert: files.map(({ row, extraction }) => ({ path: row.path, language: row.language, extraction })), remove: [], git: storedGitFacts(store), config: storedResolverConfig(store) });
    return graphLines(builder.graph);
  } finally {
    store.close();
  }
}

describe('a streamed full ingest links from the staged rows while its commit runs', function () {
  this.timeout(240_000);
  let root: string;
  const original = GraphStore.prototype.stagedExtraction;

  before(async () => {
    root = writeWorkspace({}, 'm1nd-stage-link-');
    // 120 modules in six languages with imports, calls and inheritance: a streamed run (≥ 48 files).
    writeSyntheticRepo(root, 120);
    // A commit worker started with the test's delay (the shared one may run from an earlier test).
    await sharedCommitWorker().stop();
  });
  afterEach(() => {
    GraphStore.prototype.stagedExtraction = original;
  });
  after(async () => {
    delete process.env.M1ND_TEST_COMMIT_DELAY_MS;
    await sharedCommitWorker().stop();
    removeWorkspace(root);
  });

  /** Ingests into a new store; counts the extractions the link read from the stage. */
  async function ingest(storeDir: string, parseWorkers: number): Promise<{ fromStage: number; parsed: number; graph: ReturnType<typeof graphLines>; buildMs: number }> {
    let fromStage = 0;
    GraphStore.prototype.stagedExtraction = function (this: GraphStore, run, seq, path) {
      const ex = original.call(this, run, seq, path);
      if (ex) fromStage++;
      return ex;
    };
    const engine = new CodeGraphEngine({ root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers, snapshots: false });
    try {
      const s = await engine.ingest();
      return { fromStage, parsed: s.files.parsed, graph: graphLines(engine.graph), buildMs: s.phases.build };
    } finally {
      await engine.close();
    }
  }

  it('links every file from the stage when the commit is slow, and builds the graph of the stored extractions', async () => {
    process.env.M1ND_TEST_COMMIT_DELAY_MS = '1500';
    const storeDir = join(root, '.store-slow');
    const run = await ingest(storeDir, 0);
    assert.ok(run.parsed >= 100, `${run.parsed} files`);
    // Every parsed file's full extraction came from the stage: the link ran before the commit moved them.
    assert.equal(run.fromStage, run.parsed);
    assert.deepEqual(run.graph, storedGraph(storeDir));
  });

  it('gives the same graph with the parse pool and a prompt commit', async () => {
    delete process.env.M1ND_TEST_COMMIT_DELAY_MS;
    await sharedCommitWorker().stop();
    const storeDir = join(root, '.store-pool');
    const run = await ingest(storeDir, 2);
    assert.ok(run.parsed >= 100, `${run.parsed} files`);
    assert.deepEqual(run.graph, storedGraph(storeDir));
    assert.deepEqual(run.graph, storedGraph(join(root, '.store-slow')));
  });
});
