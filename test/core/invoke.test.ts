import assert from 'node:assert/strict';
import { defineVerb, definePlugin, Type } from '../../core/index.ts';
import { connect, type Harness } from '../helpers/mcp.ts';

/** A plugin whose verbs call other verbs through call.invoke. */
const composer = definePlugin({
  name: 'composer',
  version: '0.0.1',
  apply(ctx) {
    ctx.registerVerb(defineVerb({ name: 'cmp_leaf', description: 'Echoes its caller.', input: Type.Object({ agent_id: Type.Optional(Type.String()), n: Type.Integer() }), effect: 'read', handler: async (args, call) => ({ n: args.n * 2, agent: call.agentId }) }));
    ctx.registerVerb(defineVerb({ name: 'cmp_write', description: 'A write.', input: Type.Object({ agent_id: Type.Optional(Type.String()) }), effect: 'write', handler: async () => ({ wrote: true }) }));
    ctx.registerVerb(
      defineVerb({
        name: 'cmp_root',
        description: 'Calls others.',
        input: Type.Object({ agent_id: Type.Optional(Type.String()), depth: Type.Integer({ default: 0 }) }),
        effect: 'read',
        handler: async (args, call) => ({
          leaf: await call.invoke('cmp_leaf', { n: 21, agent_id: 'someone-else' }),
          bad: await call.invoke('cmp_leaf', { n: 'x' }),
          unknown: await call.invoke('cmp_nope', {}),
          write: await call.invoke('cmp_write', {}),
          ...(args.depth > 0 ? { nested: await call.invoke('cmp_root', { depth: args.depth - 1 }) } : {}),
        }),
      }),
    );
  },
});

describe('call.invoke: verbs calling verbs through the pipeline', function () {
  this.timeout(30000);
  let h: Harness;
  let ro: Harness;
  before(async () => {
    h = await connect({ plugins: [composer], env: { M1ND_TOOL_TIER: 'full' } });
    ro = await connect({ plugins: [composer], env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
  });
  after(async () => {
    await h?.close();
    await ro?.close();
  });

  it('returns the nested result without its envelope, as the calling agent, and errors as values', async () => {
    const r = await h.call('cmp_root', { agent_id: 'ada' });
    assert.deepEqual(r.json.leaf, { ok: true, value: { n: 42, agent: 'ada' } });
    assert.equal(r.json.bad.ok, false);
    assert.equal(r.json.bad.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.equal(r.json.unknown.error.code, 'M1ND_ERR_CALL_UNKNOWN_VERB');
    assert.deepEqual(r.json.write, { ok: true, value: { wrote: true } });
  });

  it('applies the gates to nested calls: a read-only server refuses the nested write', async () => {
    const r = await ro.call('cmp_root', { agent_id: 'ada' });
    assert.equal(r.json.leaf.ok, true);
    assert.equal(r.json.write.ok, false);
    assert.match(r.json.write.error.code, /READ_ONLY/);
  });

  it('limits nesting depth', async () => {
    const r = await h.call('cmp_root', { agent_id: 'ada', depth: 5 });
    let level = r.json;
    let depth = 0;
    while (level.nested?.ok) {
      level = level.nested.value;
      depth++;
    }
    assert.equal(depth, 3, 'three nested levels under the client call; the third refuses to nest again');
    assert.match(level.nested.error.message, /nested deeper than 3/);
  });
});
