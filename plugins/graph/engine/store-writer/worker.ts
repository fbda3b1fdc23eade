/**
 * The commit worker: holds its own connection to a store and writes an ingest's rows, sent in
 * chunks, in one IMMEDIATE transaction when the commit message arrives, so the main thread's event
 * loop stays free while SQLite writes. Nothing is written before the commit message; a store
 * connection is kept per directory until the worker stops.
 */
import { parentPort } from 'node:worker_threads';
import { commitSerialized, type CommitTables, type SerializedFile } from '../store-commit.ts';
import { FileTable } from '../store-files.ts';
import { GitCommitTable } from '../store-git-commits.ts';
import { MetaTable } from '../store-meta.ts';
import { openStoreDatabase } from '../store-schema.ts';
import type { CommitRequest, CommitResponse } from './protocol.ts';

const connections = new Map<string, CommitTables>();
const pending = new Map<number, SerializedFile[]>();

function tablesOf(dir: string, busyTimeoutMs: number): CommitTables {
  let t = connections.get(dir);
  if (!t) {
    const { db } = openStoreDatabase(dir, busyTimeoutMs);
    connections.set(dir, (t = { db, files: new FileTable(db), git: new GitCommitTable(db), meta: new MetaTable(db) }));
  }
  return t;
}

parentPort!.on('message', (req: CommitRequest) => {
  if (req.type === 'files') {
    let files = pending.get(req.id);
    if (!files) pending.set(req.id, (files = []));
    for (const f of req.files) files.push(f);
    return;
  }
  if (req.type === 'drop') {
    pending.delete(req.id);
    return;
  }
  const files = pending.get(req.id) ?? [];
  pending.delete(req.id);
  let res: CommitResponse;
  try {
    const { generation, previous } = commitSerialized(tablesOf(req.dir, req.busyTimeoutMs), { files, removes: req.removes, gitCommits: req.gitCommits, meta: req.meta });
    res = { type: 'done', id: req.id, generation, previous };
  } catch (err) {
    res = { type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err), code: (err as { code?: string }).code };
  }
  parentPort!.postMessage(res);
});
