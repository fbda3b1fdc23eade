/**
 * The facts workers start without the process's module loaders (their entry is plain JavaScript)
 * and whatever flags the process runs with: a flag a worker thread refuses (V8's, e.g. a heap size)
 * must not push the work back onto the main thread.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutLoaders } from '../../../plugins/structure/facts-pool.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('facts worker flags', function () {
  this.timeout(120_000);

  it('drops --import/--require/--loader (both spellings) and keeps the other flags', () => {
    assert.deepEqual(withoutLoaders(['--import', 'tsx', '--enable-source-maps', '--import=./x.mjs', '-r', 'a.cjs', '--loader=y', '--experimental-loader', 'z', '--conditions=dev']), ['--enable-source-maps', '--conditions=dev']);
  });

  it('drops the entry flags a worker refuses: --input-type, --eval/-e and --print/-p with their code', () => {
    assert.deepEqual(withoutLoaders(['--input-type=module', '-e', 'run()', '--max-semi-space-size=8']), ['--max-semi-space-size=8']);
    assert.deepEqual(withoutLoaders(['--input-type', 'module', '--eval', 'x', '-p', 'y', '--print=z', '--enable-source-maps']), ['--enable-source-maps']);
  });

  it('a process run with a V8 flag still sketches in worker threads', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'm1nd-facts-flags-'));
    writeFileSync(path.join(root, 'a.py'), 'def f(x):\n    y = x + 1\n    for i in range(y):\n        print(i, x, y)\n    return y * 2\n');
    const script = `
      import { threadId } from 'node:worker_threads';
      import { factsPool } from './plugins/structure/facts-pool.ts';
      const pool = factsPool();
      let packed = null;
      await pool.run(${JSON.stringify(root)}, {}, [[{ path: 'a.py', language: 'python', ranges: [1, 5] }]], [], 'k', (_b, _f, p) => (packed = p), () => true, 'sketch');
      await pool.stop();
      console.log(JSON.stringify({ main: threadId, ints: packed ? packed.length : -1 }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--max-semi-space-size=8', '--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
    assert.ok(out.ints > 3, `the worker answered the batch: ${JSON.stringify(out)}`);
  });
});
