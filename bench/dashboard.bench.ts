/**
 * Dashboard API latency on the Python standard library's graph (the engine bench's corpus: a temp
 * copy, top-level `test/` and `site-packages/` excluded), through the real HTTP server and fetch:
 * the graph is ingested, two MCP SDK clients act as agents (calls, a claim, two locks, a mission),
 * then each GET is timed 50× after 3 warm-ups. Printed: p50 and p99 per endpoint, and each p50
 * against an MCP `ping` over the same server in the same run (ratio). Target: p50 ≤ 20 ms.
 *
 *   node --import tsx bench/dashboard.bench.ts [--corpus DIR]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { pct } from './bench-host.ts';

const EXCLUDE = ['test/**', 'site-packages/**'];
const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 50);
const fmt = (x: number, d = 2): string => x.toFixed(d);

async function agent(url: string, id: string) {
  const client = new Client({ name: `bench-${id}`, version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: { agent_id: id, ...args } })) as CallToolResult;
    const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
    if (r.isError) throw new Error(`${name}: ${text}`);
    return JSON.parse(text);
  };
  return { client, call };
}

export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const corpusArg = argv.indexOf('--corpus');
  const source = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const work = mkdtempSync(join(tmpdir(), 'm1nd-dash-bench-'));
  const root = join(work, 'corpus');
  cpSync(source, root, { recursive: true, filter: (p) => !p.includes('__pycache__') && !p.includes('site-packages') });
  const host = await startHost({
    workspaceRoot: root,
    config: { options: { graph: { watch: false, exclude: EXCLUDE } } },
    env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: join(work, 'cache') },
    log: createLogger(() => {}),
  });
  const server = await serveHttp(host, { port: 0 });
  const base = server.url.replace(/\/mcp$/, '');
  const a = await agent(server.url, 'alice');
  const b = await agent(server.url, 'bob');
  const t = performance.now();
  // Set-up through the host (an SDK request times out after 60 s on a loaded machine).
  const ingested = await host.call('ingest', { agent_id: 'setup', path: root });
  if (ingested.isError) throw new Error(JSON.stringify(ingested.content));
  const ingest = JSON.parse((ingested.content[0] as { text: string }).text);
  console.log(`corpus: ${source}; ingested ${JSON.stringify(ingest.files)} files in ${fmt((performance.now() - t) / 1000, 1)} s; graph ${JSON.stringify({ nodes: ingest.nodes ?? ingest.node_count, edges: ingest.edges ?? ingest.edge_count })}`);
  // What a team leaves behind: calls by two agents, claims, overlapping locks, a mission.
  for (const q of ['json decoder', 'http client', 'email parser']) await b.call('seek', { query: q });
  await a.call('impact', { node_id: 'json/decoder.py' });
  await a.call('memorize', { claims: [{ text: 'JSONDecoder.decode wraps raw_decode', evidence: ['json/decoder.py'] }] });
  await b.call('memorize', { claims: [{ text: 'email.parser builds on feedparser', evidence: ['email/parser.py'] }] });
  await a.call('lock_create', { scope: 'subgraph', root_nodes: ['file:json/decoder.py'], radius: 1 });
  await b.call('lock_create', { scope: 'node', root_nodes: ['file:json/decoder.py'] });
  await a.call('mission_start', { repo: 'stdlib', task: 'review json', budget: 'short' });

  const search = (await (await fetch(`${base}/api/graph/search?q=JSONDecoder&limit=1`)).json()) as { nodes: { id: string }[] };
  const node = encodeURIComponent(search.nodes[0]?.id ?? 'json/decoder.py');
  const endpoints = [
    '/api/overview',
    '/api/agents',
    '/api/memory',
    '/api/locks',
    '/api/alerts',
    '/api/graph/search?q=decoder&limit=20',
    `/api/graph/neighbourhood?node=${node}`,
    '/api/file?path=json/decoder.py&line=300',
    `/api/impact?node=${node}&depth=3`,
    `/api/why?from=${encodeURIComponent('file:json/__init__.py')}&to=${node}`,
    '/',
  ];
  const timeGet = async (p: string): Promise<number> => {
    const s = performance.now();
    const res = await fetch(base + p);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${p}: ${res.status}`);
    return performance.now() - s;
  };
  const ping = async (): Promise<number> => {
    const s = performance.now();
    await a.client.ping();
    return performance.now() - s;
  };
  // Interleaved: each round times the ping and then every endpoint once, so drift hits all alike.
  const samples = new Map<string, number[]>(endpoints.map((p) => [p, []]));
  const pings: number[] = [];
  for (let round = -3; round < ROUNDS; round++) {
    const pm = await ping();
    if (round >= 0) pings.push(pm);
    for (const p of endpoints) {
      const ms = await timeGet(p);
      if (round >= 0) samples.get(p)!.push(ms);
    }
  }
  const pingP50 = pct(pings, 50);
  console.log(`MCP ping over the same server: p50 ${fmt(pingP50)} ms, p99 ${fmt(pct(pings, 99))} ms (${ROUNDS} rounds)`);
  let worst = 0;
  for (const p of endpoints) {
    const xs = samples.get(p)!;
    const p50 = pct(xs, 50);
    worst = Math.max(worst, p50);
    console.log(`${p.padEnd(60)} p50 ${fmt(p50).padStart(7)} ms  p99 ${fmt(pct(xs, 99)).padStart(7)} ms  p50/ping ${fmt(p50 / pingP50, 1)}`);
  }
  console.log(`slowest p50: ${fmt(worst)} ms (target ≤ 20 ms: ${worst <= 20 ? 'met' : 'missed'})`);
  await a.client.close();
  await b.client.close();
  await server.close();
  await host.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await run().then(() => process.exit(0));
