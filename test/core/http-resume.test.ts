import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { AgentId, definePlugin, defineVerb, startHost, Type, type Host } from '../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../core/http.ts';
import { SessionEventStore } from '../../core/event-store.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A verb that drops its stream, keeps talking while the client is away, then answers. */
const resumable = definePlugin({
  name: 'resumable',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(
      defineVerb({
        name: 'long_job',
        description: 'Closes its stream, logs while the client is away, then answers.',
        input: Type.Object({ agent_id: AgentId }),
        effect: 'read',
        handler: async (_args, call) => {
          const closed = call.closeStream();
          await call.notify('info', 'step 1 while disconnected');
          await sleep(20);
          await call.notify('info', 'step 2 while disconnected');
          return { closed, answer: 42 };
        },
      }),
    );
  },
});

describe('resumable Streamable HTTP (event store, Last-Event-ID)', function () {
  let host: Host;
  let served: HttpServerHandle;
  before(async () => {
    host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger(), extraSources: [{ definition: resumable }] });
    served = await serveHttp(host, { port: 0, log: memoryLogger(), resumability: { retryMs: 50 } });
  });
  after(async () => {
    await served.close();
    await host.close();
  });

  it('delivers the result and the messages sent while a closed stream was away, after the SDK client resumes with Last-Event-ID', async () => {
    const resumedWith: string[] = [];
    // The client resumes through its own reconnect logic; its requests show the Last-Event-ID it sent.
    const watching: typeof fetch = (input, init) => {
      const id = new Headers(init?.headers).get('last-event-id');
      if (id) resumedWith.push(id);
      return fetch(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(served.url), { fetch: watching });
    const client = new Client({ name: 'resume-test', version: '0.0.0' });
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'long_job', arguments: { agent_id: 'a' } })) as CallToolResult;
      const body = JSON.parse((result.content[0] as { text: string }).text);
      assert.equal(body.closed, true, 'the handler could close its stream');
      assert.equal(body.answer, 42);
      assert.equal(resumedWith.length, 1, 'the client reconnected once, with a Last-Event-ID');
      assert.deepEqual(logs, ['step 1 while disconnected', 'step 2 while disconnected']);
    } finally {
      await client.close();
    }
  });

  it('refuses a resume from an event id it does not hold', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(served.url));
    const client = new Client({ name: 'resume-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const res = await fetch(served.url, {
        headers: { Accept: 'text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25', 'last-event-id': 'no-such-stream_999' },
      });
      assert.equal(res.status, 400);
      await res.body?.cancel();
    } finally {
      await client.close();
    }
  });
});

describe('SessionEventStore', function () {
  const msg = (i: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `m${i}` } });
  const replay = async (store: SessionEventStore, id: string) => {
    const sent: string[] = [];
    const stream = await store.replayEventsAfter(id, { send: async (_eid, m) => void sent.push(String((m as any).params.data)) });
    return { stream, sent };
  };

  it('replays only the later events of the same stream, skipping priming events', async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent('s1', {} as JSONRPCMessage);
    await store.storeEvent('s1', msg(1));
    await store.storeEvent('s2', msg(2));
    await store.storeEvent('s1', {} as JSONRPCMessage);
    await store.storeEvent('s1', msg(3));
    assert.deepEqual(await replay(store, first), { stream: 's1', sent: ['m1', 'm3'] });
    assert.equal(await store.getStreamIdForEventId(first), 's1');
  });

  it('keeps at most maxEvents and maxBytes per session, evicting the oldest, and refuses a resume from an evicted id', async () => {
    const store = new SessionEventStore({ maxEvents: 3 });
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await store.storeEvent('s', msg(i)));
    assert.deepEqual(store.size.events, 3);
    assert.equal(store.evicted, 7);
    assert.equal(await store.getStreamIdForEventId(ids[2]), undefined);
    await assert.rejects(replay(store, ids[2]), /no longer kept/);
    assert.deepEqual((await replay(store, ids[7])).sent, ['m8', 'm9']);

    const small = new SessionEventStore({ maxBytes: 300 });
    for (let i = 0; i < 50; i++) await small.storeEvent('s', msg(i));
    assert.ok(small.size.bytes <= 300, `${small.size.bytes} bytes kept`);
    assert.ok(small.size.events >= 1);
  });

  it('stays bounded over many events (compaction keeps lookups right)', async () => {
    const store = new SessionEventStore({ maxEvents: 10 });
    let last = '';
    for (let i = 0; i < 5000; i++) last = await store.storeEvent('s', msg(i));
    assert.equal(store.size.events, 10);
    assert.equal(await store.getStreamIdForEventId(last), 's');
    assert.deepEqual((await replay(store, last.replace(/_\d+$/, '_4995'))).sent, ['m4995', 'm4996', 'm4997', 'm4998', 'm4999']);
  });
});
