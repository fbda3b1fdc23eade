/**
 * The commit worker: holds its own connection to a store and writes an ingest's rows, sent in
 * chunks, in one IMMEDIATE transaction when the commit message arrives, so the main thread's event
 * loop stays free while SQLite writes. Rows that arrive before the commit are staged in the store's
 * `ingest_stage` table (store-stage.ts: not in this heap; each chunk a short transaction of its own,
 * acknowledged with `staged`, so the ingest can read them back by row number before its commit);
 * nothing reaches the files and extractions tables before the commit message. A store connection is
 * kept per directory until the store is closed (`close`) or the worker stops.
 */
import { parentPort } from 'node:worker_threads';
import { commitSerialized, type CommitTables, type SerializedFile } from '../store-commit.ts';
import { FileTable } from '../store-files.ts';
import { GitCommitTable } from '../store-git-commits.ts';
import { MetaTable } from '../store-meta.ts';
import { openStoreDatabase, STORE_CACHE_KIB } from '../store-schema.ts';
import { StageTable } from '../store-stage.ts';
import type { CommitRequest, CommitResponse } from './protocol.ts';

type Connection = CommitTables & { stage: StageTable };

const connections = new Map<string, Connection>();
/** Why staging a run's rows failed: its commit reports it (nothing of it was written then). */
const failed = new Map<number, Error>();

function tablesOf(dir: string, busyTimeoutMs: number): Connection {
  let t = connections.get(dir);
  if (!t) {
    const { db } = openStoreDatabase(dir, busyTimeoutMs, STORE_CACHE_KIB.writer);
    connections.set(dir, (t = { db, files: new FileTable(db), git: new GitCommitTable(db), meta: new MetaTable(db), stage: new StageTable(db) }));
  }
  return t;
}

const errorOf = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
/** Fault injection for tests: the worker holds each commit this long before its transaction. */
const commitDelayMs = Number(process.env.M1ND_TEST_COMMIT_DELAY_MS ?? 0);

parentPort!.on('message', (req: CommitRequest) => {
  if (req.type === 'files') {
    // Staged in the store at once: the worker's heap holds one message's rows at most.
    if (failed.has(req.id)) return;
    try {
      tablesOf(req.dir, req.busyTimeoutMs).stage.add(req.run, req.seq, req.files);
      parentPort!.postMessage({ type: 'staged', id: req.id, upTo: req.seq + req.files.length } satisfies CommitResponse);
    } catch (err) {
      failed.set(req.id, errorOf(err));
    }
    return;
  }
  if (req.type === 'close') {
    // After everything sent before it (a dropped run's clean-up included): the store's owner
    // closed it and waits for this so no connection of the process holds its files afterwards.
    const t = connections.get(req.dir);
    connections.delete(req.dir);
    try {
      t?.db.close();
    } catch {
      // Closing a connection does not fail in a way the owner could act on.
    }
    parentPort!.postMessage({ type: 'closed', id: req.id } satisfies CommitResponse);
    return;
  }
  if (req.type === 'drop') {
    failed.delete(req.id);
    try {
      tablesOf(req.dir, req.busyTimeoutMs).stage.drop(req.run);
    } catch {
      // Left for a later commit to delete as stale.
    }
    return;
  }
  let res: CommitResponse;
  if (commitDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, commitDelayMs);
  const t = tablesOf(req.dir, req.busyTimeoutMs);
  try {
    const error = failed.get(req.id);
    if (error) throw error;
    const { generation, previous } = commitSerialized(t, { files: [], removes: req.removes, gitCommits: req.gitCommits, meta: req.meta, extensions: req.extensions }, undefined, { table: t.stage, run: req.run });
    res = { type: 'done', id: req.id, generation, previous };
  } catch (err) {
    res = { type: 'error', id: req.id, message: errorOf(err).message, code: (err as { code?: string }).code };
    try {
      t.stage.drop(req.run);
    } catch {
      // Left for a later commit to delete as stale.
    }
  } finally {
    failed.delete(req.id);
  }
  parentPort!.postMessage(res);
});
