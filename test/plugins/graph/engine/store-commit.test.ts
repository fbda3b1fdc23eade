import { strict as assert } from 'node:assert';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { GraphStore, type FileWrite } from '../../../../plugins/graph/engine/store.ts';
import { sharedCommitWorker } from '../../../../plugins/graph/engine/store-writer/writer.ts';
import { extraction, removeWorkspace, sym, writeWorkspace } from './helpers.ts';

function writes(n: number, tag: string): FileWrite[] {
  return Array.from({ length: n }, (_, i) => {
    const path = `pkg/m${i}.py`;
    const ex = extraction(path, 'python', { symbols: [sym('function', `f_${tag}_${i}`, 1, 2)] });
    return {
      row: { path, hash: `${tag}${i}`, size: 10, mtimeMs: 1, language: 'python', loc: 2, parseErrors: 0, extractionKey: `python:v:${tag}${i}` },
      extraction: ex,
      // Every other file arrives pre-serialised, as from a parse worker.
      ...(i % 2 ? { json: JSON.stringify(ex) } : {}),
    };
  });
}

describe('the store commit worker', function () {
  this.timeout(60_000);
  let dir: string;
  let store: GraphStore;

  before(() => {
    dir = writeWorkspace({}, 'm1nd-store-commit-');
    store = new GraphStore(join(dir, 'store'), { busyTimeoutMs: 200 });
  });
  after(async () => {
    store.close();
    await sharedCommitWorker().stop();
    removeWorkspace(dir);
  });

  it('writes an ingest from its own connection in one transaction that the main connection then reads', async () => {
    const r = await store.commitIngestAsync({ upserts: writes(300, 'a'), removes: [], gitCommits: [{ hash: 'h1', time: 5, subject: 's', files: ['pkg/m1.py'] }], meta: { root: dir, parserVersion: 'v' } }, 5);
    assert.deepEqual(r, { generation: 1, previous: 0 });
    assert.equal(store.generation(), 1);
    const rows = store.fileRows();
    assert.equal(rows.size, 300);
    assert.equal(store.extraction('python:v:a7', 'pkg/m7.py')?.symbols[0].name, 'f_a_7');
    assert.equal(store.extraction('python:v:a8', 'pkg/m8.py')?.symbols[0].name, 'f_a_8');
    assert.equal(store.gitCommitCount(), 1);
    assert.equal(store.meta().parserVersion, 'v');
  });

  it('writes nothing when another connection holds the write lock past the busy timeout, reporting SQLITE_BUSY', async () => {
    const other = new Database(store.path);
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      await assert.rejects(
        store.commitIngestAsync({ upserts: writes(100, 'b'), removes: ['pkg/m0.py'], meta: {} }),
        (e: Error & { code?: string }) => e.code === 'SQLITE_BUSY',
      );
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    assert.equal(store.generation(), 1);
    assert.equal(store.fileRows().get('pkg/m5.py')?.hash, 'a5');
    assert.ok(store.fileRows().has('pkg/m0.py'));
  });

  it('commits on the main connection when the worker cannot run, with the same result', async () => {
    const worker = sharedCommitWorker();
    const original = worker.commit.bind(worker);
    worker.commit = () => Promise.reject(new Error('worker exited (1)'));
    try {
      const r = await store.commitIngestAsync({ upserts: writes(10, 'c'), removes: ['pkg/m299.py'], meta: {} });
      assert.deepEqual(r, { generation: 2, previous: 1 });
    } finally {
      worker.commit = original;
    }
    assert.equal(store.fileRows().get('pkg/m3.py')?.hash, 'c3');
    assert.equal(store.fileRows().has('pkg/m299.py'), false);
  });

  it('stages streamed rows in the store, so each row drops its extraction and JSON once staged, and a dead worker loses none', async () => {
    const ws = writes(120, 'd');
    const posted = ws.slice(0, 100).reduce((n, w) => n + (w.json ?? JSON.stringify(w.extraction)).length, 0);
    const stream = store.openCommitStream();
    stream.send(ws.slice(0, 60));
    stream.send(ws.slice(60, 100));
    const staged = (): number => ws.filter((w) => w.staged).length;
    for (let i = 0; i < 200 && staged() < 100; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(staged(), 100, 'the first 100 rows were staged');
    assert.ok(ws.slice(0, 100).every((w) => w.extraction === null && w.json === undefined), 'staged rows hold no data');
    assert.ok(ws.slice(100).every((w) => !w.staged && w.extraction !== null), 'the rest keep theirs');
    // What was posted and not yet staged is counted: nothing once both chunks are staged, both at the peak.
    assert.equal(stream.pendingChars, 0);
    assert.equal(stream.peakPendingChars, posted, 'both chunks were posted before the worker staged either');
    const db = new Database(store.path, { readonly: true });
    try {
      assert.equal(db.prepare('SELECT COUNT(*) FROM ingest_stage WHERE run = ?').pluck().get(stream.run), 100);
      assert.equal(db.prepare("SELECT COUNT(*) FROM files WHERE hash LIKE 'd%'").pluck().get(), 0, 'nothing staged is a file row before the commit');
      // The worker dies before the commit: the main connection commits the staged rows and the rest.
      await sharedCommitWorker().stop();
      const r = await store.commitIngestAsync({ upserts: ws, removes: [], meta: {} }, 5, stream);
      assert.equal(r.generation, r.previous + 1);
      for (const i of [0, 7, 99, 100, 119]) assert.equal(store.extraction(`python:v:d${i}`, `pkg/m${i}.py`)?.symbols[0].name, `f_d_${i}`);
      assert.equal(store.fileRows().get('pkg/m42.py')?.hash, 'd42');
      assert.equal(db.prepare('SELECT COUNT(*) FROM ingest_stage').pluck().get(), 0, 'the stage is emptied by the commit');
    } finally {
      db.close();
    }
  });

  it('deletes the staged rows of a stream dropped before its commit', async () => {
    const ws = writes(30, 'e');
    const stream = store.openCommitStream();
    stream.send(ws);
    for (let i = 0; i < 200 && !ws.every((w) => w.staged); i++) await new Promise((r) => setTimeout(r, 25));
    const db = new Database(store.path, { readonly: true });
    try {
      assert.equal(db.prepare('SELECT COUNT(*) FROM ingest_stage WHERE run = ?').pluck().get(stream.run), 30);
      stream.drop();
      let left = -1;
      for (let i = 0; i < 200 && left !== 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        left = db.prepare('SELECT COUNT(*) FROM ingest_stage').pluck().get() as number;
      }
      assert.equal(left, 0);
      assert.equal(store.fileRows().has('pkg/m0.py') && store.fileRows().get('pkg/m0.py')!.hash.startsWith('e'), false);
    } finally {
      db.close();
    }
  });
});
