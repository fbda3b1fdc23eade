/**
 * What the checker worker's start-up and warm-up save must not change what it finds: the compiler's
 * V8 code cache (written after a first pass, used by the next worker, rewritten when V8 rejects it,
 * none when turned off), the start-up and CPU it reports, and JSDoc types in JS files (JSDoc is
 * parsed only where it carries types). Runs the worker through its client on a small repository.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CheckerClient, type CheckResult } from '../../../../plugins/graph/engine/ts-program/checker-client.ts';
import { compilerCacheDir } from '../../../../plugins/graph/engine/ts-program/compiler-cache.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { tempDir } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'jsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true, checkJs: false, target: 'es2022', module: 'esnext', moduleResolution: 'bundler' }, include: ['src'] }),
  'src/calc.js': `export class Calc {
  add(a, b) {
    return a + b;
  }
}

export class Tally {
  add(n) {
    return n;
  }
}
`,
  // Only the JSDoc says which `add` this is.
  'src/use.js': `/** @param {import('./calc.js').Calc} c */
export function use(c) {
  return c.add(1, 2);
}
`,
};

const CHECKED = ['src/calc.js', 'src/use.js'];

/** One pass of a fresh worker over the fixture, with the given cache folder. */
async function pass(root: string, cacheDir: string | null): Promise<CheckResult> {
  const client = new CheckerClient(cacheDir, { shared: false });
  try {
    const files = CHECKED.map((p) => ({ path: p, hash: createHash('sha1').update(fs.readFileSync(path.join(root, p))).digest('hex') }));
    return await client.run(root, files, CHECKED);
  } finally {
    await client.stop();
  }
}

const cacheFiles = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.v8cache')) : []);

/** The edges of src/use.js, as `line -> toPath:toLine toName relation`. */
const edgesOfUse = (r: CheckResult): string[] => (r.files.find((f) => f.path === 'src/use.js')?.edges ?? []).map((e) => `${e.line} -> ${e.toPath}:${e.toLine} ${e.toName} ${e.relation}`);

describe('checker worker load costs: compiler code cache, start-up figures, JSDoc in JS', function () {
  this.timeout(120000);
  let root: string;
  let cache: string;
  before(() => {
    root = writeFixtureRepo(tempDir('m1nd-tsload-'), FILES);
    cache = path.join(tempDir('m1nd-tsload-cache-'), 'm1nd');
  });

  it('types a JS receiver from its JSDoc annotation: the call links to Calc.add, not Tally.add', async () => {
    const r = await pass(root, null);
    assert.deepEqual(r.failed, []);
    assert.deepEqual(edgesOfUse(r), ['3 -> src/calc.js:2 add calls']);
  });

  it('writes the code cache after the first pass, and the next worker loads the compiler from it with the same edges', async () => {
    const first = await pass(root, cache);
    assert.equal(first.stats.compiler, 'compiled');
    assert.equal(cacheFiles(cache).length, 1);
    const second = await pass(root, cache);
    assert.equal(second.stats.compiler, 'cached');
    assert.deepEqual(edgesOfUse(second), edgesOfUse(first));
    assert.equal(cacheFiles(cache).length, 1);
  });

  it('rewrites a cache V8 rejects, and writes none when the cache is off', async () => {
    const [name] = cacheFiles(cache);
    const file = path.join(cache, name);
    fs.writeFileSync(file, Buffer.alloc(64, 7));
    const rejected = await pass(root, cache);
    assert.equal(rejected.stats.compiler, 'rejected');
    assert.deepEqual(edgesOfUse(rejected), ['3 -> src/calc.js:2 add calls']);
    assert.ok(fs.statSync(file).size > 64, 'the rejected cache is replaced by a real one');
    assert.equal((await pass(root, cache)).stats.compiler, 'cached');
    // Off: compiled without the cache there is, and nothing written.
    const before = fs.statSync(file).mtimeMs;
    assert.equal((await pass(root, null)).stats.compiler, 'compiled');
    assert.equal(fs.statSync(file).mtimeMs, before);
  });

  it('reports the start-up from the spawn and, on Linux, the worker thread CPU of each phase', async () => {
    const t0 = performance.now();
    const r = await pass(root, cache);
    const wall = performance.now() - t0;
    // The old figure counted from the process's start (threads share the time origin): it could exceed the whole call.
    assert.ok(r.stats.startupMs > 0 && r.stats.startupMs < wall, `start-up ${r.stats.startupMs} ms within the call's ${wall.toFixed(0)} ms`);
    if (process.platform === 'linux') {
      assert.ok(r.stats.cpu, 'thread CPU reported');
      assert.ok(r.stats.cpu.startup > 0 && r.stats.cpu.startup <= r.stats.startupMs + 50, JSON.stringify(r.stats.cpu));
    }
  });

  it('keeps the cache in M1ND_CACHE_DIR, else under the XDG cache folder, and nowhere when turned off', () => {
    assert.equal(compilerCacheDir({ M1ND_CACHE_DIR: '/x/cache' }), '/x/cache');
    assert.equal(compilerCacheDir({ M1ND_CACHE_DIR: 'off' }), null);
    assert.equal(compilerCacheDir({ XDG_CACHE_HOME: '/home/u/.cache' }), '/home/u/.cache/m1nd');
  });
});
