import assert from 'node:assert/strict';
import { Kind, Type, TypeRegistry, type TObject, type TSchema } from '@sinclair/typebox';
import { AgentId, definePlugin, defineVerb } from '../../core/index.ts';
import { compilesSurely } from '../../core/validation.ts';
import { connect } from '../helpers/mcp.ts';

/** A plugin with one verb whose input schema is `input`. */
function pluginWith(name: string, verb: string, input: TSchema) {
  return definePlugin({
    name,
    version: '1.0.0',
    apply(ctx) {
      ctx.registerVerb(defineVerb({ name: verb, description: 'Test verb.', input: input as TObject, tiers: ['essential'], effect: 'read', handler: (a: Record<string, unknown>) => ({ got: a }) }));
    },
  });
}

describe('verb schemas compiled on first call', function () {
  it('rejects bad arguments on the very first call of a verb, with the path and a minimal call', async () => {
    const input = Type.Object({ agent_id: AgentId, count: Type.Integer({ minimum: 1, maximum: 10 }), mode: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])) });
    const h = await connect({ plugins: [pluginWith('lazy-one', 'lazy_count', input)] });
    try {
      const bad = await h.call('lazy_count', { agent_id: 'x', count: 99 });
      assert.equal(bad.result.isError, true);
      assert.equal(bad.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
      assert.match(bad.json.error.message, /\/count expected integer >= 1 <= 10, got 99/);
      const wrongType = await h.call('lazy_count', { agent_id: 'x', count: 2, mode: 'c' });
      assert.equal(wrongType.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
      assert.match(wrongType.json.error.message, /\/mode/);
      const good = await h.call('lazy_count', { agent_id: 'x', count: 3 });
      assert.equal(good.result.isError, undefined, JSON.stringify(good.json));
      assert.equal(good.json.got.count, 3);
    } finally {
      await h.close();
    }
  });

  it('still quarantines at load a plugin whose schema cannot compile (bad pattern, unknown kind)', async () => {
    const badPattern = Type.Object({ agent_id: AgentId, name: Type.String({ pattern: '([a-z' }) });
    const unknownKind = Type.Object({ agent_id: AgentId, thing: { [Kind]: 'NoSuchKind' } as unknown as TSchema });
    const h = await connect({ plugins: [pluginWith('bad-pattern', 'bad_pattern', badPattern), pluginWith('unknown-kind', 'unknown_kind', unknownKind)] });
    try {
      const q = Object.fromEntries(h.host.current.quarantined().map((r) => [r.plugin, r]));
      assert.equal(q['bad-pattern']?.code, 'M1ND_ERR_VERB_SCHEMA');
      assert.match(q['bad-pattern'].message, /does not compile/);
      assert.equal(q['unknown-kind']?.code, 'M1ND_ERR_VERB_SCHEMA');
      assert.equal(h.host.current.get('bad_pattern'), undefined);
    } finally {
      await h.close();
    }
  });

  it('vouches only for schemas made of plain kinds with valid patterns', () => {
    assert.equal(compilesSurely(Type.Object({ a: Type.String({ pattern: '^[a-z]+$' }), b: Type.Array(Type.Union([Type.Integer(), Type.Null()])), c: Type.Record(Type.String(), Type.Number()) })), true);
    assert.equal(compilesSurely(Type.Object({ a: Type.String({ pattern: '(' }) })), false);
    assert.equal(compilesSurely(Type.Object({ a: Type.Ref('elsewhere') })), false);
    assert.equal(compilesSurely(Type.Object({ a: { type: 'string' } as unknown as TSchema })), false, 'a subschema without a TypeBox kind');
    TypeRegistry.Set('LazySchemaTestKind', () => true);
    try {
      assert.equal(compilesSurely(Type.Object({ a: { [Kind]: 'LazySchemaTestKind' } as unknown as TSchema })), false, 'custom kinds are compiled at load');
    } finally {
      TypeRegistry.Delete('LazySchemaTestKind');
    }
  });
});
