import { strict as assert } from 'node:assert';
import { definePlugin } from '../../core/index.ts';
import { connect } from '../helpers/mcp.ts';

// Found by the daemon sweep: the shutdown taps ran in parallel, so the graph's store closed while the
// daemon's cycle was still writing through it (a false ingest_failed alert, files counted twice).
describe('the shutdown hook', () => {
  it('closes a plugin before the plugins it requires, waiting for each, and runs every tap when one fails', async () => {
    const order: string[] = [];
    const store = definePlugin({
      name: 'store-provider',
      version: '1.0.0',
      provides: ['kv'],
      apply(ctx) {
        ctx.provide('kv', { get: () => 1 });
        ctx.hooks.shutdown.tapPromise('store-provider', async () => void order.push('store closed'));
      },
    });
    const worker = definePlugin({
      name: 'store-user',
      version: '1.0.0',
      requires: ['kv'],
      apply(ctx) {
        ctx.hooks.shutdown.tapPromise('store-user', async () => {
          order.push('work finishing');
          await new Promise((r) => setTimeout(r, 50));
          order.push('work done');
          throw new Error('a failing tap');
        });
      },
    });
    // Given out of order: the loader sorts them by requires/provides.
    const h = await connect({ plugins: [worker, store] });
    await assert.rejects(h.close(), /a failing tap/);
    assert.deepEqual(order, ['work finishing', 'work done', 'store closed']);
  });
});
