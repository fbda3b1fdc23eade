import assert from 'node:assert/strict';
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { AgentId, defineVerb, definePlugin, isToolContent, toolContent, Type } from '../../core/index.ts';
import { connect, type Harness } from '../helpers/mcp.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A plugin whose verbs return content blocks and talk to their caller while they run. */
const plugin = definePlugin({
  name: 'content-fixture',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(
      defineVerb({
        name: 'draw',
        description: 'Returns a caption and an image.',
        input: Type.Object({ agent_id: AgentId, caption: Type.String({ maxLength: 100 }) }),
        effect: 'read',
        handler: (a) => toolContent([{ type: 'text', text: a.caption }, { type: 'image', data: PNG, mimeType: 'image/png' }], { caption: a.caption }),
      }),
    );
    ctx.registerVerb(
      defineVerb({
        name: 'chatty',
        description: 'Logs to its caller at three levels, then answers.',
        input: Type.Object({ agent_id: AgentId }),
        effect: 'read',
        handler: async (_a, c) => {
          await c.notify('debug', 'fine detail');
          await c.notify('info', { step: 1 });
          await c.notify('error', 'something to see');
          return { done: true };
        },
      }),
    );
  },
});

describe('tool content and caller log messages (toolContent, ctx.notify)', () => {
  let h: Harness;
  const logs: LoggingMessageNotification['params'][] = [];
  before(async () => {
    h = await connect({ plugins: [plugin] });
    h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  });
  after(() => h.close());

  it('sends the blocks a handler returns as they are, with structuredContent and no JSON envelope', async () => {
    const result = (await h.client.callTool({ name: 'draw', arguments: { agent_id: 'a', caption: 'a dot' } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [
      { type: 'text', text: 'a dot' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    assert.deepEqual(result.structuredContent, { caption: 'a dot' });
  });

  it('still validates the arguments of a content verb', async () => {
    const result = (await h.client.callTool({ name: 'draw', arguments: { agent_id: 'a' } })) as CallToolResult;
    assert.equal(result.isError, true);
  });

  it('recognises content made by toolContent, and only that', () => {
    assert.equal(isToolContent(toolContent({ type: 'text', text: 'x' })), true);
    assert.equal(isToolContent({ content: [{ type: 'text', text: 'x' }] }), false);
    assert.equal(isToolContent(null), false);
  });

  it('delivers ctx.notify messages to the caller, filtered by the level it set', async () => {
    logs.length = 0;
    await h.client.setLoggingLevel('info');
    await h.call('chatty', { agent_id: 'a' });
    await new Promise((r) => setTimeout(r, 20));
    const mine = logs.filter((l) => l.logger === 'm1nd/content-fixture');
    assert.deepEqual(
      mine.map((l) => [l.level, l.data]),
      [
        ['info', { step: 1 }],
        ['error', 'something to see'],
      ],
    );
    logs.length = 0;
    await h.client.setLoggingLevel('debug');
    await h.call('chatty', { agent_id: 'a' });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(logs.filter((l) => l.logger === 'm1nd/content-fixture').length, 3);
  });
});
