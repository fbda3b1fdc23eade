/**
 * The two servers bench/dispatch.bench.ts compares, each with a Client over InMemoryTransport: a
 * bare SDK Server answering the trivial `echo` verb, and an m1nd host (from the TypeScript sources)
 * serving the same verb through its whole pipeline. Shared by the one-process measure and the
 * per-process children (bench/dispatch-child.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as sources from '../core/index.ts';
import { tempDir } from '../test/helpers/mcp.ts';

export async function bareClient(): Promise<Client> {
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
export async function m1ndClient(api: typeof sources = sources): Promise<Client> {
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
  const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent, to: () => silent };
  const host = await api.startHost({ workspaceRoot: tempDir(), env: {}, noConfig: true, extraSources: [{ definition: echo }], log: silent });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await host.connect(s);
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(c);
  return client;
}

/** Makes `n` echo calls one after another; returns each call's wall time in ms. */
export async function timeCalls(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: 'echo', arguments: { agent_id: 'bench', text: `hello ${i}` } });
    out.push(performance.now() - t);
    if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
  }
  return out;
}
