/**
 * The daemon's own conditions clear too: an `ingest_failed` alert resolves once a later re-ingest
 * succeeds, a `queue_overflow` alert once a tick's poll has taken in what the full queue dropped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { AgentId, definePlugin, defineVerb, Type } from '../../../core/index.ts';
import type { AlertBook } from '../../../plugins/daemon/alert-book.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** Raises an alert through the `alerts` service, as the daemon raises these two (their dedup keys). */
const raiser = definePlugin({
  name: 'alert-raiser',
  version: '1.0.0',
  requires: ['alerts'],
  apply(ctx) {
    const alerts = ctx.service<AlertBook>('alerts');
    ctx.registerVerb(
      defineVerb({
        name: 'test_raise_alert',
        description: 'Raises a daemon condition (test only).',
        input: Type.Object({ agent_id: AgentId, kind: Type.String() }),
        tiers: ['full'],
        effect: 'write',
        handler: async (args) => {
          const kind = args.kind as 'ingest_failed' | 'queue_overflow';
          const { alert } = await alerts.raise({ kind, severity: kind === 'ingest_failed' ? 'error' : 'warning', source: 'daemon', message: `${kind} (test)`, dedup: `${kind}:daemon` });
          return { id: alert.id };
        },
      }),
    );
  },
});

describe('daemon conditions that clear', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('resolves ingest_failed after a successful re-ingest and queue_overflow after a complete poll', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-alerts-clear-'));
    h = await connect({ workspaceRoot: ws, plugins: [raiser], env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const failed = (await h.call('test_raise_alert', { agent_id: 'a', kind: 'ingest_failed' })).json.id;
    const overflow = (await h.call('test_raise_alert', { agent_id: 'a', kind: 'queue_overflow' })).json.id;
    assert.equal((await h.call('alerts_list', { agent_id: 'a' })).json.total, 2);

    fs.appendFileSync(path.join(ws, 'src/math.ts'), 'export const z = 1;\n');
    const tick = (await h.call('daemon_tick', { agent_id: 'a' })).json;
    assert.deepEqual(tick.reingested, ['src/math.ts']);
    assert.equal(tick.remaining, 0);
    assert.equal(tick.alerts_resolved, 2, JSON.stringify(tick));
    const all = (await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).json.alerts;
    assert.deepEqual(all.filter((x: any) => [failed, overflow].includes(x.id)).map((x: any) => x.status), ['resolved', 'resolved']);
  });
});
