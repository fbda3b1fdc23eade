import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { EmptyResultSchema, ErrorCode, LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connect, memoryLogger, tempDir } from '../helpers/mcp.ts';
import { startHost } from '../../core/index.ts';

const CORE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/index.ts');
import { clientSink, createLogger, fanOut } from '../../core/log.ts';
import { AgentId, definePlugin, defineVerb, Type, type Host } from '../../core/index.ts';

type Message = { level: string; logger?: string; data: unknown };

/** A client connected to `host` that records the log notifications it receives. */
async function listener(host: Host, name: string): Promise<{ client: Client; got: Message[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await host.connect(serverSide);
  const client = new Client({ name, version: '0.0.0' });
  await client.connect(clientSide);
  const got: Message[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params));
  return { client, got };
}

const settle = () => new Promise((r) => setTimeout(r, 60));

/** A plugin whose verb logs one warning and one debug line while it runs. */
const chatty = definePlugin({
  name: 'chatty',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(
      defineVerb({
        name: 'chatty_work',
        description: 'Logs while it works.',
        input: Type.Object({ agent_id: AgentId, tag: Type.String({ maxLength: 20 }) }),
        effect: 'read',
        handler: (args, call) => {
          call.log.warn(`working for ${args.tag}`);
          call.log.debug(`detail for ${args.tag}`);
          return { ok: true };
        },
      }),
    );
  },
});

/** A host whose log reaches clients as the CLI wires it (default threshold `warn`). */
async function loggingHost() {
  let host: Host | undefined;
  const log = createLogger(fanOut(() => {}, clientSink('warn', (level, logger, data, fallback) => host?.broadcastLog(level, logger, data, fallback))));
  const h = await connect({ plugins: [chatty], log, config: { bundles: [] } });
  host = h.host;
  return { h, log };
}

describe('logging to MCP clients', function () {
  this.timeout(30000);

  it('forwards host log lines as notifications/message, filtered by the client\'s logging/setLevel', async () => {
    const h = await connect();
    try {
      const got: Message[] = [];
      h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        got.push(n.params);
      });
      const log = createLogger(clientSink('info', (level, logger, data, fallback) => h.host.broadcastLog(level, logger, data, fallback)), 'graph');
      log.debug('not forwarded: below the default threshold');
      log.warn('watcher lost a file', { path: 'src/a.ts' });
      await h.client.setLoggingLevel('error');
      log.warn('filtered out by the client');
      log.error('reload failed');
      for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got, [
        { level: 'warning', logger: 'm1nd/graph', data: { message: 'watcher lost a file', data: { path: 'src/a.ts' } } },
        { level: 'error', logger: 'm1nd/graph', data: 'reload failed' },
      ]);
    } finally {
      await h.close();
    }
  });

  it('answers logging/setLevel with an unknown level by -32602 naming the valid levels', async () => {
    const h = await connect();
    try {
      await assert.rejects(h.client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema), (e: unknown) => {
        assert.ok(e instanceof McpError);
        assert.equal(e.code, ErrorCode.InvalidParams);
        assert.match(e.message, /level must be one of debug, info, notice, warning, error, critical, alert, emergency; got "loud"/);
        assert.doesNotMatch(e.message, /invalid_value|"path"|\[\s*\{/, 'no raw validation dump');
        return true;
      });
      await assert.rejects(h.client.request({ method: 'logging/setLevel', params: {} }, EmptyResultSchema), (e: unknown) => (e as McpError).code === ErrorCode.InvalidParams);
      assert.deepEqual(await h.client.request({ method: 'logging/setLevel', params: { level: 'notice' } }, EmptyResultSchema), {});
    } finally {
      await h.close();
    }
  });

  it('keeps a threshold per session: one session lowering it to debug does not change another\'s', async () => {
    const { h, log } = await loggingHost();
    const a = await listener(h.host, 'a');
    const b = await listener(h.host, 'b');
    try {
      await a.client.setLoggingLevel('debug');
      await b.client.setLoggingLevel('error');
      log.debug('debug line');
      log.warn('warn line');
      log.error('error line');
      await settle();
      assert.deepEqual(a.got.map((m) => m.data), ['debug line', 'warn line', 'error line'], 'a lowered its threshold below the default (warn)');
      assert.deepEqual(b.got.map((m) => m.data), ['error line'], 'b raised its own');
      const c = await listener(h.host, 'c');
      log.info('info line');
      log.warn('second warn');
      await settle();
      assert.deepEqual(c.got.map((m) => m.data), ['second warn'], 'a session that never set a level gets the default threshold');
      await c.client.close();
    } finally {
      await a.client.close();
      await b.client.close();
      await h.close();
    }
  });

  it('sends the lines a call logs to the session that made the call, and server-wide lines to every session', async () => {
    const { h, log } = await loggingHost();
    const a = await listener(h.host, 'a');
    const b = await listener(h.host, 'b');
    try {
      await a.client.setLoggingLevel('debug');
      await b.client.setLoggingLevel('debug');
      await a.client.callTool({ name: 'chatty_work', arguments: { agent_id: 'a', tag: 'A' } });
      await b.client.callTool({ name: 'chatty_work', arguments: { agent_id: 'b', tag: 'B' } });
      log.warn('reload failed somewhere');
      await settle();
      assert.deepEqual(a.got.map((m) => m.data), ['working for A', 'detail for A', 'reload failed somewhere']);
      assert.deepEqual(b.got.map((m) => m.data), ['working for B', 'detail for B', 'reload failed somewhere']);
      assert.equal(a.got[0].logger, 'm1nd/host/chatty');
    } finally {
      await a.client.close();
      await b.client.close();
      await h.close();
    }
  });

  it('logs one line per failed reload, naming the broken plugin as the cause of its dependents\' quarantine', async () => {
    const ws = tempDir();
    const dir = path.join(ws, 'plugins');
    const plugin = (name: string, body: string) => {
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      fs.writeFileSync(path.join(dir, name, 'index.ts'), `import { AgentId, definePlugin, Type } from ${JSON.stringify(CORE)};\n${body}\n`);
    };
    const provider = (broken: boolean) =>
      plugin('prov', `export default definePlugin({ name: 'prov', version: '1.0.0', provides: ['counter'], apply(ctx) { ${broken ? "throw new Error('prov broke');" : ''} ctx.provide('counter', { n: 1 }); } });`);
    provider(false);
    plugin('cons', `export default definePlugin({ name: 'cons', version: '1.0.0', requires: ['counter'], apply(ctx) { ctx.registerVerb({ name: 'cons_read', description: 'Reads.', input: Type.Object({ agent_id: AgentId }), effect: 'read', handler: () => ({ n: ctx.service<{ n: number }>('counter').n }) }); } });`);
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { bundles: [] as string[], plugins: { dirs: ['./plugins'] } };\n`);
    const lines: string[] = [];
    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger(lines) });
    try {
      assert.deepEqual(host.current.quarantined(), []);
      provider(true);
      lines.length = 0;
      const report = await host.reload();
      assert.equal(report.ok, false);
      const failures = lines.filter((l) => l.startsWith('error ') || l.startsWith('warn '));
      assert.equal(failures.length, 1, failures.join('\n'));
      assert.match(failures[0], /reload failed; generation 1 keeps serving: .*prov broke/);
      assert.match(failures[0], /cons \(dependencies\): plugin "cons" requires service "counter" from plugin "prov", which was quarantined/);
    } finally {
      await host.close();
    }
  });
});
