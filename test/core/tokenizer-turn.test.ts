import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the dispatcher and the tokenizer’s first load', () => {
  it('loads the tables for a first result that may need counting in a turn of its own, then shapes it to the limit (fresh process)', () => {
    // Async verbs, as every graph verb is: without the extra turn the load ran in the handler's last stretch, before anything queued.
    const script = `
      import { AgentId, definePlugin, defineVerb, tokenizerLoaded, Type } from './core/index.ts';
      import { connect } from './test/helpers/mcp.ts';
      const rows = Array.from({ length: 4000 }, (_, i) => 'row ' + i + ' of a result far over the token limit');
      const plugin = definePlugin({ name: 'big', version: '1.0.0', apply(ctx) {
        ctx.registerVerb(defineVerb({ name: 'small', description: 'Small.', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: async () => ({ ok: 1 }) }));
        ctx.registerVerb(defineVerb({ name: 'big', description: 'Big.', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: async () => ({ rows }) }));
      } });
      const h = await connect({ plugins: [plugin] });
      const small = await h.host.call('small', { agent_id: 'a' });
      const afterSmall = tokenizerLoaded();
      let seenByQueued;
      setImmediate(() => (seenByQueued = tokenizerLoaded()));
      const pending = h.host.call('big', { agent_id: 'a' });
      const r = await pending;
      const json = JSON.parse(r.content[0].text);
      console.log(JSON.stringify({ small: !small.isError, afterSmall, seenByQueued, after: tokenizerLoaded(), truncated: json._m1nd.truncated, kept: json.rows.length }));
      await h.close();
      process.exit(0);`;
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!);
    assert.equal(out.small, true);
    assert.equal(out.afterSmall, false, 'a small result never loads the tokenizer');
    assert.equal(out.seenByQueued, false, 'work queued before the call ran before the load (it was in the call\'s own turn)');
    assert.equal(out.after, true);
    assert.equal(out.truncated, true);
    assert.ok(out.kept > 0 && out.kept < 4000, `kept ${out.kept}`);
  });

  it('loads the tables before the handler of a verb that takes a token_budget, in turns of their own, and never for one that does not (fresh process)', () => {
    // Verbs that pack a listing count synchronously inside their handler: the load must not land in that stretch.
    const script = `
      import { AgentId, definePlugin, defineVerb, tokenizerLoaded, Type } from './core/index.ts';
      import { connect } from './test/helpers/mcp.ts';
      const seen = {};
      const plugin = definePlugin({ name: 'packs', version: '1.0.0', apply(ctx) {
        ctx.registerVerb(defineVerb({ name: 'plain', description: 'Plain.', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: () => { seen.plain = tokenizerLoaded(); return { ok: 1 }; } }));
        ctx.registerVerb(defineVerb({ name: 'packs', description: 'Packs.', input: Type.Object({ agent_id: AgentId, token_budget: Type.Optional(Type.Integer()) }), tiers: ['essential'], effect: 'read', handler: () => { seen.packs = tokenizerLoaded(); return { ok: 1 }; } }));
      } });
      const h = await connect({ plugins: [plugin] });
      const plain = await h.host.call('plain', { agent_id: 'a' });
      let seenByQueued;
      setImmediate(() => (seenByQueued = tokenizerLoaded()));
      const packs = await h.host.call('packs', { agent_id: 'a' });
      console.log(JSON.stringify({ ok: !plain.isError && !packs.isError, ...seen, seenByQueued }));
      await h.close();
      process.exit(0);`;
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!);
    assert.equal(out.ok, true);
    assert.equal(out.plain, false, 'a verb with no token_budget never waits for the tokenizer');
    assert.equal(out.packs, true, 'the handler of a packing verb finds the tables loaded');
    assert.equal(out.seenByQueued, false, 'work queued before the call ran before the load');
  });
});
