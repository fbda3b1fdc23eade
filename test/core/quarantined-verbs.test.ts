import assert from 'node:assert/strict';
import { AgentId, definePlugin, defineVerb, Type } from '../../core/index.ts';
import { connect, memoryLogger } from '../helpers/mcp.ts';

const echo = (name: string) =>
  defineVerb({ name, description: 'Echoes.', input: Type.Object({ agent_id: AgentId }), effect: 'read', handler: () => ({ ok: true }) });

/** Registers its verb, then fails: the loader commits nothing, but it saw the name. */
const failsInApply = definePlugin({
  name: 'fails-in-apply',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(echo('half_done'));
    throw new Error('config file missing: widgets.json');
  },
});

/** Quarantined before apply (a service nobody provides), with its verb names declared. */
const declared = definePlugin({
  name: 'declares-verbs',
  version: '1.0.0',
  requires: ['no-such-service'],
  verbs: ['declared_verb'],
  apply(ctx) {
    ctx.registerVerb(echo('declared_verb'));
  },
});

/** Quarantined before apply and declaring nothing: its names are unknowable. */
const silent = definePlugin({
  name: 'silent-failure',
  version: '1.0.0',
  requires: ['another-missing-service'],
  apply(ctx) {
    ctx.registerVerb(echo('silent_verb'));
  },
});

describe('calls to verbs of a quarantined plugin', function () {
  it('name the plugin, the failed check and its reason, and hint at fixing and reloading, for a verb registered before apply threw', async () => {
    const h = await connect({ plugins: [failsInApply] });
    try {
      const { result, json } = await h.call('half_done', { agent_id: 'a' });
      assert.equal(result.isError, true);
      assert.equal(json.error.code, 'M1ND_ERR_CALL_VERB_QUARANTINED');
      assert.match(json.error.message, /plugin "fails-in-apply", which is quarantined \(apply check/);
      assert.match(json.error.message, /widgets\.json/);
      assert.match(json.error.hint, /reload/);
      assert.equal(json.error.plugin, 'fails-in-apply');
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.deepEqual(health.quarantined.find((q: any) => q.plugin === 'fails-in-apply').verbs, ['half_done']);
    } finally {
      await h.close();
    }
  });

  it('answer for a declared verb of a plugin quarantined before its apply ran', async () => {
    const h = await connect({ plugins: [declared] });
    try {
      const { json } = await h.call('declared_verb', { agent_id: 'a' });
      assert.equal(json.error.code, 'M1ND_ERR_CALL_VERB_QUARANTINED');
      assert.match(json.error.message, /declares-verbs/);
      assert.match(json.error.message, /no-such-service/);
    } finally {
      await h.close();
    }
  });

  it('say which quarantined plugins may own an unknown verb when they never registered their names', async () => {
    const h = await connect({ plugins: [silent] });
    try {
      const { json } = await h.call('silent_verb', { agent_id: 'a' });
      assert.equal(json.error.code, 'M1ND_ERR_CALL_UNKNOWN_VERB');
      assert.match(json.error.message, /"silent-failure" quarantined before registering its verbs may provide it/);
      assert.match(json.error.message, /another-missing-service/);
      assert.deepEqual(json.error.detail.quarantined, ['silent-failure']);
      assert.match(json.error.hint, /reload/);
    } finally {
      await h.close();
    }
  });

  it('are checked against the declared list when the plugin loads: a stale list is logged', async () => {
    const lines: string[] = [];
    const stale = definePlugin({ name: 'stale-list', version: '1.0.0', verbs: ['old_name'], apply: (ctx) => ctx.registerVerb(echo('new_name')) });
    const h = await connect({ plugins: [stale], log: memoryLogger(lines) });
    try {
      assert.ok(lines.some((l) => /stale-list.*not listed: new_name; not registered: old_name/.test(l)), lines.join('\n'));
    } finally {
      await h.close();
    }
  });

  it('keep the plain unknown-verb answer when nothing is quarantined', async () => {
    const h = await connect();
    try {
      const { json } = await h.call('no_such_verb_at_all', { agent_id: 'a' });
      assert.equal(json.error.code, 'M1ND_ERR_CALL_UNKNOWN_VERB');
      assert.doesNotMatch(json.error.message, /quarantined/);
    } finally {
      await h.close();
    }
  });
});
