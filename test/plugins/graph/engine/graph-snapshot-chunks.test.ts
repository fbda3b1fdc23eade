import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CodeGraph } from '../../../../plugins/graph/engine/graph.ts';
import type { GraphBuilder } from '../../../../plugins/graph/engine/build.ts';
import { chunksOf, type ChunkStep, type SnapshotChunk, type SnapshotSize } from '../../../../plugins/graph/engine/graph-snapshot-chunks.ts';
import { encodeSnapshotChunks } from '../../../../plugins/graph/engine/graph-snapshot-encode.ts';
import { writeSnapshotSteps } from '../../../../plugins/graph/engine/graph-snapshot-store.ts';
import { decodeSnapshot } from '../../../../plugins/graph/engine/graph-snapshot.ts';
import { heapGrowthHolders } from '../../../../plugins/graph/engine/heap-growth.ts';
import { runSteps } from '../../../../plugins/graph/engine/steps.ts';
import { SnapshotTable, type SnapshotKey } from '../../../../plugins/graph/engine/store-snapshot.ts';
import type { GraphStore } from '../../../../plugins/graph/engine/store.ts';
import { facts, sampleGraph } from './snapshot-sample.ts';

/** Runs the encoder to the end and assembles its chunks by number (copies: the encoder reuses its buffer). */
function encode(g: CodeGraph, files: number, chunkBytes: number): { bytes: Buffer; order: number[] } {
  const steps = encodeSnapshotChunks(g, facts(files), chunkBytes);
  const chunks = new Map<number, Buffer>();
  const order: number[] = [];
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) {
      assert.equal(chunks.size, r.value.chunks);
      const bytes = Buffer.concat([...Array(r.value.chunks).keys()].map((k) => chunks.get(k)!));
      assert.equal(bytes.length, r.value.bytes);
      return { bytes, order };
    }
    const c: SnapshotChunk | undefined = r.value;
    if (!c) continue;
    assert.ok(!chunks.has(c.seq), `chunk ${c.seq} handed out once`);
    if (c.seq > 0) assert.equal(c.data.length <= chunkBytes, true);
    chunks.set(c.seq, Buffer.from(c.data));
    order.push(c.seq);
  }
}

/** Live nodes in slot order and live edges with endpoints as ids: what a snapshot must give back. */
function shape(g: CodeGraph) {
  const nodes = [...g.nodes()].map(([, n]) => n);
  const edges: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const edge = g.edge(e);
    if (edge) edges.push(`${edge.source}>${edge.target}:${edge.relation}:${edge.weight}`);
  }
  return { nodes, edges };
}

describe('the graph snapshot written a chunk at a time', function () {
  // The two memory measures run in a child process each: full GCs there walk a small heap (4 s a measure), in the test runner's a big one (15 s).
  this.timeout(60_000);
  it('gives the same bytes whatever the chunk size, handing chunk 0 (the checksum) out last, and decodes to the same graph', () => {
    const g = sampleGraph(40);
    const big = encode(g, 40, 128 * 1024);
    assert.deepEqual(big.order, [0], 'a small graph is one chunk');
    for (const size of [64, 72, 1000, 4096]) {
      const small = encode(g, 40, size);
      assert.ok(small.order.length > 3, `${size}-byte chunks: several`);
      assert.equal(small.order.at(-1), 0, 'chunk 0 last');
      assert.ok(small.bytes.equals(big.bytes), `${size}-byte chunks give the same bytes`);
    }
    const decoded = runSteps(decodeSnapshot(new Uint8Array(big.bytes)));
    const back = new CodeGraph();
    runSteps(back.restore(decoded.nodes, decoded.edgeSource, decoded.edgeTarget, decoded.edgeRelation, decoded.edgeWeight));
    const want = shape(g);
    assert.deepEqual(shape(back), want);
    assert.equal(want.nodes.length, 40 * 13 - 1);
    assert.ok(want.nodes.some((n) => n.label.includes('😀')) && want.nodes.some((n) => n.signatures?.length === 2));
    assert.deepEqual(decoded.files, facts(40).files);
  });

  it('holds no node columns and no header bytes or string offsets: at every step only the slot remap, a byte a node and the file columns are held outside the heap', async () => {
    const m = await measureInChild('outside');
    // Node columns would be 1 + 1 + 2 + 4 × 8 + 8 + 4 bytes a node (48), made before the write. What is
    // held: the remap (4 bytes a slot), the string classes (1 byte a node), the file columns and two
    // chunks. The code that made the columns first held 4.3 MB here at the most (0.6 MB now); before
    // it dropped each once written, 7.0 MB at the last chunk.
    const columns = 48 * m.nodeCount;
    assert.ok(columns > 3_500_000, `columns ${columns} bytes`);
    assert.ok(m.steps > 200, `${m.steps} steps`);
    assert.ok(m.most < 4 * m.nodeCapacity + columns / 8, `${m.most} bytes outside the heap at the most (columns ${columns}, remap ${4 * m.nodeCapacity})`);
    assert.ok(m.last < 4 * m.nodeCapacity + columns / 8, `${m.last} bytes outside the heap at the last chunk`);
  });

  it('holds no string tables on the heap: the entries are replayed from the nodes as the tables are written', async () => {
    const m = await measureInChild('heap');
    // Table entries: id, qualified name and the doc or signatures of most nodes (~3.5 a node). As arrays of
    // strings (8 bytes an entry, grown by copies) with each signature's JSON, the heap held 5.4 MB more
    // here at the most; held now (3.1 MB): the shared strings' map (labels and paths) and a replay's
    // batch. The bound (5.7 MB) sits between those and the tables' 8.5 MB.
    const entries = 3.5 * m.nodeCount;
    assert.ok(m.steps > 200, `${m.steps} steps`);
    assert.ok(m.most < 21 * entries, `${m.most} bytes more on the heap at the most (${entries} entries)`);
  });

  it('stores the chunks as they come (a copy of each), and a read gives back the encoded bytes', () => {
    const db = snapshotDb(':memory:');
    const table = new SnapshotTable(db);
    const g = sampleGraph(300);
    const whole = encode(g, 300, 128 * 1024).bytes;
    assert.ok(whole.length > 2 * 128 * 1024, 'several chunks of the store’s size');
    assert.equal(table.put(1, { generation: 1, preciseVersion: 0 }, encodeSnapshotChunks(g, facts(300), 128 * 1024)), true);
    assert.ok(readStored(table).equals(whole));
    db.close();
  });

  it('holds the heap growth bound while a snapshot is encoded and written, and releases it after', () => {
    const db = snapshotDb(':memory:');
    const table = new SnapshotTable(db);
    const g = sampleGraph(300);
    const builder = { graph: g, snapshotFiles: () => facts(300).files, unresolvedImports: () => facts(300).unresolved } as unknown as GraphBuilder;
    const store = { writeSnapshotSteps: (format: number, key: SnapshotKey, data: Iterator<ChunkStep, SnapshotSize>) => table.putSteps(format, key, data) } as unknown as GraphStore;
    const before = heapGrowthHolders();
    const steps = writeSnapshotSteps(store, { generation: 1, preciseVersion: 0 }, builder, () => 'k', null);
    let held = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) if (heapGrowthHolders() === before + 1) held++;
    assert.equal(r.value, true);
    assert.ok(held > 3, `held at ${held} steps`);
    assert.equal(heapGrowthHolders(), before, 'released');
    assert.ok(readStored(table).equals(encode(g, 300, 128 * 1024).bytes));
    db.close();
  });

  it('leaves the stored snapshot whole when the encoder fails mid-write, and drops what it staged', () => {
    const db = snapshotDb(':memory:');
    const table = new SnapshotTable(db);
    const old = new Uint8Array(300_000).fill(5);
    assert.equal(table.put(1, { generation: 1, preciseVersion: 0 }, old), true);
    function* failing(): Generator<SnapshotChunk | undefined, never> {
      const whole = chunksOf(new Uint8Array(128 * 1024 * 3).fill(6), 128 * 1024);
      yield whole.next().value as SnapshotChunk;
      yield whole.next().value as SnapshotChunk;
      throw new Error('encoder failed');
    }
    assert.throws(() => table.put(1, { generation: 1, preciseVersion: 0 }, failing()), /encoder failed/);
    assert.ok(readStored(table).equals(Buffer.from(old)));
    assert.equal(count(db), 3, 'only the old snapshot’s chunks are left');
    db.close();
  });

  it('leaves the stored snapshot whole when the writing process is killed mid-write; the next write drops the leftovers', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'm1nd-snapshot-kill-'));
    try {
      const file = join(dir, 'store.db');
      const db = snapshotDb(file);
      const table = new SnapshotTable(db);
      const old = new Uint8Array(400_000).map((_, i) => i % 251);
      assert.equal(table.put(1, { generation: 1, preciseVersion: 0 }, old), true);
      db.close();
      // A child stages a few chunks of a bigger snapshot, says so, and waits to be killed.
      const child = spawn(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', CHILD.replace('$FILE', JSON.stringify(file))], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('staged') && resolve());
        child.on('exit', (code) => reject(new Error(`child exited ${code} before staging`)));
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const after = new Database(file);
      const t2 = new SnapshotTable(after);
      assert.ok(count(after) > 4, 'the killed write left staged chunks behind');
      assert.ok(readStored(t2).equals(Buffer.from(old)), 'the stored snapshot is the old one, whole');
      const next = new Uint8Array(200_000).fill(9);
      assert.equal(t2.put(1, { generation: 1, preciseVersion: 0 }, next), true);
      assert.ok(readStored(t2).equals(Buffer.from(next)));
      assert.equal(count(after), 2, 'the next write dropped the leftovers');
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const CHILD = `
import Database from 'better-sqlite3';
import { SnapshotTable } from ${JSON.stringify(new URL('../../../../plugins/graph/engine/store-snapshot.ts', import.meta.url).href)};
const db = new Database($FILE);
db.pragma('journal_mode = WAL');
const table = new SnapshotTable(db);
function* chunks() {
  for (let seq = 1; seq <= 4; seq++) yield { seq, data: new Uint8Array(128 * 1024).fill(seq) };
  process.stdout.write('staged\\n');
  for (;;) yield undefined;
}
const steps = table.putSteps(1, { generation: 1, preciseVersion: 0 }, chunks());
for (let i = 0; i < 5; i++) steps.next();
setInterval(() => steps.next(), 5);
`;

function snapshotDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS graph_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, generation INTEGER NOT NULL, precise_version INTEGER NOT NULL, bytes INTEGER NOT NULL, chunks INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS graph_snapshot_chunks (seq INTEGER PRIMARY KEY, data BLOB NOT NULL);
    INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', '1'), ('precise_version', '0');`);
  return db;
}

function readStored(table: SnapshotTable): Buffer {
  const stamp = table.stamp()!;
  const parts: Buffer[] = [];
  for (let k = 0; k < stamp.chunks; k++) parts.push(table.chunk(k)!);
  const out = Buffer.concat(parts);
  assert.equal(out.length, stamp.bytes);
  return out;
}

function count(db: Database.Database): number {
  return (db.prepare('SELECT count(*) AS n FROM graph_snapshot_chunks').get() as { n: number }).n;
}

/**
 * Encodes the 6,000-file sample graph in 64 KiB chunks in a fresh process and reports the most memory
 * held over the start, after full GCs every 32 steps: `outside` the heap (array buffers), or on the
 * `heap`; `last` is the figure at chunk 0 (written last).
 */
async function measureInChild(kind: 'outside' | 'heap'): Promise<{ most: number; last: number; steps: number; nodeCount: number; nodeCapacity: number }> {
  const url = (rel: string) => JSON.stringify(new URL(rel, import.meta.url).href);
  const code = `
import { encodeSnapshotChunks } from ${url('../../../../plugins/graph/engine/graph-snapshot-encode.ts')};
import { facts, sampleGraph } from ${url('./snapshot-sample.ts')};
const kind = ${JSON.stringify(kind)};
const files = 6000;
const g = sampleGraph(files);
const f = facts(files);
// A header of ~1.5 MB (the python3 prefix's unresolved imports made one of 2.6 MB).
if (kind === 'outside') f.unresolved = Array.from({ length: 30_000 }, (_, i) => ({ from: 'pkg/m' + (i % files) + '.py', specifier: 'missing.module_' + i }));
const held = () => (gc(), gc(), kind === 'outside' ? process.memoryUsage().arrayBuffers : process.memoryUsage().heapUsed);
const base = held();
const steps = encodeSnapshotChunks(g, f, 64 * 1024);
let most = 0, last = 0, k = 0;
for (let r = steps.next(); !r.done; r = steps.next(), k++) {
  if (kind === 'outside' && r.value?.seq === 0) last = held() - base;
  else if (k % 32 === 0) most = Math.max(most, held() - base);
}
process.stdout.write(JSON.stringify({ most, last, steps: k, nodeCount: g.nodeCount, nodeCapacity: g.nodeCapacity }));
`;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx/esm', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  const exit = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(exit, 0, `measure child exited ${exit}`);
  return JSON.parse(out);
}
