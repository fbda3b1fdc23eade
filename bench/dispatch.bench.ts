/**
 * Dispatch overhead: m1nd's full pipeline (lookup, gates, validation, taps, token count, envelope)
 * versus a bare SDK Server answering the same trivial verb, with a real Client, interleaved in the
 * same run:
 * - over InMemoryTransport in this process, m1nd from the TypeScript sources (through tsx), so the
 *   client and both servers share one SDK and the difference is m1nd's pipeline alone (the compiled
 *   bundle carries its own copy of the SDK; with two copies in one process the figure measures that);
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
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as sources from '../core/index.ts';
import { tempDir } from '../test/helpers/mcp.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'dist/m1nd.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PER_ROUND = Number(process.env.BENCH_CALLS ?? 200);
const STDIO_ROUNDS = Number(process.env.BENCH_STDIO_ROUNDS ?? 10);

async function bareClient(): Promise<Client> {
  const server = new Server({ name: 'bare', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { agent_id: { type: 'string' }, text: { type: 'string' } } } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => ({
    content: [{ type: 'text', text: JSON.stringify({ echo: (req.params.arguments as { text: string }).text }) }],
  }));
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(c);
  return client;
}

/** A host serving the echo verb, connected to a client in memory. */
async function m1ndClient(api: typeof sources): Promise<Client> {
  const echo = api.definePlugin({
    name: 'bench-echo',
    version: '1.0.0',
    apply(ctx) {
      ctx.registerVerb(
        api.defineVerb({
          name: 'echo',
          description: 'Echo text back.',
          input: api.Type.Object({ agent_id: api.AgentId, text: api.Type.String() }),
          tiers: ['essential'],
          effect: 'read',
          handler: (a) => ({ echo: a.text }),
        }),
      );
    },
  });
  const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  const host = await api.startHost({ workspaceRoot: tempDir(), env: {}, noConfig: true, extraSources: [{ definition: echo }], log: silent });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await host.connect(s);
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(c);
  return client;
}

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

async function timeCalls(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: 'echo', arguments: { agent_id: 'bench', text: `hello ${i}` } });
    out.push(performance.now() - t);
    if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
  }
  return out;
}

/** Interleaves rounds of calls on each client; returns the per-call times of each. */
async function interleave(clients: Client[], rounds: number, perRound: number): Promise<number[][]> {
  for (const c of clients) await timeCalls(c, 200);
  const times = clients.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) for (const [i, c] of clients.entries()) times[i].push(...(await timeCalls(c, perRound)));
  return times;
}

const us = (ms: number) => (ms * 1000).toFixed(1);

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const clients = [await bareClient(), await m1ndClient(sources)];
  const [bare, fromSources] = await interleave(clients, ROUNDS, PER_ROUND);
  const mb = median(bare);
  const ms = median(fromSources);
  console.log(`dispatch: bare SDK server median ${us(mb)} µs/call, m1nd full pipeline from sources (tsx) median ${us(ms)} µs/call over ${bare.length} calls each (InMemoryTransport)`);
  console.log(`dispatch: ratio m1nd/bare = ${(ms / mb).toFixed(2)} from sources (overhead ${us(ms - mb)} µs/call)`);
  for (const c of clients) await c.close();

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
