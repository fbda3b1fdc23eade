/**
 * `npm run inspector`: the MCP Inspector's CLI (@modelcontextprotocol/inspector, which needs Node
 * 22) against m1nd over stdio — lists tools, calls one, lists and reads a resource, lists and gets
 * a prompt, and checks each answer. Node 22 and the Inspector are installed from the npm registry
 * into a cache folder (test/conformance/node22.ts); the m1nd server runs on this Node by absolute
 * path. Prints one line per step with its time, and exits 1 on the first wrong answer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { node22, packageBin } from './node22.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The Inspector release checked (pinned: `--prefer-offline` would take whatever the cache has). */
export const INSPECTOR_VERSION = '2.12.0';

interface Step {
  name: string;
  args: string[];
  check: (answer: any) => string | undefined;
}

const DOCTRINE = 'Agents working here run the tests before every commit.';

const steps: Step[] = [
  { name: 'tools/list', args: ['--method', 'tools/list'], check: (a) => (a.tools?.some((t: { name: string }) => t.name === 'help') ? undefined : 'no help tool listed') },
  {
    name: 'tools/call help',
    args: ['--method', 'tools/call', '--tool-name', 'help', '--tool-arg', 'agent_id=inspector', '--tool-arg', 'tool_name=health'],
    check: (a) => (a.isError ? `isError: ${a.content?.[0]?.text}` : /health/.test(a.content?.[0]?.text ?? '') ? undefined : 'help did not describe health'),
  },
  { name: 'resources/list', args: ['--method', 'resources/list'], check: (a) => (a.resources?.some((r: { uri: string }) => r.uri === 'm1nd://doctrine') ? undefined : 'no m1nd://doctrine listed') },
  { name: 'resources/read m1nd://doctrine', args: ['--method', 'resources/read', '--uri', 'm1nd://doctrine'], check: (a) => (a.contents?.[0]?.text?.includes(DOCTRINE) ? undefined : 'the doctrine file text is not in the contents') },
  { name: 'prompts/list', args: ['--method', 'prompts/list'], check: (a) => (a.prompts?.some((p: { name: string }) => p.name === 'workflow') ? undefined : 'no workflow prompt listed') },
  {
    name: 'prompts/get workflow',
    args: ['--method', 'prompts/get', '--prompt-name', 'workflow', '--prompt-args', 'name=first contact', 'task=fix the flaky test'],
    check: (a) => (a.messages?.[0]?.content?.text?.includes('fix the flaky test') ? undefined : 'the prompt does not quote the task'),
  },
];

async function main(): Promise<number> {
  const t0 = performance.now();
  const node = await node22();
  const cli = await packageBin(`@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, 'mcp-inspector');
  const installed = performance.now() - t0;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-inspector-'));
  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), `# Rules\n\n${DOCTRINE}\n`);
  // The server: this Node, by absolute path, from the compiled bundle when built, else the sources.
  const fromSource = fs.existsSync(path.join(ROOT, 'dist/m1nd.js')) ? [] : ['-e', 'M1ND_FROM_SOURCE=1'];
  const server = ['--cli', ...fromSource, process.execPath, path.join(ROOT, 'bin/m1nd.js'), 'serve', '--workspace', workspace];
  console.log(`Inspector ${INSPECTOR_VERSION} (Node ${(await run(node, ['--version'])).stdout.trim()}) against m1nd over stdio (Node ${process.versions.node}); tools ready in ${(installed / 1000).toFixed(1)} s`);
  let failed = 0;
  try {
    for (const step of steps) {
      const started = performance.now();
      let problem: string | undefined;
      try {
        const { stdout } = await run(node, [cli, ...server, ...step.args], { maxBuffer: 16 * 1024 * 1024, timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } });
        problem = step.check(JSON.parse(stdout));
      } catch (error) {
        const e = error as { message: string; stdout?: string; stderr?: string };
        problem = `${e.message.split('\n')[0]}${e.stderr ? `\n${e.stderr.slice(0, 2000)}` : ''}${e.stdout ? `\n${e.stdout.slice(0, 2000)}` : ''}`;
      }
      console.log(`${problem ? 'FAIL' : 'ok  '}  ${step.name.padEnd(32)} ${((performance.now() - started) / 1000).toFixed(1)} s${problem ? `  ${problem}` : ''}`);
      if (problem) failed++;
    }
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  console.log(failed ? `${failed} of ${steps.length} steps failed` : `all ${steps.length} steps passed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return failed ? 1 : 0;
}

process.exit(await main());
