/**
 * Dispatch overhead: m1nd's full pipeline (lookup, gates, validation, taps, token count, envelope)
 * versus a bare SDK Server answering the same trivial verb, with a real Client, interleaved in the
 * same run:
 * - over InMemoryTransport, m1nd from the TypeScript sources (through tsx), so both servers run the
 *   same SDK and the difference is m1nd's pipeline alone (the compiled bundle carries its own copy of
 *   the SDK). Two methods, in the same run: both servers in this process (one heap: each side's
 *   blocks pay scavenges of the other's garbage), and each server with its client in a process of
 *   its own (bench/dispatch-child.ts), the blocks alternated over IPC the same way;
 * - over stdio: `m1nd serve` (dist/) with the echo verb as a plugin, versus a bare SDK server script,
 *   and the same served from the TypeScript sources (`M1ND_FROM_SOURCE=1`), which tells the bundle's
 *   cost from the pipeline's. Besides wall medians, each server's main-thread CPU per call (Linux:
 *   /proc/<pid>/task/<pid>/schedstat) is printed as a ratio: on a shared machine it is steadier than wall time.
 * Prints medians and their ratios.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fork, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { bareClient, m1ndClient, timeCalls } from './dispatch-servers.ts';
import type { ChildBlock } from './dispatch-child.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'dist/m1nd.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PER_ROUND = Number(process.env.BENCH_CALLS ?? 200);
const STDIO_ROUNDS = Number(process.env.BENCH_STDIO_ROUNDS ?? 10);
/**
 * Warm-up calls of a server in a process of its own. Its code is optimised on its own calls only
 * (in one process the bare server's SDK paths also warm on m1nd's calls): the per-call CPU settles
 * after ~3,000 calls, not 200.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);

const BARE_STDIO = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const s = new Server({ name: 'bare', version: '0' }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { agent_id: { type: 'string' }, text: { type: 'string' } } } }] }));
s.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: JSON.stringify({ echo: req.params.arguments.text }) }] }));
await s.connect(new StdioServerTransport());
`;

/** A workspace whose config loads the echo verb as a plain-JavaScript plugin importing the bundle (or the sources). */
function echoWorkspace(api = BUNDLE): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-dispatch-'));
  fs.mkdirSync(path.join(ws, 'plugins/bench-echo'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'm1nd.config.mjs'), `export default { plugins: { dirs: ['./plugins'] } };\n`);
  fs.writeFileSync(
    path.join(ws, 'plugins/bench-echo/index.mjs'),
    `import { definePlugin, defineVerb, Type, AgentId } from ${JSON.stringify(pathToFileURL(api).href)};
export default definePlugin({ name: 'bench-echo', version: '1.0.0', apply(ctx) {
  ctx.registerVerb(defineVerb({ name: 'echo', description: 'Echo text back.', input: Type.Object({ agent_id: AgentId, text: Type.String() }), tiers: ['essential'], effect: 'read', handler: (a) => ({ echo: a.text }) }));
} });
`,
  );
  return ws;
}

async function stdioClient(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ client: Client; pid: number | null }> {
  const client = new Client({ name: 'bench', version: '0' });
  const cache: Record<string, string> = process.env.M1ND_CACHE_DIR ? { M1ND_CACHE_DIR: process.env.M1ND_CACHE_DIR } : {};
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env: { PATH: process.env.PATH ?? '', ...cache, ...env }, stderr: 'ignore' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** A process's main-thread CPU so far, in ms (null where /proc is not there). */
function mainThreadCpuMs(pid: number | null): number | null {
  try {
    return pid === null ? null : Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Interleaves rounds of calls on each client; returns the per-call times and process CPU (µs) of each. */
async function interleave(clients: Client[], rounds: number, perRound: number): Promise<{ times: number[][]; cpuUs: number[] }> {
  for (const c of clients) await timeCalls(c, 200);
  const times = clients.map(() => [] as number[]);
  const cpuUs = clients.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    for (const [i, c] of clients.entries()) {
      const cpu0 = process.cpuUsage();
      times[i].push(...(await timeCalls(c, perRound)));
      const cpu = process.cpuUsage(cpu0);
      cpuUs[i] += cpu.user + cpu.system;
    }
  }
  return { times, cpuUs };
}

/** A child process serving one side in memory (bench/dispatch-child.ts), ready for blocks of calls. */
async function forkSide(kind: 'bare' | 'm1nd'): Promise<{ child: ChildProcess; block(calls: number): Promise<ChildBlock> }> {
  const child = fork(fileURLToPath(new URL('./dispatch-child.ts', import.meta.url)), [kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`dispatch child ${kind} exited (${code}) before it was ready`)));
  });
  const block = (calls: number) =>
    new Promise<ChildBlock>((resolve) => {
      child.once('message', (m) => resolve(m as ChildBlock));
      child.send({ calls });
    });
  return { child, block };
}

/** The same interleaving with each side in its own process: each heap collects only its own garbage. */
async function interleaveProcesses(rounds: number, perRound: number): Promise<{ times: number[][]; cpuUs: number[]; mainUs: number[]; scavenges: number[]; youngBytes: number[] }> {
  const sides = [await forkSide('bare'), await forkSide('m1nd')];
  try {
    for (const s of sides) await s.block(WARMUP);
    const times = sides.map(() => [] as number[]);
    const cpuUs = sides.map(() => 0);
    const mainUs = sides.map(() => 0);
    const scavenges = sides.map(() => 0);
    const youngBytes = sides.map(() => 0);
    for (let r = 0; r < rounds; r++) {
      for (const [i, s] of sides.entries()) {
        const b = await s.block(perRound);
        times[i].push(...b.times);
        cpuUs[i] += b.cpuUs;
        mainUs[i] += b.mainUs;
        scavenges[i] += b.scavenges;
        youngBytes[i] += b.youngBytes;
      }
    }
    return { times, cpuUs, mainUs, scavenges, youngBytes };
  } finally {
    for (const s of sides) s.child.send({ calls: 0 });
  }
}

const us = (ms: number) => (ms * 1000).toFixed(1);

/** Prints the in-memory figures of one method: wall medians, their ratio, process CPU per call and its ratio. */
function report(method: string, [bare, m1nd]: number[][], [cpuBare, cpuM1nd]: number[], n: number, gcs?: { mainUs: number[]; scavenges: number[]; youngBytes: number[] }): void {
  const mb = median(bare);
  const ms = median(m1nd);
  console.log(`dispatch (${method}): bare SDK server median ${us(mb)} µs/call, m1nd full pipeline from sources (tsx) median ${us(ms)} µs/call over ${n} calls each (InMemoryTransport)`);
  const gc = gcs
    ? `; main thread bare ${(gcs.mainUs[0] / n).toFixed(1)} µs, m1nd ${(gcs.mainUs[1] / n).toFixed(1)} µs (ratio ${(gcs.mainUs[1] / gcs.mainUs[0]).toFixed(2)}); young-generation bytes allocated per call bare ${(gcs.youngBytes[0] / n).toFixed(0)}, m1nd ${(gcs.youngBytes[1] / n).toFixed(0)}; scavenges per 10,000 calls bare ${((gcs.scavenges[0] * 10000) / n).toFixed(0)}, m1nd ${((gcs.scavenges[1] * 10000) / n).toFixed(0)}`
    : '';
  console.log(`dispatch (${method}): process CPU per call bare ${(cpuBare / n).toFixed(1)} µs, m1nd ${(cpuM1nd / n).toFixed(1)} µs${gc}`);
  console.log(`dispatch (${method}): ratio m1nd/bare = ${(ms / mb).toFixed(2)} from sources (overhead ${us(ms - mb)} µs/call); CPU ratio ${(cpuM1nd / cpuBare).toFixed(2)}`);
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  // Old method: both servers and their clients in this process, one heap (each side pays scavenges of the other's garbage).
  const clients = [await bareClient(), await m1ndClient()];
  const one = await interleave(clients, ROUNDS, PER_ROUND);
  for (const c of clients) await c.close();
  const n = ROUNDS * PER_ROUND;
  report('one process', one.times, one.cpuUs, n);
  // New method: each server and its client in a process of its own, the same rounds alternated over IPC.
  const own = await interleaveProcesses(ROUNDS, PER_ROUND);
  report('a process each', own.times, own.cpuUs, n, own);

  if (STDIO_ROUNDS === 0) return;
  if (!fs.existsSync(BUNDLE)) return console.log('dispatch over stdio: skipped (no dist/m1nd.js; run npm run build)');
  const bareFile = path.join(ROOT, 'bench', `.bare-echo-${process.pid}.mjs`);
  fs.writeFileSync(bareFile, BARE_STDIO);
  const ws = echoWorkspace();
  const wsSources = echoWorkspace(path.join(ROOT, 'core/index.ts'));
  const bin = path.join(ROOT, 'bin/m1nd.js');
  try {
    const servers = [
      await stdioClient([bareFile], ROOT),
      await stdioClient([bin, 'serve', '--workspace', ws], ws),
      await stdioClient([bin, 'serve', '--workspace', wsSources], wsSources, { M1ND_FROM_SOURCE: '1' }),
    ];
    const clients = servers.map((s) => s.client);
    // Warm-up as interleave does, then the measured rounds with each server's main-thread CPU around them.
    for (const c of clients) await timeCalls(c, 200);
    const cpu = servers.map(() => 0);
    const times = servers.map(() => [] as number[]);
    for (let r = 0; r < STDIO_ROUNDS; r++) {
      for (const [i, s] of servers.entries()) {
        const before = mainThreadCpuMs(s.pid);
        times[i].push(...(await timeCalls(s.client, PER_ROUND)));
        const after = mainThreadCpuMs(s.pid);
        cpu[i] += before === null || after === null ? NaN : after - before;
      }
    }
    const [sb, sm, ss] = times.map(median);
    const n = STDIO_ROUNDS * PER_ROUND;
    console.log(`dispatch over stdio: bare SDK server script median ${us(sb)} µs/call, m1nd serve (dist/) median ${us(sm)} µs/call, from sources median ${us(ss)} µs/call over ${n} calls each`);
    console.log(`dispatch over stdio: ratio m1nd/bare = ${(sm / sb).toFixed(2)} (overhead ${us(sm - sb)} µs/call); from sources ${(ss / sb).toFixed(2)} (overhead ${us(ss - sb)} µs/call)`);
    if (cpu.every(Number.isFinite)) {
      const [cb, cm, cs] = cpu.map((ms) => ms / n);
      console.log(`dispatch over stdio: server main-thread CPU per call bare ${us(cb)} µs, dist ${us(cm)} µs, sources ${us(cs)} µs; ratio dist/bare = ${(cm / cb).toFixed(2)}, sources/bare = ${(cs / cb).toFixed(2)}`);
    }
    for (const c of clients) await c.close();
  } finally {
    fs.rmSync(bareFile, { force: true });
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(wsSources, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
  process.exit(0);
}
