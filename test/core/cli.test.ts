import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/mcp.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/m1nd.js');

async function m1nd(args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH ?? '', M1ND_FROM_SOURCE: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('m1nd CLI', function () {
  this.timeout(60000);

  it('prints help for every command', async () => {
    for (const cmd of ['serve', 'dev', 'list', 'call', 'new-plugin']) {
      const r = await m1nd([cmd, '--help'], ROOT);
      assert.equal(r.code, 0, cmd);
      assert.match(r.stdout, new RegExp(`m1nd ${cmd}`));
    }
    const unknown = await m1nd(['frobnicate'], ROOT);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  it('lists the catalog per tier as JSON', async () => {
    const r = await m1nd(['list', '--json', '--tier', 'full'], tempDir());
    const out = JSON.parse(r.stdout);
    assert.equal(out.tier, 'full');
    assert.equal(out.registered, out.verbs.length);
    assert.ok(out.counts.essential <= out.counts.full);
    assert.ok(out.verbs.some((v: { verb: string }) => v.verb === 'health'));
  });

  it('calls a verb without an MCP host and exits 1 on an error result', async () => {
    const ok = await m1nd(['call', 'help', '{"tool_name":"doctor","render":"none"}'], tempDir());
    assert.equal(ok.code, 0);
    assert.equal(JSON.parse(ok.stdout).tool_name, 'doctor');
    const bad = await m1nd(['call', 'helpp'], tempDir());
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /did you mean/);
  });

  it('scaffolds a plugin that the next run serves', async () => {
    const ws = tempDir();
    const made = await m1nd(['new-plugin', 'word-count', '--dir', 'my-plugins'], ws);
    assert.equal(made.code, 0, made.stderr);
    assert.ok(fs.existsSync(path.join(ws, 'my-plugins/word-count/verbs/word_count_hello.ts')));
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { plugins: { dirs: ['./my-plugins'] } };\n`);
    const r = await m1nd(['call', 'word_count_hello', '{"name":"m1nd"}'], ws);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).greeting, 'hello, m1nd');
  });

  it('serves Streamable HTTP and shuts down cleanly on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--workspace', tempDir()], { stdio: ['ignore', 'ignore', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /serving MCP at (\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once('exit', () => reject(new Error(err)));
    });
    const health = await fetch(url.replace(/\/mcp$/, '/health'));
    assert.equal(health.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('stops with a clear message on a bad config', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { tier: 42 };\n`);
    const r = await m1nd(['list'], ws);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /config key "tier" expected string/);
  });
});
