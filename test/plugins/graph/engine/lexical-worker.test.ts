import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { buildProcessMinNodes } from '../../../../plugins/graph/engine/lexical-index.ts';
import type { GraphService } from '../../../../plugins/graph/service.ts';
import { connect, type Harness } from '../../../helpers/mcp.ts';
import { describeHeld, pingDuring } from '../../../helpers/ping.ts';
import { removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

const MODULES = 1500;

/** Python, TypeScript and Go modules with docs and bodies (signature and body fields come from the files). */
function generatedRepo(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < MODULES; i++) {
    const pkg = `pkg${Math.floor(i / 30)}`;
    if (i % 3 === 0) {
      files[`${pkg}/ledger_${i}.py`] = [
        `def reconcile_ledger_${i}(entries, shard):`,
        `    """Reconciles the ledger entries of shard ${i}."""`,
        `    total = sum(e.amount for e in entries)`,
        `    return total + shard`,
        '',
        `class LedgerAudit${i}:`,
        `    def verify_balance(self, account):`,
        `        return account.balance >= ${i}`,
        '',
      ].join('\n');
    } else if (i % 3 === 1) {
      files[`${pkg}/invoice${i}.ts`] = [
        `/** Renders invoice ${i} as HTML for the customer portal. */`,
        `export function renderInvoice${i}(amount: number, currency: string): string {`,
        `  return '<p>' + amount + currency + '</p>';`,
        `}`,
        `export class InvoiceStore${i} {`,
        `  save(invoice: number): number {`,
        `    return invoice + ${i};`,
        `  }`,
        `}`,
      ].join('\n');
    } else {
      files[`${pkg}/retry${i}.go`] = [`package ${pkg}`, '', `// BackoffDelay${i} computes the retry delay for an attempt.`, `func BackoffDelay${i}(attempt int) int {`, `\treturn attempt * ${i}`, `}`].join('\n');
    }
  }
  return files;
}

const PHRASES = ['reconcile ledger entries', 'render invoice html', 'retry delay attempt', 'verify balance account', 'save invoice store', 'customer portal', 'where is the backoff computed', 'ledger audit', 'shard total amount', 'currency'];

/** 100 queries: the phrases and labels spread over the graph. */
function queriesOf(e: CodeGraphEngine): string[] {
  const out = [...PHRASES];
  const g = e.graph;
  const step = Math.max(1, Math.floor(g.nodeCapacity / 90));
  for (let i = 0; i < g.nodeCapacity && out.length < 100; i += step) {
    const n = g.node(i);
    if (n) out.push(n.label.replace(/_/g, ' '));
  }
  return out;
}

const answers = (e: CodeGraphEngine, queries: readonly string[]): string => JSON.stringify(queries.map((q) => e.seek(q, { topK: 20, minScore: 0 }).results.map((h) => [h.id, h.score])));
const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');
type Lexical = { fileWrite: Promise<void> | null; rebuild(g: unknown): void };
const lexicalOf = (e: CodeGraphEngine): Lexical => (e as unknown as { loaded: { lexical: Lexical } }).loaded.lexical;

describe('the seek index built in a child process', function () {
  this.timeout(600_000);
  let root: string;
  const engines: CodeGraphEngine[] = [];
  const indexFile = (): string => join(root, '.m1nd', 'seek-index.bin');
  const open = async (): Promise<CodeGraphEngine> => {
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    engines.push(e);
    await e.open();
    return e;
  };

  const previous = process.env.M1ND_SEEK_PROCESS_NODES;
  before(async () => {
    process.env.M1ND_SEEK_PROCESS_NODES = '4096'; // this fixture's graph counts as big
    root = writeWorkspace(generatedRepo(), 'm1nd-seek-worker-');
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    await e.ingest();
    assert.ok(e.graph.nodeCapacity >= buildProcessMinNodes(), `${e.graph.nodeCapacity} node slots: too few for a worker build`);
    await e.close();
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  after(() => {
    if (previous === undefined) delete process.env.M1ND_SEEK_PROCESS_NODES;
    else process.env.M1ND_SEEK_PROCESS_NODES = previous;
    removeWorkspace(root);
  });

  it('builds a big graph off the main thread, answering 100 queries exactly as a build on the main thread, and a new engine reads the file it wrote', async () => {
    rmSync(indexFile(), { force: true });
    const a = await open();
    await a.prepareSeek();
    assert.equal(a.status().lexical.workerBuilds, 1);
    assert.equal(a.status().lexical.builds, 1);
    const queries = queriesOf(a);
    assert.equal(queries.length, 100);
    const fromWorker = answers(a, queries);
    assert.match(fromWorker, /function:pkg0\/ledger_0\.py#reconcile_ledger_0/);
    await lexicalOf(a).fileWrite;
    assert.equal(a.status().lexical.fileWrites, 1);
    // The same graph indexed on the main thread, from the engine's own file contents.
    lexicalOf(a).rebuild(a.graph);
    assert.equal(a.status().lexical.workerBuilds, 1);
    assert.equal(sha1(answers(a, queries)), sha1(fromWorker));
    await a.close();
    const b = await open();
    await b.prepareSeek();
    assert.deepEqual({ loads: b.status().lexical.fileLoads, builds: b.status().lexical.builds }, { loads: 1, builds: 0 });
    assert.equal(sha1(answers(b, queries)), sha1(fromWorker));
  });

  it('rebuilds the index file in the background after an incremental ingest, and a new engine reads it instead of building', async () => {
    const a = await open();
    await a.prepareSeek();
    await lexicalOf(a).fileWrite;
    // The first change after a load from the graph snapshot swaps the snapshot's view for a builder's
    // graph: a full build (in the worker) for it, written too.
    writeFiles(root, { 'pkg3/courier.py': 'def reroute_parcel_courier(parcel, depot):\n    """Sends a parcel to another courier depot."""\n    return depot.route(parcel)\n' });
    await a.ingest({ paths: ['pkg3/courier.py'] });
    await a.prepareSeek();
    await lexicalOf(a).fileWrite;
    const builds = a.status().lexical.builds;
    const before = readFileSync(indexFile());
    writeFiles(root, { 'pkg4/courier.py': 'def track_courier_van(van):\n    """Where the courier van is now."""\n    return van.position\n' });
    await a.ingest({ paths: ['pkg4/courier.py'] });
    await a.prepareSeek(); // catches up incrementally, then schedules the file's rebuild
    assert.equal(a.status().lexical.builds, builds, 'the change was indexed incrementally');
    for (let i = 0; i < 600 && a.status().lexical.rewrites === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(a.status().lexical.rewrites, 1, 'the index file was rebuilt after the change');
    await lexicalOf(a).fileWrite;
    assert.notDeepEqual(readFileSync(indexFile()), before);
    const queries = [...queriesOf(a), 'reroute parcel courier', 'courier depot', 'track courier van'];
    const expected = answers(a, queries);
    assert.match(expected, /reroute_parcel_courier/);
    assert.match(expected, /track_courier_van/);
    await a.close();
    const b = await open();
    await b.prepareSeek();
    assert.deepEqual({ loads: b.status().lexical.fileLoads, builds: b.status().lexical.builds }, { loads: 1, builds: 0 });
    assert.equal(answers(b, queries), expected);
  });

  it('leaves the old index file whole when a writer is killed mid-write, and the next write removes its temporary file', async () => {
    const a = await open();
    await a.prepareSeek();
    await lexicalOf(a).fileWrite;
    const queries = queriesOf(a);
    const expected = answers(a, queries);
    await a.close();
    const valid = readFileSync(indexFile());
    // A child process writes a 256 MB file over it and is killed once its temporary file has data.
    const script = join(root, 'kill-writer.mts');
    writeFileSync(
      script,
      `import { writeFileAtomic } from ${JSON.stringify(join(process.cwd(), 'plugins/graph/engine/lexical-persist.ts'))};\n` +
        `const part = Buffer.alloc(16 << 20, 7);\nawait writeFileAtomic(process.argv[2], Array.from({ length: 16 }, () => part));\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx/esm', script, indexFile()], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const tmp = (): string[] => readdirSync(join(root, '.m1nd')).filter((n) => n.startsWith('seek-index.bin.') && n.endsWith('.tmp'));
    // Killed once its temporary file exists (it is written, flushed, then renamed: 256 MB take a while).
    let killed = false;
    for (const t0 = Date.now(); !killed && child.exitCode === null && Date.now() - t0 < 120_000; ) {
      if (tmp().length) killed = child.kill('SIGKILL');
      else await new Promise((r) => setTimeout(r, 2));
    }
    await exited;
    assert.ok(killed, 'the writer was killed mid-write');
    assert.deepEqual(readFileSync(indexFile()), valid, 'the index file is the old one, whole');
    assert.equal(tmp().length, 1, 'the killed writer left its temporary file');
    const b = await open();
    await b.prepareSeek();
    assert.equal(b.status().lexical.fileLoads, 1);
    assert.equal(answers(b, queries), expected);
    // The next write (a build after the file is gone) removes the dead writer's temporary file.
    await b.close();
    rmSync(indexFile());
    const c = await open();
    await c.prepareSeek();
    await lexicalOf(c).fileWrite;
    assert.ok(existsSync(indexFile()));
    assert.deepEqual(tmp(), []);
    assert.equal(answers(c, queries), expected);
  });

  describe('through the MCP client', () => {
    let h: Harness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it('keeps answering pings within 50 ms of main-thread work (p99) while a new server builds the index for its first seek', async () => {
      rmSync(indexFile(), { force: true });
      const options = { graph: { watch: false, typeCheck: false, parseWorkers: 0 } };
      h = await connect({ workspaceRoot: root, config: { options }, env: { M1ND_CACHE_DIR: join(root, '.cache') } });
      const harness = h;
      const { result, held } = await pingDuring(harness, () => harness.call('seek', { agent_id: 'a', query: 'reconcile ledger entries', top_k: 5 }));
      assert.ok(!result.result.isError, JSON.stringify(result.json).slice(0, 300));
      assert.match(JSON.stringify(result.json.results), /reconcile_ledger/);
      const sorted = [...held].sort((x, y) => x - y);
      const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
      assert.ok(held.length >= 10 && p99 <= 50, describeHeld(held));
      const engine = (harness.host.current.services.get('graph')!.impl as GraphService).engine;
      assert.equal(engine.status().lexical.workerBuilds, 1);
    });
  });
});
