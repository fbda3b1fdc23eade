/**
 * Start-up: time from spawning a server process to its answer to `initialize` (then tools/list),
 * m1nd (all built-in plugins, empty workspace) versus a bare SDK server script, interleaved in
 * the same run. Prints medians and their ratio.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const BARE = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const s = new Server({ name: 'bare', version: '0' }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
await s.connect(new StdioServerTransport());
`;

async function timeStart(command: string, args: string[], cwd: string): Promise<number> {
  const t = performance.now();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' }));
  await client.listTools();
  const ms = performance.now() - t;
  await client.close();
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const bareFile = path.join(ROOT, 'bench', `.bare-server-${process.pid}.mjs`);
  fs.writeFileSync(bareFile, BARE);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-'));
  const bare: number[] = [];
  const m1nd: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      bare.push(await timeStart(process.execPath, [bareFile], ROOT));
      m1nd.push(await timeStart(process.execPath, [path.join(ROOT, 'bin/m1nd.js'), 'serve', '--workspace', ws], ROOT));
    }
  } finally {
    fs.rmSync(bareFile, { force: true });
  }
  const b = median(bare);
  const m = median(m1nd);
  console.log(`startup: spawn → initialize → tools/list: bare SDK server median ${b.toFixed(0)} ms, m1nd (all built-in plugins) median ${m.toFixed(0)} ms over ${RUNS} runs each`);
  console.log(`startup: ratio m1nd/bare = ${(m / b).toFixed(2)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
