import assert from 'node:assert/strict';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect } from '../helpers/mcp.ts';
import { clientSink, createLogger } from '../../core/log.ts';

describe('logging to MCP clients', function () {
  it('forwards host log lines as notifications/message, filtered by the client\'s logging/setLevel', async () => {
    const h = await connect();
    try {
      const got: { level: string; logger?: string; data: unknown }[] = [];
      h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        got.push(n.params);
      });
      const log = createLogger(clientSink('info', (level, logger, data) => h.host.broadcastLog(level, logger, data)), 'graph');
      log.debug('not forwarded: below the sink level');
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
});
