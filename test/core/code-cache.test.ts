/**
 * The installed CLI (bin/m1nd.js → dist/m1nd.js → dist/m1nd.cjs through the V8 code cache), run as
 * a user runs it: the first process writes the cache, later ones load from it; a corrupt cache, or one
 * V8 rejects (made for other code, as after a Node upgrade), is ignored and replaced, and the server
 * answers the same tools/list every time. dist/ is built first when missing.
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

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/m1nd.js');

async function toolNames(cache: string, ws: string): Promise<string[]> {
  const client = new Client({ name: 'code-cache-test', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--workspace', ws, '--tier', 'full'], env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: cache }, stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

function cacheFiles(cache: string): string[] {
  return fs.existsSync(cache) ? fs.readdirSync(cache).filter((n) => n.startsWith('m1nd_cjs-') && n.endsWith('.v8cache')) : [];
}

describe('start-up through the V8 code cache (dist/)', function () {
  this.timeout(600_000);
  let cache: string;
  let ws: string;

  before(async () => {
    if (!fs.existsSync(path.join(ROOT, 'dist/m1nd.cjs'))) await run('npm', ['run', 'build'], { cwd: ROOT });
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-code-cache-'));
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-code-cache-ws-'));
  });

  it('writes the cache once, then serves the same tools/list from it, from a corrupt one and from a rejected one', async () => {
    const fresh = await toolNames(cache, ws);
    assert.ok(fresh.length > 100, `${fresh.length} verbs`);
    const files = cacheFiles(cache);
    assert.equal(files.length, 1, 'the first process wrote the cache at exit');
    const file = path.join(cache, files[0]);
    const written = fs.statSync(file).mtimeMs;
    assert.deepEqual(await toolNames(cache, ws), fresh);
    assert.equal(fs.statSync(file).mtimeMs, written, 'a valid cache is not rewritten');

    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    assert.deepEqual(await toolNames(cache, ws), fresh, 'same tools from a corrupt cache');
    assert.notDeepEqual(fs.readFileSync(file), bytes, 'the corrupt cache was replaced');

    // Well-formed and checksummed, but V8's: made by another build (a cache of different code).
    const other = path.join(cache, 'other.cjs');
    fs.writeFileSync(other, 'exports.x = 1;');
    const { loadBundle } = await import('../../core/bundle-loader.ts');
    const made = loadBundle(other, (s) => s, path.join(cache, 'elsewhere'), false);
    made.saveCache();
    fs.copyFileSync(made.cacheFile!, file);
    const foreign = fs.readFileSync(file);
    assert.deepEqual(await toolNames(cache, ws), fresh, 'same tools from a rejected cache');
    assert.notDeepEqual(fs.readFileSync(file), foreign, 'the rejected cache was replaced');
  });

  it('writes the cache once the host is up, so it holds what every start runs and not what the first command did after', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-code-cache-boot-'));
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(repo, `m${i}.py`), `def f${i}():\n    return ${i}\n`);
    fs.writeFileSync(path.join(repo, 'a.ts'), 'export function h(): number {\n  return 2;\n}\n');
    const sizeAfter = async (cwd: string, args: string[]): Promise<number> => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-code-cache-size-'));
      await run(process.execPath, [BIN, 'call', ...args], { cwd, env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: dir } });
      const files = cacheFiles(dir);
      assert.equal(files.length, 1);
      return fs.statSync(path.join(dir, files[0])).size;
    };
    const health = await sizeAfter(ws, ['health']);
    const ingest = await sizeAfter(repo, ['ingest', '{"path":"."}']);
    // Written at exit, an ingest's cache also held the parser and builder code it compiled (~15% more).
    assert.ok(Math.abs(ingest - health) / health < 0.04, `cache after ingest ${ingest} bytes, after health ${health} bytes`);
  });

  it('runs a verb that imports packages at run time (ingest: the parser runtime) from a cached start', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-code-cache-repo-'));
    fs.writeFileSync(path.join(repo, 'a.py'), 'def f():\n    return g()\n\n\ndef g():\n    return 1\n');
    fs.writeFileSync(path.join(repo, 'b.ts'), 'export function h(): number {\n  return 2;\n}\n');
    const env = { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: cache };
    assert.equal(cacheFiles(cache).length, 1, 'a cache from the test before');
    const { stdout } = await run(process.execPath, [BIN, 'call', 'ingest', '{"path":"."}', '--json'], { cwd: repo, env });
    const result = JSON.parse(stdout);
    assert.equal(result.files?.skipped ?? 0, 0, JSON.stringify(result.skipped));
    assert.ok(result.nodes >= 5, `${result.nodes} nodes`);
  });
});
