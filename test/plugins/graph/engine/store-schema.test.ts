import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainSqliteLoadError, openStoreDatabase, STORE_CACHE_KIB } from '../../../../plugins/graph/engine/store-schema.ts';
import { GraphStore } from '../../../../plugins/graph/engine/store.ts';

describe('opening the SQLite store', () => {
  it('names the missing native binary and the command that restores it, instead of a list of paths', () => {
    // The text better-sqlite3's `bindings` loader throws when the install script never ran.
    const raw = new Error('Could not locate the bindings file. Tried:\n → /x/node_modules/better-sqlite3/build/better_sqlite3.node\n → /x/node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    const explained = explainSqliteLoadError(raw) as Error;
    assert.notEqual(explained, raw);
    assert.match(explained.message, /native binary is missing/);
    assert.match(explained.message, /npm rebuild better-sqlite3/);
    assert.match(explained.message, /npm install-scripts approve better-sqlite3/);
    assert.doesNotMatch(explained.message, /Release/, 'the tried paths are left in the cause');
    assert.equal(explained.cause, raw);
    const abi = new Error("The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127.");
    assert.match((explainSqliteLoadError(abi) as Error).message, /built for another Node/);
  });

  it('lets every other error through unchanged', () => {
    const other = new Error('SQLITE_CANTOPEN: unable to open database file');
    assert.equal(explainSqliteLoadError(other), other);
  });

  it('still opens a store in WAL mode with the schema applied', () => {
    const dir = mkdtempSync(join(tmpdir(), 'm1nd-schema-'));
    try {
      const { db } = openStoreDatabase(join(dir, '.m1nd'));
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.ok(db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get());
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the main connection's page cache at SQLite's 2 MB and the commit worker's at 4 MB, not better-sqlite3's 16 MB", async () => {
    // Another connection's commit empties this cache on the next read, on the main thread: a full
    // 16 MB cache (better-sqlite3's default) cost that read 25–55 ms at 10,000 files.
    const dir = mkdtempSync(join(tmpdir(), 'm1nd-schema-'));
    try {
      const store = new GraphStore(join(dir, '.m1nd'));
      const db = (store as unknown as { db: { pragma(s: string, o: { simple: true }): unknown } }).db;
      assert.equal(db.pragma('cache_size', { simple: true }), -2000);
      const { db: worker } = openStoreDatabase(join(dir, '.m1nd'), 10_000, STORE_CACHE_KIB.writer);
      assert.equal(worker.pragma('cache_size', { simple: true }), -4000, 'the worker keeps a larger cache for its big commits');
      worker.close();
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
