import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../helpers/mcp.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/loader');

describe('plugin loader', function () {
  it('quarantines each broken plugin with its code and check, and loads the rest', async () => {
    const h = await connect({ config: { bundles: ['default'], plugins: { dirs: [FIXTURES] } } });
    try {
      const q = Object.fromEntries(h.host.current.quarantined().map((r) => [r.plugin, r]));
      assert.equal(q['missing-dependency'].code, 'M1ND_ERR_PLUGIN_DEPENDENCY');
      assert.equal(q['missing-dependency'].check, 'dependencies');
      assert.match(q['missing-dependency'].message, /no-such-service/);
      assert.equal(q['version-mismatch'].code, 'M1ND_ERR_PLUGIN_VERSION');
      assert.equal(q['duplicate-verb'].code, 'M1ND_ERR_VERB_DUPLICATE');
      assert.match(q['duplicate-verb'].message, /registered by plugin "host" and again by plugin "duplicate-verb"/);
      assert.equal(q['invalid-schema'].code, 'M1ND_ERR_VERB_SCHEMA');
      assert.equal(q['throws-in-apply'].code, 'M1ND_ERR_PLUGIN_APPLY');
      assert.match(q['throws-in-apply'].message, /cannot open my database/);
      assert.equal(Object.keys(q).length, 5);
      assert.equal((await h.call('good_ping', { agent_id: 'a' })).json.pong, true);
      const health = await h.call('health', { agent_id: 'a' });
      assert.equal(health.json.quarantined.length, 5);
      assert.equal(health.json.status, 'degraded');
    } finally {
      await h.close();
    }
  });

  it('commits nothing of a quarantined plugin: its taps never run', async () => {
    const h = await connect({ config: { bundles: ['default'], plugins: { dirs: [FIXTURES] } } });
    try {
      const { result } = await h.call('help', { agent_id: 'a' });
      assert.equal(result.isError, undefined, 'the duplicate plugin tapped beforeCall with a throwing tap that was never committed');
    } finally {
      await h.close();
    }
  });

  it('orders plugins so that providers load before consumers', async () => {
    const { definePlugin } = await import('../../core/index.ts');
    const order: string[] = [];
    const consumer = definePlugin({ name: 'consumer', version: '1.0.0', requires: ['svc'], apply: (ctx) => void order.push(`consumer:${ctx.service<{ v: number }>('svc').v}`) });
    const provider = definePlugin({ name: 'provider', version: '1.0.0', provides: ['svc'], apply: (ctx) => void (order.push('provider'), ctx.provide('svc', { v: 7 })) });
    const h = await connect({ plugins: [consumer, provider] });
    try {
      assert.deepEqual(order, ['provider', 'consumer:7']);
      assert.equal(h.host.current.quarantined().length, 0);
    } finally {
      await h.close();
    }
  });

  it('refuses a service a plugin did not declare in requires', async () => {
    const { definePlugin } = await import('../../core/index.ts');
    const provider = definePlugin({ name: 'provider', version: '1.0.0', provides: ['svc'], apply: (ctx) => ctx.provide('svc', {}) });
    const sneaky = definePlugin({ name: 'sneaky', version: '1.0.0', apply: (ctx) => void ctx.service('svc') });
    const h = await connect({ plugins: [provider, sneaky] });
    try {
      const q = h.host.current.quarantined();
      assert.equal(q[0].plugin, 'sneaky');
      assert.match(q[0].message, /without declaring it in `requires`/);
    } finally {
      await h.close();
    }
  });
});
