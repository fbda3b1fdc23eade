import assert from 'node:assert/strict';
import { AgentId, definePlugin, defineVerb, Type } from '../../core/index.ts';
import { connect, type Harness } from '../helpers/mcp.ts';

/** A verb whose valid call needs one of two optional inputs, so its schema declares an example call. */
const pickPlugin = definePlugin({
  name: 'pick',
  version: '0.0.1',
  apply(ctx) {
    ctx.registerVerb(
      defineVerb({
        name: 'pick_items',
        description: 'Counts items (test verb).',
        input: Type.Object(
          {
            agent_id: AgentId,
            items: Type.Array(Type.Unknown(), { maxItems: 5, default: [] }),
            from: Type.Optional(Type.String()),
          },
          { examples: [{ agent_id: 'my-agent', items: [1] }] },
        ),
        effect: 'read',
        handler: (args) => {
          if (args.items.length === 0 && !args.from) throw new Error('no items given');
          return { count: args.items.length };
        },
      }),
    );
  },
});

describe('argument errors', function () {
  let h: Harness;
  before(async () => {
    h = await connect({ plugins: [pickPlugin] });
  });
  after(() => h.close());

  it('suggest the minimal call a verb declares as its example, and that call succeeds', async () => {
    const { json } = await h.call('pick_items', { agent_id: 'a', items: 'nope' });
    assert.deepEqual(JSON.parse(json.error.detail.minimal_call.replace(/^pick_items\(|\)$/g, '')), { agent_id: 'my-agent', items: [1] });
    assert.match(json.error.hint, /minimal valid call: pick_items\(\{"agent_id":"my-agent","items":\[1\]\}\)/);
    const again = await h.call('pick_items', { agent_id: 'my-agent', items: [1] });
    assert.equal(again.json.count, 1);
  });

  it('echo a large refused value clipped, not whole', async () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ payload: 'x'.repeat(80), i }));
    const { result, json } = await h.call('pick_items', { agent_id: 'a', items });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.equal(typeof json.error.detail.got, 'string');
    assert.match(json.error.detail.got, /characters\)$/);
    const size = JSON.stringify(result.content).length;
    assert.ok(size < 4000, `the error is ${size} characters`);
  });

  it('still echo a small refused value as it is', async () => {
    const { json } = await h.call('pick_items', { agent_id: 'a', items: [1, 2, 3, 4, 5, 6] });
    assert.deepEqual(json.error.detail.got, [1, 2, 3, 4, 5, 6]);
  });
});
