import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { SNAPSHOT_FORMAT } from '../../../../plugins/graph/engine/graph-snapshot.ts';
import { CHUNK_BYTES, SnapshotTable } from '../../../../plugins/graph/engine/store-snapshot.ts';
import { FIXTURE_FILES } from '../../../helpers/fixture-repo.ts';
import { git, removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

/** A multi-language workspace with git history (co-change edges, commit facts) and non-Latin-1 text. */
const FILES: Record<string, string> = {
  ...FIXTURE_FILES,
  'py/names.py': `"""Ünïcode names: naïve café → 日本語 ✓."""
from retry import backoff


class Grüße:
    """Greets in German, or 日本語."""

    def sage(self, wer):
        return backoff(1)


def main():
    return Grüße().sage("Welt")
`,
  'java/com/acme/Shop.java': `package com.acme;

import java.util.List;

/** A shop. */
public class Shop extends Base implements Runnable {
  public void run() { open(); }
  void open() {}
}
`,
  'java/com/acme/Base.java': `package com.acme;

public class Base {
  protected void close() {}
}
`,
  'src/unresolved.ts': `import { nothing } from './missing.ts';
import lodash from 'lodash';
export const x = nothing + lodash;
`,
};

function engineOn(root: string, options: { snapshots?: boolean } = {}): CodeGraphEngine {
  return new CodeGraphEngine({ root, typeCheck: false, parseWorkers: 0, ...options });
}

/** Every node (sorted by id) and every live edge (as text, sorted): equal graphs give equal shapes. */
function shape(engine: CodeGraphEngine) {
  const g = engine.graph;
  const nodes = [...g.nodes()].map(([, n]) => n).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const edges: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const edge = g.edge(e);
    if (edge) edges.push(`${edge.source} -${edge.relation}-> ${edge.target} ${edge.weight}`);
  }
  return { nodes, edges: edges.sort(), files: engine.filePaths(), unresolved: engine.unresolvedImports(), parseErrors: engine.parseErrorFiles() };
}

function snapshotRow(root: string, fn: (db: Database.Database) => void): void {
  const db = new Database(join(root, '.m1nd', 'm1nd.db'));
  try {
    fn(db);
  } finally {
    db.close();
  }
}

describe('the graph snapshot', function () {
  this.timeout(120000);
  let root: string;

  beforeEach(async () => {
    root = writeWorkspace(FILES, 'm1nd-snapshot-');
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'first', '--date', '2026-01-01T00:00:00Z');
    writeFiles(root, { 'src/math.ts': `${FILES['src/math.ts']}\nexport const ten = 10;\n`, 'src/cart.ts': `${FILES['src/cart.ts']}\n// touched\n` });
    git(root, 'commit', '-q', '-am', 'second', '--date', '2026-01-02T00:00:00Z');
    const writer = engineOn(root);
    await writer.ingest();
    await writer.close();
    assert.equal(writer.loadStats().snapshotWrites, 1, 'the ingest wrote a snapshot');
  });

  afterEach(() => removeWorkspace(root));

  it('loads the same nodes, edges and file facts as re-linking the stored extractions', async () => {
    const fromSnapshot = engineOn(root);
    const relinked = engineOn(root, { snapshots: false });
    try {
      const a = await fromSnapshot.open();
      const b = await relinked.open();
      assert.deepEqual(fromSnapshot.loadStats(), { snapshotLoads: 1, extractionLoads: 0, builderBuilds: 0, snapshotWrites: 0, lastMiss: null });
      assert.equal(relinked.loadStats().extractionLoads, 1);
      assert.deepEqual({ ...a, elapsedMs: 0 }, { ...b, elapsedMs: 0 });
      const sa = shape(fromSnapshot);
      const sb = shape(relinked);
      assert.ok(sa.edges.some((e) => e.includes('-co_changes->')), 'the fixture has co-change edges');
      assert.ok(sa.nodes.some((n) => n.label === 'Grüße' && n.doc?.includes('日本語')), 'non-Latin-1 labels and docs survive');
      assert.ok(sa.nodes.some((n) => n.commitCount === 2 && n.lastCommitAt !== undefined), 'git facts on file nodes survive');
      assert.ok(sa.unresolved.length >= 2, 'unresolved imports are kept');
      assert.deepEqual(sa, sb);
      // Lookups that go through the graph's indices answer alike.
      assert.deepEqual(fromSnapshot.findNodes('Shop').map((m) => m.node.id), relinked.findNodes('Shop').map((m) => m.node.id));
      assert.deepEqual(fromSnapshot.symbolAt('py/names.py', 9)?.id, relinked.symbolAt('py/names.py', 9)?.id);
      assert.deepEqual(fromSnapshot.gitHistory().facts, relinked.gitHistory().facts);
    } finally {
      await fromSnapshot.close();
      await relinked.close();
    }
  });

  it('ignores a snapshot the store moved past, loads by re-linking, and writes a fresh one', async () => {
    // Another process commits a change without writing a snapshot: the stored one is now stale.
    writeFiles(root, { 'py/extra.py': 'def extra():\n    return 1\n' });
    const other = engineOn(root, { snapshots: false });
    await other.ingest({ incremental: true });
    await other.close();

    const engine = engineOn(root);
    await engine.open();
    assert.equal(engine.loadStats().lastMiss, 'stale');
    assert.equal(engine.loadStats().extractionLoads, 1);
    assert.ok(engine.getNode('function:py/extra.py#extra'), 'the graph has the other process’s change');
    await engine.close();
    assert.equal(engine.loadStats().snapshotWrites, 1, 'the re-linked load wrote a snapshot for the current state');

    const again = engineOn(root);
    const relinked = engineOn(root, { snapshots: false });
    try {
      await again.open();
      await relinked.open();
      assert.equal(again.loadStats().snapshotLoads, 1);
      assert.deepEqual(shape(again), shape(relinked));
    } finally {
      await again.close();
      await relinked.close();
    }
  });

  it('ignores a corrupt snapshot or one of another format and rebuilds the same graph', async () => {
    const relinked = engineOn(root, { snapshots: false });
    await relinked.open();
    const expected = shape(relinked);
    await relinked.close();

    // One flipped byte deep in the body (the checksum catches it).
    snapshotRow(root, (db) => {
      const { seq, data } = db.prepare('SELECT seq, data FROM graph_snapshot_chunks ORDER BY seq DESC LIMIT 1').get() as { seq: number; data: Buffer };
      data[data.length - 100] ^= 0xff;
      db.prepare('UPDATE graph_snapshot_chunks SET data = ? WHERE seq = ?').run(data, seq);
    });
    const corrupt = engineOn(root, { snapshots: true });
    await corrupt.open();
    assert.equal(corrupt.loadStats().lastMiss, 'corrupt');
    assert.deepEqual(shape(corrupt), expected);
    await corrupt.close();

    // The load that found it unreadable wrote a good one in its place.
    const next = engineOn(root);
    await next.open();
    assert.equal(next.loadStats().snapshotLoads, 1, 'the load after a corrupt snapshot wrote a good one');
    assert.deepEqual(shape(next), expected);
    await next.close();

    // Truncated bytes, a missing chunk and another format are ignored too (each load writes a good one back).
    snapshotRow(root, (db) => db.prepare('UPDATE graph_snapshot_chunks SET data = substr(data, 1, 40) WHERE seq = (SELECT MIN(seq) FROM graph_snapshot_chunks)').run());
    const truncated = engineOn(root);
    await truncated.open();
    assert.equal(truncated.loadStats().lastMiss, 'corrupt');
    assert.deepEqual(shape(truncated), expected);
    await truncated.close();
    snapshotRow(root, (db) => db.prepare('DELETE FROM graph_snapshot_chunks WHERE seq = (SELECT MIN(seq) FROM graph_snapshot_chunks)').run());
    const missing = engineOn(root);
    await missing.open();
    assert.equal(missing.loadStats().lastMiss, 'corrupt');
    assert.deepEqual(shape(missing), expected);
    await missing.close();
    snapshotRow(root, (db) => db.prepare('UPDATE graph_snapshot SET format = format + 1').run());
    const format = engineOn(root);
    await format.open();
    assert.equal(format.loadStats().lastMiss, 'format');
    assert.deepEqual(shape(format), expected);
    await format.close();

    // A snapshot stamped with the bare layout number (as code linking by other rules wrote it) is re-linked, not served.
    snapshotRow(root, (db) => db.prepare('UPDATE graph_snapshot SET format = ?').run(SNAPSHOT_FORMAT));
    const older = engineOn(root);
    await older.open();
    assert.equal(older.loadStats().lastMiss, 'format');
    assert.equal(older.loadStats().snapshotLoads, 0);
    assert.deepEqual(shape(older), expected);
    await older.close();
    const restamped = engineOn(root);
    await restamped.open();
    assert.equal(restamped.loadStats().snapshotLoads, 1, 'the re-link wrote a snapshot stamped by this code');
    await restamped.close();
  });

  it('answers queries without building the builder state, and builds it for an incremental ingest that then matches a full ingest', async () => {
    const engine = engineOn(root);
    try {
      await engine.open();
      await engine.ensureFresh();
      assert.ok(engine.findNodes('total').length > 0);
      await engine.prepareSeek();
      assert.ok(engine.seek('retry backoff').results.length > 0);
      assert.ok(engine.nodeStats('function:src/math.ts#add').inDegree > 0);
      assert.ok(engine.search('total').matches.length > 0);
      engine.status();
      engine.parseErrorFiles();
      assert.equal(engine.loadStats().builderBuilds, 0, 'no query built the builder state');

      // An edit: the incremental ingest builds the builder state once, then patches it.
      writeFiles(root, {
        'src/math.ts': `${FILES['src/math.ts']}\nexport function sub(a: number, b: number): number {\n  return add(a, -b);\n}\n`,
        'py/retry.py': FILES['py/retry.py'].replace('def backoff', 'def back_off').replace('backoff(attempt)', 'back_off(attempt)'),
      });
      await engine.ingest({ incremental: true });
      assert.equal(engine.loadStats().builderBuilds, 1);
      assert.equal(engine.loadStats().snapshotWrites, 0, 'a snapshot is written after a quiet moment (or at close), not after every ingest');
      assert.ok(engine.getNode('function:src/math.ts#sub'));

      const full = engineOn(root, { snapshots: false });
      try {
        await full.ingest();
        assert.deepEqual(shape(engine), shape(full));
      } finally {
        await full.close();
      }
    } finally {
      await engine.close();
    }
  });

  it('runs a full ingest after a snapshot load without building the old graph’s builder state, and gives the graph a fresh engine builds', async () => {
    const engine = engineOn(root);
    try {
      await engine.open();
      writeFiles(root, { 'go/client.go': 'package server\n\nfunc Dial() error {\n\treturn listen(80)\n}\n' });
      await engine.ingest();
      assert.equal(engine.loadStats().snapshotLoads, 1);
      assert.equal(engine.loadStats().builderBuilds, 0, 'the full ingest built a new graph; the old one was not re-linked first');
      assert.ok(engine.getNode('function:go/client.go#Dial'));
      const fresh = engineOn(root, { snapshots: false });
      try {
        await fresh.ingest();
        assert.deepEqual(shape(engine), shape(fresh));
        assert.deepEqual(engine.gitHistory().facts, fresh.gitHistory().facts);
      } finally {
        await fresh.close();
      }
    } finally {
      await engine.close();
    }
  });

  it('writes a snapshot a chunk per step into a range of its own, swapped in at the end: readers see the old one until then', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE graph_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, generation INTEGER NOT NULL, precise_version INTEGER NOT NULL, bytes INTEGER NOT NULL, chunks INTEGER NOT NULL);
      CREATE TABLE graph_snapshot_chunks (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);
      INSERT INTO meta (key, value) VALUES ('generation', '1'), ('precise_version', '0');`);
    const table = new SnapshotTable(db);
    const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
    const read = () => {
      const stamp = table.stamp()!;
      const parts: Buffer[] = [];
      for (let k = 0; k < stamp.chunks; k++) parts.push(table.chunk(k)!);
      return Buffer.concat(parts);
    };
    const a = bytes(CHUNK_BYTES * 2 + 10, 1);
    assert.equal(table.put(1, { generation: 1, preciseVersion: 0 }, a), true);
    assert.deepEqual(read(), Buffer.from(a));
    // A write interrupted earlier left chunks in another range: the next write drops them.
    db.prepare('INSERT INTO graph_snapshot_chunks (seq, data) VALUES (?, ?)').run(7 * 2 ** 20 + 3, Buffer.from('junk'));
    const b = bytes(CHUNK_BYTES * 3 + 5, 2);
    const steps = table.putSteps(1, { generation: 1, preciseVersion: 0 }, b);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) {
      yields++;
      assert.deepEqual(read(), Buffer.from(a), 'the stored snapshot is the old one while the new one is staged');
    }
    assert.equal(r.value, true);
    assert.equal(yields, 8, 'a yield point before and after each chunk inserted (the insert a step of its own)');
    assert.deepEqual(read(), Buffer.from(b));
    assert.equal((db.prepare('SELECT count(*) AS n FROM graph_snapshot_chunks').get() as { n: number }).n, 4, 'only the new range is left');
    // The store moved on while staging: nothing changes, the staged chunks go.
    const c = table.putSteps(1, { generation: 1, preciseVersion: 0 }, bytes(CHUNK_BYTES * 2, 3));
    c.next();
    db.prepare("UPDATE meta SET value = '2' WHERE key = 'generation'").run();
    let rc = c.next();
    while (!rc.done) rc = c.next();
    assert.equal(rc.value, false);
    assert.deepEqual(read(), Buffer.from(b));
    assert.equal((db.prepare('SELECT count(*) AS n FROM graph_snapshot_chunks').get() as { n: number }).n, 4);
    db.close();
  });
});

describe('the snapshot stamp of built and source code', () => {
  it('is the same hash whether the build script or the running sources compute it, so dist/ and its sources share a store', async () => {
    const { linkerRevision } = await import('../../../../plugins/graph/engine/linker-revision.ts');
    const script = (await import(new URL('../../../../scripts/linker-revision.mjs', import.meta.url).href)) as { linkerRevision(dir: string): string };
    const dir = new URL('../../../../plugins/graph/engine/', import.meta.url).pathname;
    assert.match(linkerRevision(dir), /^[0-9a-f]{10}$/);
    assert.equal(script.linkerRevision(dir), linkerRevision(dir));
  });
});
