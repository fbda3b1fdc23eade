/**
 * A workspace with a folder the server's user cannot list (another user's 0700 folder): the ingest
 * skips it, names it, and ingests the rest, through `m1nd call` from a cold process. Root reads
 * every folder, so as root the CLI runs as `nobody` (runuser); without either, or when `nobody` cannot
 * read this checkout, the test is skipped.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../../helpers/mcp.ts';

const run = promisify(execFile);
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/m1nd.js');
const root = process.getuid?.() === 0;
const nobody = root ? (() => {
  try {
    // `nobody` must reach this checkout to run its CLI (not so for a clone under a 0700 folder: then the test is skipped).
    execFileSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(BIN)}, require('fs').constants.R_OK)`], { stdio: 'ignore' });
    return { uid: Number(execFileSync('id', ['-u', 'nobody']).toString()), gid: Number(execFileSync('id', ['-g', 'nobody']).toString()) };
  } catch {
    return null;
  }
})() : null;

/** `m1nd call ingest` in `ws` as the unprivileged user: the CLI's JSON and exit code. */
async function ingestAsUser(ws: string): Promise<{ code: number; json: any; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', M1ND_FROM_SOURCE: '1', M1ND_CACHE_DIR: 'off', HOME: ws, TMPDIR: ws };
  const [cmd, args] = root ? ['runuser', ['-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath]] : [process.execPath, []];
  try {
    const { stdout, stderr } = await run(cmd, [...args, BIN, 'call', 'ingest', '{"path":"."}', '--workspace', ws, '--json'], { env, cwd: ws });
    return { code: 0, json: JSON.parse(stdout), stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, json: err.stdout ? JSON.parse(err.stdout) : null, stderr: err.stderr };
  }
}

describe('ingest of a workspace holding a folder it cannot list', function () {
  this.timeout(120000);

  it('skips the folder as unreadable, names it, and ingests the rest', async function () {
    if (root && !nobody) this.skip();
    const ws = tempDir('m1nd-unreadable-');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
    };
    write('src/a.ts', 'export function a(): number {\n  return 1;\n}\n');
    write('src/s.py', 'def s():\n    return 1\n');
    write('src/secret/h.py', 'def hidden():\n    return 2\n');
    if (nobody) {
      // The workspace is the unprivileged user's; the secret folder stays root's, listable by root only.
      for (let d = path.dirname(ws); d !== path.dirname(d); d = path.dirname(d)) fs.chmodSync(d, fs.statSync(d).mode | 0o011);
      for (const p of ['', 'package.json', 'src', 'src/a.ts', 'src/s.py']) fs.chownSync(path.join(ws, p), nobody.uid, nobody.gid);
    }
    fs.chmodSync(path.join(ws, 'src/secret'), 0o700);
    if (!nobody) fs.chmodSync(path.join(ws, 'src/secret'), 0o000);
    try {
      const r = await ingestAsUser(ws);
      assert.equal(r.code, 0, `${JSON.stringify(r.json)}\n${r.stderr}`);
      assert.equal(r.json.files.parsed, 2, JSON.stringify(r.json.files));
      assert.equal(r.json.skippedByReason.unreadable, 1, JSON.stringify(r.json.skippedByReason));
      assert.deepEqual(r.json.skipped.filter((s: { reason: string }) => s.reason === 'unreadable').map((s: { path: string }) => s.path), ['src/secret/']);
      assert.equal(r.json.nodesByKind.function, 2);
    } finally {
      fs.chmodSync(path.join(ws, 'src/secret'), 0o755);
    }
  });
});
