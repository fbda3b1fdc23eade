import { strict as assert } from 'node:assert';
import { writeSyntheticRepo } from '../../../../bench/synthetic-repo.ts';
import { CodeGraphEngine, type CodeGraphEngineOptions } from '../../../../plugins/graph/engine/engine.ts';
import type { IngestOptions, IngestSummary } from '../../../../plugins/graph/engine/ingest.ts';
import { sharedParsePool } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import { loadDefaultParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { CommitStream, sharedCommitWorker } from '../../../../plugins/graph/engine/store-writer/writer.ts';
import { graphLines, removeWorkspace, writeWorkspace } from './helpers.ts';

type Graph = ReturnType<typeof graphLines>;

const graphOf = (engine: CodeGraphEngine): Graph => graphLines(engine.graph);

interface Run {
  summary: IngestSummary;
  graph: Graph;
  /** The graph a fresh engine loads from the store this run wrote. */
  stored: Graph;
}

async function ingest(root: string, storeDir: string, workers: number, options: IngestOptions = {}): Promise<Run> {
  const base: CodeGraphEngineOptions = { root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers: workers };
  const engine = new CodeGraphEngine(base);
  await engine.open();
  let summary: IngestSummary;
  let graph: Graph;
  try {
    summary = await engine.ingest(options);
    graph = graphOf(engine);
  } finally {
    await engine.close();
  }
  const reopened = new CodeGraphEngine({ ...base, parseWorkers: 0 });
  await reopened.open();
  try {
    return { summary, graph, stored: graphOf(reopened) };
  } finally {
    await reopened.close();
  }
}

/** Records each hand-over of rows to the commit worker: how many rows it carried and how far the parse was. */
function spyOnStreams(): { sends: { rows: number; parsed: number }[]; parsed: number; restore: () => void } {
  const spy = { sends: [] as { rows: number; parsed: number }[], parsed: 0, restore: () => {} };
  const original = CommitStream.prototype.send;
  CommitStream.prototype.send = function (this: CommitStream, writes) {
    spy.sends.push({ rows: writes.length, parsed: spy.parsed });
    return original.call(this, writes);
  };
  spy.restore = () => {
    CommitStream.prototype.send = original;
  };
  return spy;
}

describe('a parallel ingest that streams to the store', function () {
  this.timeout(240_000);
  let root: string;
  let single: Run;

  before(async () => {
    root = writeWorkspace({}, 'm1nd-parse-stream-');
    // Six languages, imports and calls between modules: 300 modules and their glue files.
    writeSyntheticRepo(root, 300);
    await loadDefaultParser();
    single = await ingest(root, `${root}/.store-single`, 0);
  });
  after(async () => {
    delete process.env.M1ND_TEST_PARSE_WORKER_EXIT_AFTER;
    await sharedParsePool(2).stop();
    removeWorkspace(root);
  });

  it('ingests the fixture with every import resolved', () => {
    assert.ok(single.summary.files.parsed >= 300, `parsed ${single.summary.files.parsed}`);
    assert.equal(single.summary.imports.notFound, 0);
    assert.ok(single.summary.imports.resolved > 400, `resolved ${single.summary.imports.resolved}`);
    assert.ok(single.graph.edges.some((e) => /mod_7\.py#f_7_0 -calls-> .*mod_\d+\.py#f_\d+_0$/.test(e)), 'a cross-module Python call is linked');
    assert.deepEqual(single.stored, single.graph);
  });

  it('hands rows to the commit worker in small batches while it parses, and stores the same graph', async () => {
    const spy = spyOnStreams();
    let run: Run;
    try {
      run = await ingest(root, `${root}/.store-stream`, 2, {
        commitBatchFiles: 5,
        onProgress: (done, _total, phase) => {
          if (phase === 'parse') spy.parsed = done;
        },
      });
    } finally {
      spy.restore();
    }
    assert.equal(run.summary.parseWorkers, 2);
    const rows = spy.sends.reduce((n, s) => n + s.rows, 0);
    assert.equal(rows, run.summary.files.parsed, 'every row went through the stream');
    assert.ok(spy.sends.length >= run.summary.files.parsed / 24, `${spy.sends.length} hand-overs`);
    assert.ok(spy.sends.some((s) => s.parsed < run.summary.files.parsed), 'rows were handed over before the parse ended');
    assert.deepEqual(run.graph, single.graph);
    assert.deepEqual(run.stored, single.graph);
  });

  it('loses nothing when the commit worker dies mid-stream: the main thread commits every row', async () => {
    const original = CommitStream.prototype.send;
    let stopped = false;
    CommitStream.prototype.send = function (this: CommitStream, writes) {
      original.call(this, writes);
      if (!stopped && this.sent >= 20) {
        stopped = true;
        void sharedCommitWorker().stop();
      }
    };
    let run: Run;
    try {
      run = await ingest(root, `${root}/.store-commit-died`, 2, { commitBatchFiles: 10 });
    } finally {
      CommitStream.prototype.send = original;
    }
    assert.ok(stopped, 'the commit worker was stopped mid-stream');
    assert.deepEqual(run.graph, single.graph);
    assert.deepEqual(run.stored, single.graph);
  });

  it('loses nothing when a parse worker dies mid-ingest: the rest parses on the main thread', async () => {
    await sharedParsePool(2).stop();
    // Each new worker exits right after answering its first batch.
    process.env.M1ND_TEST_PARSE_WORKER_EXIT_AFTER = '1';
    const parsedSeen: number[] = [];
    let run: Run;
    try {
      run = await ingest(root, `${root}/.store-worker-died`, 2, {
        onProgress: (done, _total, phase) => {
          if (phase === 'parse') parsedSeen.push(done);
        },
      });
    } finally {
      delete process.env.M1ND_TEST_PARSE_WORKER_EXIT_AFTER;
      await sharedParsePool(2).stop();
    }
    assert.equal(run.summary.parseWorkers, 0, 'the run finished on the main thread');
    assert.ok(parsedSeen.some((d) => d >= 24 && d < run.summary.files.parsed), `workers answered a batch first (${parsedSeen.slice(0, 6).join(', ')})`);
    assert.equal(run.summary.files.parsed, single.summary.files.parsed);
    assert.deepEqual(run.graph, single.graph);
    assert.deepEqual(run.stored, single.graph);
  });
});
