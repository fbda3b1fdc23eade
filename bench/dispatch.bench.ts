/**
 * Dispatch overhead: m1nd's full pipeline (lookup, gates, validation, taps, token count, envelope)
 * versus a bare SDK Server answering the same trivial verb, both over InMemoryTransport with a
 * real Client, measured interleaved in the same process. Prints medians and their ratio.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Type } from '@sinclair/typebox';
import { AgentId, definePlugin, defineVerb, startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { tempDir } from '../test/helpers/mcp.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PER_ROUND = Number(process.env.BENCH_CALLS ?? 200);

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

async function m1ndClient(): Promise<Client> {
  const echo = definePlugin({
    name: 'bench-echo',
    version: '1.0.0',
    apply(ctx) {
      ctx.registerVerb(
        defineVerb({
          name: 'echo',
          description: 'Echo text back.',
          input: Type.Object({ agent_id: AgentId, text: Type.String() }),
          tiers: ['essential'],
          effect: 'read',
          handler: (a) => ({ echo: a.text }),
        }),
      );
    },
  });
  const host = await startHost({ workspaceRoot: tempDir(), env: {}, extraSources: [{ definition: echo }], log: createLogger(() => {}) });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await host.connect(s);
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(c);
  return client;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeCalls(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await client.callTool({ name: 'echo', arguments: { agent_id: 'bench', text: `hello ${i}` } });
    out.push(performance.now() - t);
  }
  return out;
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const bare = await bareClient();
  const m1nd = await m1ndClient();
  await timeCalls(bare, 200);
  await timeCalls(m1nd, 200);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(...(await timeCalls(bare, PER_ROUND)));
    b.push(...(await timeCalls(m1nd, PER_ROUND)));
  }
  const ma = median(a);
  const mb = median(b);
  console.log(`dispatch: bare SDK server median ${(ma * 1000).toFixed(1)} µs/call, m1nd full pipeline median ${(mb * 1000).toFixed(1)} µs/call over ${a.length} calls each`);
  console.log(`dispatch: ratio m1nd/bare = ${(mb / ma).toFixed(2)} (overhead ${((mb - ma) * 1000).toFixed(1)} µs/call)`);
  await bare.close();
  await m1nd.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
