import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { fakeParser, fakeSource } from './fake-parser.ts';
import { removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

function child(script: string, args: string[]): { proc: ChildProcessWithoutNullStreams; lines: AsyncIterator<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(here, 'children', script), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  proc.on('exit', (code, signal) => {
    if (code && code !== 0 && signal === null) process.stderr.write(`child ${script} exited ${code}: ${stderr}\n`);
  });
  return { proc, lines: createInterface({ input: proc.stdout })[Symbol.asyncIterator]() };
}

async function nextLine(lines: AsyncIterator<string>): Promise<string> {
  const r = await lines.next();
  if (r.done) throw new Error('child closed its output');
  return r.value;
}

function exited(proc: ChildProcessWithoutNullStreams): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

function workspace(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`m${i}.py`] = fakeSource(`f${i}`, i > 0 ? [`f${i - 1}`] : []);
  return files;
}

describe('CodeGraphEngine across processes', function () {
  // Children start from sources (tsx), and a large ingest starts the store's commit worker too: slow on a loaded machine.
  this.timeout(90_000);

  it('lets a second process read what the first wrote, and see a newer generation on its next read', async () => {
    const root = writeWorkspace(workspace(5));
    const storeDir = join(root, '.m1nd');
    const writer = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
    try {
      await writer.open();
      const first = await writer.ingest();
      const { proc, lines } = child('reader.ts', [root, storeDir, 'function:late.py#late']);
      const seen1 = JSON.parse(await nextLine(lines));
      assert.equal(seen1.generation, first.generation);
      assert.equal(seen1.nodes, writer.graph.nodeCount);
      assert.equal(seen1.probe, false);

      writeFiles(root, { 'late.py': fakeSource('late', ['f4']) });
      const second = await writer.ingest({ incremental: true });
      proc.stdin.write('refresh\n');
      const seen2 = JSON.parse(await nextLine(lines));
      assert.equal(seen2.fresh.reloaded, true);
      assert.equal(seen2.generation, second.generation);
      assert.equal(seen2.probe, true);
      assert.equal(seen2.nodes, writer.graph.nodeCount);
      proc.stdin.end('quit\n');
      assert.equal((await exited(proc)).code, 0);
    } finally {
      await writer.close();
      removeWorkspace(root);
    }
  });

  it('folds in another process’s commit when both write to one store', async () => {
    const root = writeWorkspace(workspace(3));
    const storeDir = join(root, '.m1nd');
    const a = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
    const b = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
    try {
      await a.open();
      await a.ingest();
      await b.open();
      writeFiles(root, { 'from_a.py': fakeSource('from_a') });
      await a.ingest({ paths: ['from_a.py'] });
      writeFiles(root, { 'from_b.py': fakeSource('from_b') });
      await b.ingest({ paths: ['from_b.py'] });
      assert.ok(b.getNode('function:from_a.py#from_a'), 'b saw a’s commit');
      assert.ok(b.getNode('function:from_b.py#from_b'));
      await a.ensureFresh();
      assert.ok(a.getNode('function:from_b.py#from_b'), 'a sees b’s commit after ensureFresh');
    } finally {
      await a.close();
      await b.close();
      removeWorkspace(root);
    }
  });

  for (const mode of ['parse', 'persist'] as const) {
    it(`keeps the previous graph when an ingest is SIGKILLed during ${mode}`, async () => {
      const root = writeWorkspace(workspace(30));
      const storeDir = join(root, '.m1nd');
      try {
        const first = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
        await first.open();
        const before = await first.ingest();
        await first.close();

        // A second version of every file, ingested by a child that dies mid-way.
        const changed: Record<string, string> = {};
        for (let i = 0; i < 30; i++) changed[`m${i}.py`] = fakeSource(`g${i}`);
        for (let i = 0; i < 200; i++) changed[`extra${i}.py`] = fakeSource(`extra${i}`);
        writeFiles(root, changed);
        const { proc, lines } = child('ingest-and-die.ts', [root, storeDir, mode]);
        if (mode === 'parse') {
          assert.equal(await nextLine(lines), 'PARSING');
          proc.kill('SIGKILL');
        }
        const end = await exited(proc);
        assert.equal(end.signal, 'SIGKILL');

        const db = new Database(join(storeDir, 'm1nd.db'));
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        db.close();
        const after = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
        const opened = await after.open();
        assert.equal(opened.generation, before.generation);
        assert.equal(opened.nodes, before.nodes);
        assert.ok(after.getNode('function:m7.py#f7'), 'old symbols are still there');
        assert.equal(after.getNode('function:m7.py#g7'), null, 'nothing of the killed ingest leaked in');
        // The next ingest still works on the surviving store.
        const redo = await after.ingest({ incremental: true });
        assert.equal(redo.files.parsed, 230);
        assert.ok(after.getNode('function:m7.py#g7'));
        await after.close();
      } finally {
        removeWorkspace(root);
      }
    });
  }
});
