import assert from 'node:assert/strict';
import { AgentId, defineVerb, definePlugin, Type } from '../../core/index.ts';
import { connectInMemory } from '../../core/testing.ts';

const broken = definePlugin({
  name: 'broken-example',
  version: '0.1.0',
  apply() {
    throw new Error('forgot to export the verb');
  },
});

const working = definePlugin({
  name: 'working-example',
  version: '0.1.0',
  apply(ctx) {
    ctx.registerVerb(defineVerb({ name: 'working_ping', description: 'Answers pong.', input: Type.Object({ agent_id: AgentId }), effect: 'read', handler: () => ({ pong: true }) }));
  },
});

describe('connectInMemory, the plugin testing helper', function () {
  this.timeout(30000);

  it('throws with the reason when a plugin under test is quarantined, instead of a later "unknown verb"', async () => {
    await assert.rejects(connectInMemory([broken, working]), /quarantined: broken-example at .*forgot to export the verb/);
  });

  it('lets a test inspect the quarantine when asked, while the other plugins serve', async () => {
    const m1nd = await connectInMemory([broken, working], { allowQuarantine: true });
    try {
      assert.deepEqual(m1nd.quarantined.map((q) => q.plugin), ['broken-example']);
      assert.match(m1nd.quarantined[0].message, /forgot to export the verb/);
      assert.equal((await m1nd.call('working_ping', { agent_id: 't' })).json.pong, true);
    } finally {
      await m1nd.close();
    }
  });

  it('passes plugin options and settings overrides to the host', async () => {
    const configurable = definePlugin({
      name: 'configurable',
      version: '0.1.0',
      options: Type.Object({ greeting: Type.String({ default: 'hello' }) }),
      apply(ctx) {
        ctx.registerVerb(defineVerb({ name: 'configurable_greet', description: 'Greets.', input: Type.Object({ agent_id: AgentId }), effect: 'read', handler: () => ({ greeting: ctx.options.greeting, read_only: ctx.settings.readOnly }) }));
      },
    });
    const m1nd = await connectInMemory([configurable], { pluginOptions: { configurable: { greeting: 'hej' } }, overrides: { readOnly: true } });
    try {
      const { greeting, read_only } = (await m1nd.call('configurable_greet', { agent_id: 't' })).json;
      assert.deepEqual({ greeting, read_only }, { greeting: 'hej', read_only: true });
    } finally {
      await m1nd.close();
    }
  });
});
