/**
 * What the installed CLI's start leaves for later (scripts/bundle.mjs): packages required on first use
 * (fast-glob, semver, picomatch, ignore; chokidar's `watch` on its first call) and Node built-ins loaded
 * on first property read (child_process, zlib, worker_threads, crypto, fs/promises, …). A child process imports dist/m1nd.js (what bin/m1nd.js
 * runs), runs `call health`, then a verb that needs them, and reports what was loaded when. dist/ is built
 * first when missing.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUNDLE_HEAD } from '../../core/bundle-loader.ts';
import { tempDir } from '../helpers/mcp.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The child: counts os.cpus() calls (fast-glob makes one when it is evaluated) and lists built-ins loaded. */
const PROBE = `
import os from 'node:os';
import fs from 'node:fs';
let cpus = 0;
const real = os.cpus;
os.cpus = (...a) => (cpus++, real.apply(os, a));
const heavy = ['child_process', 'zlib', 'worker_threads', 'http', 'dgram', 'net', 'crypto', 'fs/promises'];
const loaded = () => heavy.filter((m) => process.moduleLoadList.includes('NativeModule ' + m));
const bundle = await import(process.env.ENTRY);
const report = [];
const quiet = process.stdout.write.bind(process.stdout);
for (const argv of JSON.parse(process.env.CALLS)) {
  let text = '';
  process.stdout.write = (chunk) => ((text += chunk), true);
  const code = await bundle.main(argv);
  process.stdout.write = quiet;
  report.push({ verb: argv[1], code, cpus, builtins: loaded(), text: text.slice(0, 2000) });
}
fs.writeFileSync(process.env.REPORT, JSON.stringify(report));
process.exit(0);
`;

describe('the installed start defers what call health does not use (dist/)', function () {
  this.timeout(300_000);

  before(async () => {
    if (!fs.existsSync(path.join(ROOT, 'dist/m1nd.cjs'))) {
      await new Promise<void>((resolve, reject) => execFile('npm', ['run', 'build'], { cwd: ROOT }, (e) => (e ? reject(e) : resolve())));
    }
  });

  it('writes the bundle as ASCII, already wrapped in the loader\'s function (no 3 MB concatenation or UTF-8 decode at start)', () => {
    const bytes = fs.readFileSync(path.join(ROOT, 'dist/m1nd.cjs'));
    assert.equal(bytes.subarray(0, BUNDLE_HEAD.length).toString('latin1'), BUNDLE_HEAD);
    assert.equal(bytes.findIndex((b) => b > 0x7f), -1, 'a non-ASCII byte: the loader decodes the bundle as Latin-1');
  });

  it('evaluates no deferred package and loads no deferred built-in for call health, and loads them when a verb needs them', async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    const probe = path.join(ws, 'probe.mjs');
    fs.writeFileSync(probe, PROBE);
    const report = path.join(ws, 'report.json');
    const out = await run(process.execPath, [probe], {
      cwd: ws,
      env: {
        PATH: process.env.PATH ?? '',
        M1ND_CACHE_DIR: 'off',
        ENTRY: pathToFileURL(path.join(ROOT, 'dist/m1nd.js')).href,
        REPORT: report,
        CALLS: JSON.stringify([
          ['call', 'health', '--workspace', ws],
          ['call', 'ingest', '{"path":"."}', '--workspace', ws],
        ]),
      },
    });
    assert.equal(out.code, 0, out.stderr);
    const [health, ingest] = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(health.code, 0, health.text);
    assert.equal(health.cpus, 0, 'fast-glob was evaluated during call health (it calls os.cpus() at load)');
    // zlib: the code cache's CRC-32 (core/cache-file.ts), read at start when there is a cache (here: none).
    // crypto: no SHA-1 of the code cache, structure's findings version hashed on first ingest, 36 importers deferred.
    // fs/promises: its importers deferred, and chokidar (which loads it and the stream family) required on first watch.
    assert.deepEqual(health.builtins.filter((m: string) => m !== 'net'), [], 'deferred built-ins loaded during call health');
    // The ingest walks files (fast-glob) and reads git (child_process): the deferred modules work.
    assert.equal(ingest.code, 0, ingest.text);
    assert.ok(ingest.cpus > 0, 'fast-glob was never evaluated by an ingest');
    assert.ok(ingest.builtins.includes('child_process'));
    assert.ok(ingest.builtins.includes('crypto'), 'an ingest hashes contents: crypto loads on first use');
  });
});
