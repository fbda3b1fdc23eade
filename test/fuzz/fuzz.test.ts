import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHost, type Host } from '../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../core/http.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';
import { fuzzMessages } from './messages.ts';
import { fuzzStdio, initialize, probeAlive, spawnStdioServer, type StdioServer } from './stdio-fuzz.ts';
import { fuzzHttp, openSession } from './http-fuzz.ts';

/** Messages per transport inside `npm test`; `npm run fuzz` sends 10,000 over stdio and 3,000 over HTTP. */
const STDIO_COUNT = Number(process.env.M1ND_FUZZ_STDIO ?? 2000);
const HTTP_COUNT = Number(process.env.M1ND_FUZZ_HTTP ?? 600);

describe('transport fuzz: malformed JSON-RPC never silences or crashes the server', function () {
  this.timeout(300_000);

  describe('over stdio (a real m1nd serve process)', () => {
    let server: StdioServer;
    before(async () => {
      server = spawnStdioServer(tempDir());
      await initialize(server);
    });
    after(async () => {
      if (server.child.exitCode === null) {
        server.child.stdin.end();
        await server.exited;
      }
    });

    it(`answers every one of ${STDIO_COUNT} malformed messages that may carry an id, and stays fast`, async () => {
      // A first probe warms health and tools/list (their first call loads the tokenizer), as any client would.
      const baseline = await probeAlive(server);
      const messages = fuzzMessages(STDIO_COUNT, 7);
      const report = await fuzzStdio(server, messages, 120_000);
      const after = await probeAlive(server);
      console.log(`      stdio: ${report.sent} messages in ${report.elapsedMs.toFixed(0)} ms; answered ${report.answeredById}/${report.expectedById} by id, ${report.answeredNull}/${report.expectedNull} with id null; tools/list ${after.toolsListMs.toFixed(1)} ms, health ${after.healthMs.toFixed(1)} ms after (before: ${baseline.toolsListMs.toFixed(1)} / ${baseline.healthMs.toFixed(1)})`);
      assert.deepEqual(report.unanswered.map((m) => `${m.family}: ${m.line.slice(0, 80)}`), []);
      assert.equal(report.answeredNull, report.expectedNull, 'one id-null error per unparseable message, no more');
      assert.equal(server.child.exitCode, null, 'the server is alive');
      assert.ok(after.tools > 5 && after.healthOk);
      assert.ok(after.toolsListMs < 100 && after.healthMs < 100, `tools/list ${after.toolsListMs.toFixed(1)} ms, health ${after.healthMs.toFixed(1)} ms`);
      assert.doesNotMatch(server.stderr(), /MaxListenersExceededWarning|Maximum call stack|Unhandled|TypeError/);
    });

    it('answers the progress-token, fractional-id and batch cases with the right JSON-RPC codes', async () => {
      server.send('{"jsonrpc":"2.0","id":"pt","method":"tools/call","params":{"name":"health","arguments":{"agent_id":"a"},"_meta":{"progressToken":{"x":1}}}}');
      assert.equal((await server.waitFor('pt')).error.code, -32600);
      server.send('{"jsonrpc":"2.0","id":7.25,"method":"ping"}');
      assert.equal((await server.waitFor(7.25)).error.code, -32600);
      const nullsBefore = server.answers.filter((a) => a.id === null).length;
      server.send('{"jsonrpc":"2.0","id":');
      server.send('[{"jsonrpc":"2.0","id":"in-batch","method":"ping"}]');
      server.send('{"jsonrpc":"2.0","id":"after","method":"ping"}');
      assert.deepEqual((await server.waitFor('after')).result, {});
      const nulls = server.answers.filter((a) => a.id === null).slice(nullsBefore);
      assert.deepEqual(nulls.map((a) => a.error.code), [-32700, -32600]);
    });
  });

  it('ends the stdio server with exit code 1 and a stderr line when a line exceeds the limit, instead of going deaf', async () => {
    const server = spawnStdioServer(tempDir());
    await initialize(server);
    const huge = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"${'a'.repeat(11_000_000)}"}}`;
    server.child.stdin.write(`${huge}\n`);
    const exit = await Promise.race([server.exited, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    assert.ok(exit, `still running; stderr: ${server.stderr().slice(-300)}`);
    assert.equal(exit.code, 1);
    assert.match(server.stderr(), /m1nd: a message line exceeded 10485760 bytes; exiting \(code 1\)/);
    assert.ok(server.answers.some((a) => a.id === null && a.error?.code === -32600), 'the client was told why');
  });

  it('ends the stdio server with exit code 0 and a stderr line when stdin closes', async () => {
    const server = spawnStdioServer(tempDir());
    await initialize(server);
    server.child.stdin.end();
    const exit = await server.exited;
    assert.equal(exit.code, 0);
    assert.match(server.stderr(), /m1nd: stdin closed; exiting \(code 0\)/);
  });

  describe('over Streamable HTTP', () => {
    let host: Host;
    let served: HttpServerHandle;
    before(async () => {
      host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger() });
      served = await serveHttp(host, { port: 0 });
    });
    after(async () => {
      await served.close();
      await host.close();
    });

    it(`answers every one of ${HTTP_COUNT} malformed POSTs (no 5xx), then serves tools/list and health in under 100 ms`, async () => {
      const session = await openSession(served.url);
      const report = await fuzzHttp(served.url, session, fuzzMessages(HTTP_COUNT, 8));
      console.log(`      http: ${report.sent} POSTs in ${report.elapsedMs.toFixed(0)} ms; statuses ${JSON.stringify(report.statuses)}`);
      assert.deepEqual(report.unanswered, []);
      assert.equal(report.serverErrors, 0);
      const transport = new StreamableHTTPClientTransport(new URL(served.url));
      const client = new Client({ name: 'after-fuzz', version: '0' });
      await client.connect(transport);
      try {
        // One MCP session is one agent (pinned on first use): every call here says the same agent_id.
        await client.callTool({ name: 'health', arguments: { agent_id: 'after' } });
        // The median of five probes: the test client shares this loaded machine (and process) with the server.
        const lists: number[] = [];
        const healths: number[] = [];
        for (let i = 0; i < 5; i++) {
          let t = performance.now();
          const tools = await client.listTools();
          lists.push(performance.now() - t);
          t = performance.now();
          const health = await client.callTool({ name: 'health', arguments: { agent_id: 'after' } });
          healths.push(performance.now() - t);
          assert.ok(tools.tools.length > 5);
          assert.notEqual(health.isError, true);
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2];
        const [listMs, healthMs] = [median(lists), median(healths)];
        console.log(`      http after fuzz: tools/list median ${listMs.toFixed(1)} ms, health median ${healthMs.toFixed(1)} ms`);
        assert.ok(listMs < 100 && healthMs < 100, `tools/list ${listMs.toFixed(1)} ms, health ${healthMs.toFixed(1)} ms`);
      } finally {
        await client.close();
      }
    });
  });
});
