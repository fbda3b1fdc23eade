import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/mcp.ts';
import { captureCli as capture } from '../helpers/cli-capture.ts';

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

  it('prints the command list on --help, and each command\'s own help', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await capture(args);
      assert.equal(r.code, 0, args.join(' '));
      for (const cmd of ['serve', 'dev', 'list', 'call', 'new-plugin']) assert.match(r.stdout, new RegExp(`^  ${cmd} +\\S`, 'm'), `${args.join(' ')} lists ${cmd}`);
      assert.doesNotMatch(r.stdout, /--allow-agent-switch/, 'the command list, not serve\'s options');
    }
    for (const cmd of ['serve', 'dev', 'list', 'call', 'new-plugin']) {
      for (const args of [[cmd, '--help'], ['help', cmd]]) {
        const r = await capture(args);
        assert.equal(r.code, 0, args.join(' '));
        assert.match(r.stdout, new RegExp(`^Usage: m1nd ${cmd}`), args.join(' '));
      }
    }
    const unknown = await capture(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
    assert.equal((await capture(['help', 'frobnicate'])).code, 2);
    // Through the real binary once: the process prints the same list.
    const bin = await m1nd(['--help'], ROOT);
    assert.equal(bin.code, 0);
    assert.match(bin.stdout, /^Commands:$/m);
  });

  it('prints list in columns as wide as their widest cell', async () => {
    const r = await m1nd(['list'], tempDir());
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const header = lines[0];
    const starts = ['family', 'effect', 'tiers'].map((c) => header.indexOf(c));
    const rows = lines.slice(1, lines.indexOf(''));
    assert.ok(rows.length > 20);
    assert.ok(rows.some((l) => l.includes('depends on arguments')), 'the widest effect is listed');
    for (const row of rows) {
      for (const at of starts) assert.match(row.slice(at - 2, at), /^  $/, `column boundary at ${at} in ${JSON.stringify(row)}`);
      assert.doesNotMatch(row.slice(starts[0]), /^ /, row);
    }
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

  it('prints a result for a person with --human: file text unescaped, errors as message and hint; JSON when piped', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'notes.md'), '# Notes\n\nline "two"\n');
    const human = await m1nd(['call', 'view', '{"file_path":"notes.md"}', '--human'], ws);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^content: \|/m);
    assert.match(human.stdout, /^ +1│# Notes$/m, 'the text as it is, not a \\n-escaped JSON string');
    assert.match(human.stdout, /^ +3│line "two"$/m);
    assert.doesNotMatch(human.stdout, /_m1nd/);
    const piped = await m1nd(['call', 'view', '{"file_path":"notes.md"}'], ws);
    assert.match(JSON.parse(piped.stdout).content, /1│# Notes\n/);
    assert.ok(JSON.parse(piped.stdout)._m1nd, 'piped output keeps the whole JSON');
    const error = await m1nd(['call', 'view', '{"file_path":"missing.md"}', '--human'], ws);
    assert.equal(error.code, 1);
    assert.match(error.stdout, /^error M1ND_ERR_PATH_NOT_FOUND: no file "missing\.md".*\n  hint: /);
    assert.equal(piped.stderr.includes('\r'), false, 'no progress bar when stderr is not a terminal');
  });

  it('scaffolds a plugin, wires it into a new m1nd.config.ts, and its generated test passes under node --test', async () => {
    const ws = tempDir();
    const made = await m1nd(['new-plugin', 'word-count', '--dir', 'my-plugins'], ws);
    assert.equal(made.code, 0, made.stderr);
    assert.ok(fs.existsSync(path.join(ws, 'my-plugins/word-count/verbs/word_count_hello.ts')));
    assert.match(made.stdout, /wired: created .*m1nd\.config\.ts loading \.\/my-plugins/);
    assert.match(made.stdout, /next steps:[\s\S]*node --import tsx --test my-plugins\/word-count\/word-count\.test\.ts/);
    const r = await m1nd(['call', 'word_count_hello', '{"name":"m1nd"}'], ws);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).greeting, 'hello, m1nd');
    // The user's runner: Node's own, with the tsx loader m1nd depends on.
    const tsx = import.meta.resolve('tsx');
    const t = await run(process.execPath, ['--import', tsx, '--test', 'my-plugins/word-count/word-count.test.ts'], { cwd: ws }).catch((e) => e);
    assert.match(t.stdout, /# pass 1/, `${t.stdout}\n${t.stderr}`);
    assert.match(t.stdout, /# fail 0/);
  });

  it('wires a new plugin folder into an existing config, or prints the one line to add', async () => {
    const ws = tempDir();
    const config = path.join(ws, 'm1nd.config.ts');
    fs.writeFileSync(config, `// plugins: { dirs: ['./commented-out'] },\nexport default {\n  tier: 'full',\n  plugins: { disable: [] as string[] },\n};\n`);
    const first = await m1nd(['new-plugin', 'alpha', '--dir', 'ext'], ws);
    assert.match(first.stdout, /wired: added \.\/ext to plugins\.dirs/);
    assert.match(fs.readFileSync(config, 'utf8'), /plugins: \{ dirs: \['\.\/ext'\],/);
    assert.match(fs.readFileSync(config, 'utf8'), /^\/\/ plugins: \{ dirs: \['\.\/commented-out'\] \},$/m, 'the comment is left alone');
    const badName = await m1nd(['new-plugin', 'My_Plugin'], ws);
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /must be kebab-case[\s\S]*hint: m1nd new-plugin my-plugin/);
    const second = await m1nd(['new-plugin', 'beta', '--dir', 'ext'], ws);
    assert.match(second.stdout, /already loads \.\/ext/);
    const third = await m1nd(['new-plugin', 'gamma', '--dir', 'more'], ws);
    assert.match(third.stdout, /added \.\/more to plugins\.dirs/);
    const listed = JSON.parse((await m1nd(['list', '--json'], ws)).stdout).verbs.map((v: { verb: string }) => v.verb);
    for (const v of ['alpha_hello', 'beta_hello', 'gamma_hello']) assert.ok(listed.includes(v), v);
    // A config the scaffold cannot edit safely (the object is built elsewhere): it prints the line instead.
    const cjs = tempDir();
    fs.writeFileSync(path.join(cjs, 'base.json'), '{"tier":"full"}');
    fs.writeFileSync(path.join(cjs, 'm1nd.config.js'), `module.exports = require('./base.json');\n`);
    const manual = await m1nd(['new-plugin', 'delta'], cjs);
    assert.equal(manual.code, 0, manual.stderr);
    assert.match(manual.stdout, /to load it, add "\.\/plugins" to plugins\.dirs in .*m1nd\.config\.js:\n  plugins: \{ dirs: \['\.\/plugins'\] \},/);
    assert.equal(fs.readFileSync(path.join(cjs, 'm1nd.config.js'), 'utf8'), `module.exports = require('./base.json');\n`);
  });

  it('prints one start-up line on stderr when serving stdio', async () => {
    const { spawn } = await import('node:child_process');
    const ws = tempDir();
    const child = spawn(process.execPath, [BIN, 'serve', '--workspace', ws, '--tier', 'full'], { stdio: ['pipe', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', M1ND_FROM_SOURCE: '1' } });
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('\n')) resolve();
      });
      child.once('exit', () => reject(new Error(err)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    await exited;
    const line = err.split('\n')[0];
    assert.match(line, new RegExp(`^m1nd \\d+\\.\\d+\\.\\d+\\S* serving MCP over stdio · workspace ${ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · tier full · (\\d+)/(\\d+) verbs advertised/registered`));
    const [, advertised, registered] = /(\d+)\/(\d+) verbs/.exec(line)!.map(Number);
    assert.ok(advertised > 25 && advertised <= registered, line);
  });

  it('serves Streamable HTTP and shuts down cleanly on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--workspace', tempDir()], { stdio: ['ignore', 'ignore', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /serving MCP at (\S+) · workspace/.exec(err);
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

  it('loads a .ts config in a CommonJS project through the compiled bundle, importing defineConfig from m1nd', async function () {
    this.timeout(300000);
    // `npm ci` builds dist/ (prepare); a checkout that never built it builds it here once.
    if (!fs.existsSync(path.join(ROOT, 'dist/m1nd.js'))) await run('npm', ['run', 'build'], { cwd: ROOT });
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'package.json'), '{"name":"consumer","version":"1.0.0","type":"commonjs"}\n');
    fs.mkdirSync(path.join(ws, 'node_modules'));
    fs.symlinkSync(ROOT, path.join(ws, 'node_modules/m1nd'), 'dir');
    fs.writeFileSync(path.join(ws, 'tier.ts'), `export const tier: string = 'full';\n`);
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `import { defineConfig } from 'm1nd';\nimport { tier } from './tier';\nexport default defineConfig({ tier, gates: { readOnly: __dirname.length > 0 } });\n`);
    const bin = path.join(ws, 'node_modules/m1nd/bin/m1nd.js');
    const out = await run(process.execPath, [bin, 'call', 'health', '--json'], { cwd: ws, env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: path.join(ws, '.cache') } });
    const health = JSON.parse(out.stdout);
    assert.equal(health.tool_tier.served, 'full');
    assert.equal(health.read_only, true);
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `import { defineConfig } from 'm1nd';\nexport default defineConfig({ tier: 'full' ;\n`);
    const bad = await run(process.execPath, [bin, 'list'], { cwd: ws, env: { PATH: process.env.PATH ?? '' } }).catch((e) => e);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /m1nd\.config\.ts: syntax error at .*m1nd\.config\.ts:2:\d+/);
  });
});
