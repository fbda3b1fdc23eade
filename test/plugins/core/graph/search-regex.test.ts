import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type Host } from '../../../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../../../core/http.ts';
import { memoryLogger, tempDir } from '../../../helpers/mcp.ts';

function body(result: unknown): any {
  const r = result as CallToolResult;
  return JSON.parse(r.content[0]?.type === 'text' ? r.content[0].text : 'null');
}

async function connectClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'search-regex-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('search regex on a linear-time engine', function () {
  this.timeout(60000);
  let host: Host;
  let served: HttpServerHandle;
  let a: Awaited<ReturnType<typeof connectClient>>;
  let b: Awaited<ReturnType<typeof connectClient>>;

  before(async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'src'));
    // The line that makes a backtracking engine explore 2^40 ways of splitting the run of a's.
    fs.writeFileSync(path.join(root, 'src/evil.py'), `header = 1\ns = "${'a'.repeat(40)}!"\n# footer aaa\n`);
    fs.writeFileSync(path.join(root, 'src/ok.ts'), 'export const x = 1;\nexport const yy = 22;\n');
    host = await startHost({ workspaceRoot: root, env: {}, log: memoryLogger() });
    served = await serveHttp(host, { port: 0 });
    [a, b] = await Promise.all([connectClient(served.url), connectClient(served.url)]);
    await a.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.' } });
  });
  after(async () => {
    for (const s of [a, b]) await s?.client.close();
    await served?.close();
    await host?.close();
  });

  it('answers (a+)+$ over a line of 40 a\'s within its deadline while another session\'s pings keep p95 under 100 ms', async () => {
    // Warm: the first call loads file contents into the search cache and JIT-compiles the engine.
    await a.client.callTool({ name: 'search', arguments: { agent_id: 'a', query: '(a+)+$', mode: 'regex', top_k: 10 } });
    let searching = true;
    const pingUntilStopped = async (into: number[]) => {
      while (searching) {
        const t = performance.now();
        await b.client.ping();
        into.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    // The machine's own ping latency, measured in this run (the test client shares the server's process).
    const idle: number[] = [];
    const idlePinger = pingUntilStopped(idle);
    await new Promise((r) => setTimeout(r, 400));
    searching = false;
    await idlePinger;
    searching = true;
    const pings: number[] = [];
    const pinger = pingUntilStopped(pings);
    const t0 = performance.now();
    const results = [];
    let slowest = 0;
    // Calls for a second, so the pings overlap real regex work rather than only the round trips.
    while (results.length < 5 || performance.now() - t0 < 1000) {
      const t = performance.now();
      results.push(await a.client.callTool({ name: 'search', arguments: { agent_id: 'a', query: '(a+)+$', mode: 'regex', top_k: 10 } }));
      slowest = Math.max(slowest, performance.now() - t);
    }
    searching = false;
    await pinger;
    for (const r of results) assert.notEqual((r as CallToolResult).isError, true, JSON.stringify(r));
    const found = body(results[0]);
    // Only "footer aaa" ends in a's: the 40 a's are followed by '!'.
    assert.deepEqual(found.matches.map((m: any) => [m.path, m.line, m.column]), [['src/evil.py', 3, 10]]);
    assert.ok(slowest < 3000, `the slowest search took ${slowest.toFixed(0)} ms, past its 3,000 ms budget`);
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
    assert.ok(pings.length >= 5, `only ${pings.length} pings (${pings.map(Math.round)}) during ${results.length} searches`);
    // Under 100 ms above what the same pings cost with no search running (on an idle machine: under ~100 ms).
    // p95, not p99: ~60 pings make p99 the single worst one, and in the full suite's process one major
    // GC of the whole mocha heap (264 ms in one CI run) can land there. A backtracking engine would
    // hold every search's turn for seconds, so it fails this and the bound on the worst ping below.
    const why = `${pings.length} pings, ${results.length} searches, slowest ${slowest.toFixed(0)} ms`;
    assert.ok(pct(pings, 0.95) < pct(idle, 0.95) + 100, `ping p95 ${pct(pings, 0.95).toFixed(1)} ms during searches vs ${pct(idle, 0.95).toFixed(1)} ms idle (${why})`);
    assert.ok(Math.max(...pings) < 1000, `a ping waited ${Math.max(...pings).toFixed(0)} ms during searches (${why})`);
  });

  it('refuses backreferences and lookaround with a coded error that names the alternative', async () => {
    for (const [query, construct] of [
      ['(a)\\1', /backreferences/],
      ['foo(?=bar)', /lookaround/],
      ['(?<!x)y', /lookaround/],
      ['(?<q>a)\\k<q>', /backreferences/],
    ] as const) {
      const r = (await a.client.callTool({ name: 'search', arguments: { agent_id: 'a', query, mode: 'regex' } })) as CallToolResult;
      assert.equal(r.isError, true, query);
      const err = body(r).error;
      assert.equal(err.code, 'M1ND_ERR_ENGINE_SEARCH_PATTERN', query);
      assert.match(err.message, construct, query);
      assert.match(err.message, /RE2/);
      assert.match(err.hint, /mode "literal"/);
    }
  });

  it('keeps JavaScript spellings RE2 shares: named groups, classes, anchors, case folding', async () => {
    const r = body(await a.client.callTool({ name: 'search', arguments: { agent_id: 'a', query: '^export const (?<name>[a-z]{2})\\b', mode: 'regex' } }));
    assert.deepEqual(r.matches.map((m: any) => [m.path, m.line]), [['src/ok.ts', 2]]);
    const ci = body(await a.client.callTool({ name: 'search', arguments: { agent_id: 'a', query: 'HEADER', mode: 'regex', count_only: true } }));
    assert.equal(ci.total_matches, 1);
  });
});
