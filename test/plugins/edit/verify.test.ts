import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const TS_FIXTURE = {
  'tsconfig.json': '{"compilerOptions":{"strict":true,"noEmit":true,"skipLibCheck":true,"types":[],"target":"es2022","module":"es2022"},"include":["src"]}\n',
  'src/price.ts': 'export function price(n: number): number {\n  return n * 2;\n}\n',
  'src/use.ts': "import { price } from './price.js';\nexport const p: number = price(2);\n",
};

describe('apply_batch verify', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), TS_FIXTURE);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
  });
  after(() => h?.close());

  it('runs tsc --noEmit on a TypeScript project and reports a deliberate type error, with progress notifications', async () => {
    const progress: string[] = [];
    const result = (await h.client.callTool(
      {
        name: 'apply_batch',
        arguments: { agent_id: 'a', verify: true, reingest: false, edits: [{ file_path: 'src/price.ts', new_content: 'export function price(n: number): string {\n  return `${n * 2}`;\n}\n' }] },
      },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? '') },
    )) as CallToolResult;
    const json = JSON.parse((result.content[0] as { text: string }).text);
    assert.equal(json.verify.ok, false);
    assert.equal(json.verify.runs.length, 1);
    const run = json.verify.runs[0];
    assert.equal(run.project, 'typescript');
    assert.match(run.command, /tsc --noEmit -p tsconfig\.json$/);
    assert.match(run.output, /src\/use\.ts\(2,14\): error TS2322/);
    assert.ok(progress.includes('verify: typescript'), progress.join(', '));
    assert.match(fs.readFileSync(path.join(ws, 'src/price.ts'), 'utf8'), /: string/, 'verify reports; the batch stays written');
  });

  it('passes once the error is fixed', async () => {
    const { json } = await h.call('apply_batch', { agent_id: 'a', verify: true, reingest: false, edits: [{ file_path: 'src/use.ts', new_content: "import { price } from './price.js';\nexport const p: string = price(2);\n" }] });
    assert.equal(json.verify.ok, true, JSON.stringify(json.verify));
    assert.equal(json.verify.runs[0].exit_code, 0);
  });

  it('runs the command m1nd.config.ts sets for the project type, and stops it at the configured timeout', async () => {
    const sleeper = { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 60000)'] };
    const slow = await connect({ workspaceRoot: ws, config: { bundles: ['default'], options: { edit: { verify: { typescript: sleeper }, verifyTimeoutSeconds: 5 } } } });
    try {
      const started = Date.now();
      const { json } = await slow.call('apply_batch', { agent_id: 'a', verify: true, reingest: false, edits: [{ file_path: 'src/use.ts', new_content: 'export const q = 1;\n' }] });
      const run = json.verify.runs[0];
      assert.equal(run.command, `${process.execPath} -e setTimeout(() => {}, 60000)`);
      assert.equal(run.timed_out, true);
      assert.equal(json.verify.ok, false);
      assert.ok(Date.now() - started < 30000, 'killed at the timeout, not after 60 s');
    } finally {
      await slow.close();
    }
  });

  it('answers other calls while a check runs, and kills the check when the client cancels the call', async () => {
    const pidFile = path.join(ws, 'sleeper.pid');
    const sleeper = { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 60000)`] };
    const slow = await connect({ workspaceRoot: ws, config: { bundles: ['default'], options: { edit: { verify: { typescript: sleeper }, verifyTimeoutSeconds: 60 } } } });
    try {
      const abort = new AbortController();
      const pending = slow.client.callTool({ name: 'apply_batch', arguments: { agent_id: 'a', verify: true, reingest: false, edits: [{ file_path: 'src/use.ts', new_content: 'export const q = 2;\n' }] } }, undefined, { signal: abort.signal });
      for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      // The check runs in a child process: the server answers other calls meanwhile.
      let settled = false;
      void pending.then(() => (settled = true), () => (settled = true));
      const t = performance.now();
      assert.equal((await slow.call('health', { agent_id: 'b' })).json.status, 'ok');
      assert.ok(performance.now() - t < 1000, `health answered in ${(performance.now() - t).toFixed(0)} ms while verify ran`);
      assert.equal(settled, false, 'verify was still running');
      abort.abort();
      await assert.rejects(pending);
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(), false, 'the check process was killed on cancellation');
    } finally {
      await slow.close();
    }
  });
});

describe('apply_batch verify runs the affected tests', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    fs.writeFileSync(path.join(ws, 'calc.py'), 'def add(a, b):\n    return a + b\n');
    fs.writeFileSync(path.join(ws, 'test_calc.py'), 'import unittest\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n');
    fs.writeFileSync(path.join(ws, 'other.py'), 'def shout(s):\n    return s.upper()\n');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  const batch = async (file: string, content: string) =>
    (await h.call('apply_batch', { agent_id: 'a', verify: true, edits: [{ file_path: file, new_content: content }] })).json;

  it('runs the test files the graph ties to the written code (unittest here), after the compile check, and reports a failing assertion', async () => {
    const json = await batch('calc.py', 'def add(a, b):\n    return a - b\n');
    assert.deepEqual(json.graph.tests_to_run, ['test_calc.py']);
    assert.deepEqual(json.verify.runs.map((r: { project: string }) => r.project), ['python', 'python tests']);
    const tests = json.verify.runs[1];
    assert.equal(tests.command, 'python3 -m unittest test_calc.py');
    assert.equal(tests.ok, false);
    assert.match(tests.output, /AssertionError: -1 != 5/);
    assert.equal(json.verify.ok, false);
  });

  it('passes when the tests pass, and runs no tests for code no test covers', async () => {
    const fixed = await batch('calc.py', 'def add(a, b):\n    return b + a\n');
    assert.equal(fixed.verify.ok, true);
    assert.equal(fixed.verify.runs[1].ok, true);
    const other = await batch('other.py', 'def shout(s):\n    return s.upper() + "!"\n');
    assert.deepEqual(other.verify.runs.map((r: { project: string }) => r.project), ['python']);
  });

  it('skips the tests when the compile check fails', async () => {
    const json = await batch('calc.py', 'def add(a, b)\n    return a + b\n');
    assert.deepEqual(json.verify.runs.map((r: { project: string }) => r.project), ['python']);
    assert.equal(json.verify.runs[0].ok, false);
    assert.match(json.verify.note, /1 test run\(s\) skipped: a compile check failed/);
  });
});
