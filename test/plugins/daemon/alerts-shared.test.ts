import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../../../core/index.ts';
import { clientSink, createLogger } from '../../../core/log.ts';
import { describeBackends } from '../../helpers/backends.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** A server whose log reaches its clients as the CLI wires it. */
async function serve(ws: string): Promise<Harness> {
  let host: Host | undefined;
  const log = createLogger(clientSink('warn', (level, logger, data, fallback, audience) => host?.broadcastLog(level, logger, data, fallback, audience)));
  const h = await connect({ workspaceRoot: ws, log, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
  host = h.host;
  return h;
}

describeBackends('alerts shared by two servers of one checkout', function (backend) {
  this.timeout(120000);
  let a: Harness | undefined;
  let b: Harness | undefined;
  afterEach(async () => {
    await a?.close();
    await b?.close();
    a = b = undefined;
  });

  it(
    backend === 'postgres'
      ? "lists on one server the alert the other raised, pushes it to the other's client, and shares acknowledgements"
      : 'lists on one server the alert the other raised, and shares acknowledgements',
    async () => {
      const ws = writeFixtureRepo(tempDir('m1nd-alerts-'));
      a = await serve(ws);
      await a.call('ingest', { agent_id: 'x', path: ws });
      b = await serve(ws);
      const pushed: any[] = [];
      b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void pushed.push(n.params));
      await b.call('health', { agent_id: 'y' });

      fs.rmSync(path.join(ws, 'go/server.go'));
      const tick = (await a.call('daemon_tick', { agent_id: 'x' })).json;
      const raised = tick.alerts_raised.find((r: any) => r.kind === 'file_deleted');
      assert.ok(raised, JSON.stringify(tick));

      const seen = (await b.call('alerts_list', { agent_id: 'y' })).json.alerts.find((r: any) => r.id === raised.id);
      assert.equal(seen.path, 'go/server.go');
      if (backend === 'postgres') {
        // The team store's change feed brings it to the other server, which logs it to its client.
        for (let i = 0; i < 100 && !pushed.some((p) => p.data?.data?.alert_id === raised.id); i++) await new Promise((r) => setTimeout(r, 50));
        assert.ok(pushed.some((p) => p.data?.data?.alert_id === raised.id), JSON.stringify(pushed));
      }
      await b.call('alerts_ack', { agent_id: 'y', alert_ids: [raised.id] });
      const onA = (await a.call('alerts_list', { agent_id: 'x' })).json.alerts.find((r: any) => r.id === raised.id);
      assert.deepEqual(onA.acked_by, ['y']);
      assert.equal(onA.acked, false);
    },
  );
});
