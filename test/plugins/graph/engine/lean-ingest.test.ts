import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { writeSyntheticRepo } from '../../../../bench/synthetic-repo.ts';
import { GraphBuilder } from '../../../../plugins/graph/engine/build.ts';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { heapGrowthHolders } from '../../../../plugins/graph/engine/heap-growth.ts';
import { storedGitFacts, storedResolverConfig } from '../../../../plugins/graph/engine/stored-graph-inputs.ts';
import { GraphStore } from '../../../../plugins/graph/engine/store.ts';
import { CommitStream, sharedCommitWorker } from '../../../../plugins/graph/engine/store-writer/writer.ts';
import type { FileWrite } from '../../../../plugins/graph/engine/store-commit.ts';
import { graphLines, removeWorkspace, writeWorkspace } from './helpers.ts';

describe('a big ingest that never holds every extraction', function () {
  this.timeout(240_000);
  let root: string;

  before(() => {
    root = writeWorkspace({}, 'm1nd-lean-ingest-');
    // 120 modules in six languages with imports, calls and inheritance between them: past the
    // 48 files from which an ingest streams its rows and builds from light extractions.
    writeSyntheticRepo(root, 120);
  });
  after(async () => {
    await sharedCommitWorker().stop();
    removeWorkspace(root);
  });

  it('builds from light extractions, links each file from the store after the commit, and gives the graph full extractions give', async () => {
    const storeDir = join(root, '.store');
    const engine = new CodeGraphEngine({ root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
    // Every row handed to the commit worker drops its data once staged (no full extraction is kept for the build).
    const sent: FileWrite[] = [];
    const original = CommitStream.prototype.send;
    CommitStream.prototype.send = function (this: CommitStream, writes) {
      sent.push(...writes);
      return original.call(this, writes);
    };
    // Staged files keep only what their links read before the full extraction is loaded back.
    let staged = 0;
    let slim = 0;
    const originalStage = GraphBuilder.prototype.stage;
    GraphBuilder.prototype.stage = function (this: GraphBuilder, inputs) {
      originalStage.call(this, inputs);
      for (const input of inputs) {
        staged++;
        if (input.partial && input.extraction.symbols.length === 0 && input.extraction.bindings === undefined) slim++;
      }
    };
    // The full build runs under the heap growth bound, released when the ingest ends.
    const holdersDuringBuild: number[] = [];
    let lean: ReturnType<typeof graphLines>;
    try {
      const s = await engine.ingest({ onProgress: (_d, _t, phase) => void (phase === 'build' && holdersDuringBuild.push(heapGrowthHolders())) });
      assert.ok(holdersDuringBuild.length > 0 && holdersDuringBuild.every((h) => h === 1), JSON.stringify(holdersDuringBuild));
      assert.equal(heapGrowthHolders(), 0);
      assert.ok(staged >= 100 && slim === staged, `${slim} of ${staged} staged files slimmed`);
      assert.ok(s.files.parsed >= 100, `${s.files.parsed} files`);
      assert.ok(s.edgesByRelation.calls > 100 && s.edgesByRelation.imports > 50, JSON.stringify(s.edgesByRelation));
      lean = graphLines(engine.graph);
    } finally {
      CommitStream.prototype.send = original;
      GraphBuilder.prototype.stage = originalStage;
      await engine.close();
    }
    assert.ok(sent.length >= 100, `${sent.length} rows streamed`);
    assert.ok(sent.some((w) => w.staged), 'rows were staged and dropped their data');
    // The same files built at once from their full stored extractions, as a builder that keeps them.
    const store = new GraphStore(storeDir);
    try {
      const { files } = store.loadAll();
      const builder = new GraphBuilder();
      builder.apply({ upsert: files.map(({ row, extraction }) => ({ path: row.path, language: row.language, extraction })), remove: [], git: storedGitFacts(store), config: storedResolverConfig(store) });
      assert.deepEqual(lean, graphLines(builder.graph));
    } finally {
      store.close();
    }
  });

  it('refuses a synchronous apply that would have to wait for its commit', () => {
    const builder = new GraphBuilder({ loadExtraction: () => null });
    const extraction = { path: 'a.py', language: 'python' as const, loc: 1, symbols: [], imports: [], calls: [], inherits: [], references: [], docLinks: [], parseErrors: 0 };
    assert.throws(() => builder.apply({ upsert: [{ path: 'a.py', language: 'python', extraction }], remove: [], linkAfter: Promise.resolve() }), /runStepsSliced/);
  });
});
