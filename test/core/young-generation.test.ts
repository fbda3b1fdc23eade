/**
 * The server's young generation (core/cli-heap.ts): `m1nd serve` stops its growth once its host is up
 * (from sources, from bin/m1nd.js's first line), or with M1ND_SEMI_SPACE_MB grows it to that size and
 * holds it there across worker starts; `m1nd call` keeps V8's default; the bundle's code cache,
 * compiled and written under V8's default flags, is accepted by both.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { YoungGeneration } from '../../core/index.ts';
import { tempDir } from '../helpers/mcp.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/m1nd.js');

/** Starts `m1nd <args>` over stdio, calls health, and returns its young_generation. */
async function servedYoung(args: string[], env: Record<string, string>): Promise<YoungGeneration> {
  const client = new Client({ name: 'young-generation-test', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, ...args], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'ignore' }));
  try {
    const result = await client.callTool({ name: 'health', arguments: { agent_id: 'young-test' } });
    return JSON.parse((result.content as { text: string }[])[0].text).young_generation;
  } finally {
    await client.close();
  }
}

async function calledYoung(cwd: string, env: Record<string, string>): Promise<YoungGeneration> {
  const { stdout } = await run(process.execPath, [BIN, 'call', 'health', '--json'], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
  return JSON.parse(stdout).young_generation;
}

/**
 * A child process that starts as a server does (the state bin/m1nd.js sets for a server command),
 * applies the server's policy, starts a worker, then keeps ~100 MB alive over many turns (each turn's objects survive
 * their scavenges, which is what makes V8 grow the young generation); prints youngGeneration() before and after.
 */
async function grown(env: Record<string, string>, holdFirst = true): Promise<{ before: YoungGeneration; after: YoungGeneration; workerMb: number }> {
  const heap = path.join(ROOT, 'core/cli-heap.ts');
  const script = [
    holdFirst ? `(await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1'); globalThis[Symbol.for('m1nd.youngGeneration')] = { factor: 1 };` : '',
    `const { leanServerHeap, youngGeneration } = await import(${JSON.stringify(heap)});`,
    `leanServerHeap();`,
    `const before = youngGeneration();`,
    // A worker's start resets V8's growth factor for the whole process; the worker reports its own young generation.
    `const { Worker } = await import('node:worker_threads');`,
    `const worker = new Worker("const s = (await import('node:v8')).getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); (await import('node:worker_threads')).parentPort.postMessage(Math.round((s.space_used_size + s.space_available_size) / 2 ** 20));", { eval: true });`,
    `const workerMb = new Promise((r) => worker.once('message', r));`,
    `const kept = [];`,
    `for (let turn = 0; turn < 400; turn++) {`,
    `  for (let i = 0; i < 4000; i++) kept.push({ turn, i, s: 'x' + i });`,
    `  await new Promise((r) => setImmediate(r));`,
    `}`,
    `process.stdout.write(JSON.stringify({ before, after: youngGeneration(), workerMb: await workerMb, kept: kept.length }));`,
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
  return JSON.parse(stdout);
}

describe('the server young generation', function () {
  this.timeout(600_000);

  it('held: grows to its set size under allocation and stays there across a worker start; V8 alone grows it to 2 × 16 MB', async () => {
    const server = await grown({ M1ND_SEMI_SPACE_MB: '4' });
    assert.equal(server.before.policy, 'held');
    assert.ok(server.before.semi_space_mb <= 4, JSON.stringify(server.before));
    assert.equal(server.after.target_mb, 4);
    assert.equal(server.after.semi_space_mb, 4, JSON.stringify(server.after));
    assert.equal(server.workerMb, 16, 'a worker started under the held setting begins at V8 maximum, since it cannot grow');
    const two = await grown({ M1ND_SEMI_SPACE_MB: '2' });
    assert.equal(two.after.semi_space_mb, 2, JSON.stringify(two.after));
    const v8Default = await grown({ M1ND_LEAN_HEAP: '0' }, false);
    assert.equal(v8Default.after.policy, 'default');
    assert.equal(v8Default.after.semi_space_mb, 16, `the same allocation grows V8's default to its maximum: ${JSON.stringify(v8Default.after)}`);
    // The default setting stops the growth once; a worker's start puts V8's default back (why `held` exists).
    const lean = await grown({});
    assert.equal(lean.after.policy, 'lean');
    assert.equal(lean.after.target_mb, null);
  });

  it('serves from sources with the server young generation; `m1nd call` keeps V8 default', async () => {
    const ws = tempDir();
    const env = { M1ND_FROM_SOURCE: '1', M1ND_CACHE_DIR: 'off' };
    const served = await servedYoung(['serve', '--workspace', ws], env);
    assert.equal(served.policy, 'lean');
    // Held from bin/m1nd.js's first line: tsx alone grows it to 16 MB.
    assert.ok(served.semi_space_mb <= 4, JSON.stringify(served));
    const held = await servedYoung(['serve', '--workspace', ws], { ...env, M1ND_SEMI_SPACE_MB: '4' });
    assert.equal(held.policy, 'held');
    assert.equal(held.target_mb, 4);
    assert.ok(held.semi_space_mb <= 4, JSON.stringify(held));
    // Options before the command, and a bare `m1nd`, are servers too.
    assert.equal((await servedYoung(['--workspace', ws, '--tier', 'full'], env)).policy, 'lean');
    assert.equal((await servedYoung(['--workspace', ws], { ...env, M1ND_LEAN_HEAP: '0' })).policy, 'default');
    const called = await calledYoung(ws, env);
    assert.equal(called.policy, 'default');
    assert.equal(called.target_mb, null);
  });

  describe('from dist/ through the code cache', () => {
    let cache: string;
    let ws: string;
    const cacheFile = (): string => {
      const files = fs.readdirSync(cache).filter((n) => n.startsWith('m1nd_cjs-') && n.endsWith('.v8cache'));
      assert.equal(files.length, 1, files.join(', '));
      return path.join(cache, files[0]);
    };

    before(async () => {
      if (!fs.existsSync(path.join(ROOT, 'dist/m1nd.cjs'))) await run('npm', ['run', 'build'], { cwd: ROOT });
      cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-young-cache-'));
      ws = tempDir();
    });

    it('serves with the server young generation, and a cache made by a server is accepted by `m1nd call` and the next server (and back)', async () => {
      // Held: the server's flags (growth factor, workers' semi-space) differ from V8's defaults when the cache is written.
      const env = { M1ND_CACHE_DIR: cache, M1ND_SEMI_SPACE_MB: '4' };
      const served = await servedYoung(['serve', '--workspace', ws], env);
      assert.equal(served.policy, 'held');
      assert.ok(served.semi_space_mb <= 4, JSON.stringify(served));
      // The default setting: the bundle's load grew it to 4 MB at most.
      const lean = await servedYoung(['serve', '--workspace', ws], { M1ND_CACHE_DIR: cache });
      assert.equal(lean.policy, 'lean');
      assert.ok(lean.semi_space_mb <= 4, JSON.stringify(lean));
      const file = cacheFile();
      const written = fs.statSync(file).mtimeMs;
      // A cache V8 rejects (other flags) is rewritten once the host is up: the same file, untouched, was accepted.
      assert.equal((await calledYoung(ws, env)).policy, 'default');
      assert.equal(fs.statSync(file).mtimeMs, written, '`m1nd call` accepted the server-made cache');
      assert.equal((await servedYoung(['serve', '--workspace', ws], env)).policy, 'held');
      assert.equal(fs.statSync(file).mtimeMs, written, 'the next server accepted it');
      // And the other way: a cache made by `m1nd call`, loaded by a server.
      fs.rmSync(file);
      await calledYoung(ws, env);
      const byCall = cacheFile();
      const callWritten = fs.statSync(byCall).mtimeMs;
      assert.equal((await servedYoung(['serve', '--workspace', ws], env)).policy, 'held');
      assert.equal(fs.statSync(byCall).mtimeMs, callWritten, 'a server accepted the cache `m1nd call` made');
    });

    it('rewrites a cache made under other V8 flags (so the checks above can fail)', async () => {
      fs.rmSync(cacheFile());
      // Made by a process whose V8 flags differ from the defaults: rejected by the next server, and replaced.
      await run(process.execPath, ['--no-lazy-feedback-allocation', BIN, 'call', 'health'], { cwd: ws, env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: cache } });
      const foreignWritten = fs.statSync(cacheFile()).mtimeMs;
      await servedYoung(['serve', '--workspace', ws], { M1ND_CACHE_DIR: cache, M1ND_SEMI_SPACE_MB: '4' });
      assert.ok(fs.statSync(cacheFile()).mtimeMs > foreignWritten, 'the cache made under other flags was rewritten');
    });
  });
});
