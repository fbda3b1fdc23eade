import assert from 'node:assert/strict';
import { EmptyResultSchema, ErrorCode as RpcErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { connect, type Harness } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';

describe('dispatch pipeline', function () {
  let h: Harness;
  before(async () => {
    h = await connect({ plugins: [recorderPlugin().plugin] });
  });
  after(() => h.close());

  it('answers an unknown verb with an isError result suggesting a hidden verb', async () => {
    const { result, json } = await h.call('rec_secret_hiden', { agent_id: 'a' });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_CALL_UNKNOWN_VERB');
    assert.equal(json.error.detail.suggestions[0], 'rec_secret_hidden');
    assert.ok(json.error.detail.suggestions.length <= 3);
  });

  it('answers an unknown JSON-RPC method with -32601', async () => {
    await assert.rejects(
      h.client.request({ method: 'm1nd/nonexistent', params: {} }, EmptyResultSchema),
      (e: unknown) => e instanceof McpError && e.code === RpcErrorCode.MethodNotFound && e.code === -32601,
    );
  });

  it('refuses bad arguments naming the JSON path, the expected type and a minimal call', async () => {
    const { result, json } = await h.call('help', { agent_id: 'a', max_suggestions: 'three' });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.equal(json.error.detail.path, '/max_suggestions');
    assert.match(json.error.message, /integer/);
    assert.match(json.error.hint, /help\(\{"agent_id":"my-agent"\}\)/);
  });

  it('refuses a missing required parameter and an unknown one', async () => {
    const missing = await h.call('rec_prove', { agent_id: 'a' });
    assert.equal(missing.json.error.detail.path, '/file_path');
    const extra = await h.call('rec_read', { agent_id: 'a', colour: 'red' });
    assert.equal(extra.json.error.detail.path, '/colour');
    assert.match(extra.json.error.hint, /rec_read takes: agent_id, note/);
  });

  it('turns a throwing handler into an isError result stamped with its plugin, and keeps serving', async () => {
    const { result, json } = await h.call('rec_throw', { agent_id: 'a' });
    assert.equal(result.isError, true);
    assert.equal(json.error.plugin, 'recorder');
    assert.match(json.error.message, /boom from the handler/);
    assert.equal(json.error.code, 'M1ND_ERR_CALL_HANDLER');
    assert.match(json.error.hint, /call `help` with \{"mode":"recovery"/);
    assert.equal((await h.call('rec_read', { agent_id: 'a' })).json.did, 'rec_read');
  });

  it('stops a handler at its timeout and aborts its signal', async () => {
    const { plugin, record } = recorderPlugin();
    const h2 = await connect({ plugins: [plugin] });
    try {
      const { json } = await h2.call('rec_slow', { agent_id: 'a' });
      assert.equal(json.error.code, 'M1ND_ERR_CALL_TIMEOUT');
      assert.deepEqual(record.effects, ['rec_slow:aborted']);
    } finally {
      await h2.close();
    }
  });

  it('fills in parameter defaults before the handler runs', async () => {
    const { json } = await h.call('rec_big', { agent_id: 'a' });
    assert.equal(json.total, 5000);
  });

  it('tracks calls per agent_id', async () => {
    await h.call('rec_read', { agent_id: 'tracker' });
    await h.call('rec_read', { agent_id: 'tracker' });
    const rec = h.host.session.agent('tracker');
    assert.equal(rec?.queryCount, 2);
    assert.equal(rec?.verbs.get('rec_read'), 2);
  });
});

describe('a tap that never settles', function () {
  it('is reported as a timeout naming the hook, and the server keeps serving', async () => {
    const { definePlugin } = await import('../../core/index.ts');
    const stuck = definePlugin({
      name: 'stuck',
      version: '1.0.0',
      apply(ctx) {
        ctx.hooks.beforeCall.tapPromise('stuck', (call) => (call.name === 'help' ? new Promise<void>(() => {}) : Promise.resolve()));
      },
    });
    const h = await connect({ env: { M1ND_HANDLER_TIMEOUT_MS: '200' }, plugins: [stuck] });
    try {
      const { json } = await h.call('help', { agent_id: 'a' });
      assert.equal(json.error.code, 'M1ND_ERR_CALL_TIMEOUT');
      assert.match(json.error.message, /stuck in the beforeCall hook/);
      assert.equal((await h.call('health', { agent_id: 'a' })).result.isError, undefined);
    } finally {
      await h.close();
    }
  });
});

describe('a cancelled call whose handler ignores its signal', function () {
  it('ends in the pipeline (in flight, after-call taps) soon after the client cancels, early or late, without waiting for the handler or the timeout', async () => {
    const { definePlugin, defineVerb, AgentId, Type } = await import('../../core/index.ts');
    const hang = definePlugin({
      name: 'hang',
      version: '1.0.0',
      apply(ctx) {
        ctx.registerVerb(
          defineVerb({
            name: 'hang_deaf',
            description: 'Sleeps 3 s, never reading its signal.',
            input: Type.Object({ agent_id: AgentId }),
            effect: 'read',
            timeoutMs: 10_000,
            handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 3000)),
          }),
        );
      },
    });
    const h = await connect({ plugins: [hang] });
    try {
      const outcomes: string[] = [];
      h.host.current.hooks.afterCall.tap('test', (call, outcome) => void (call.name === 'hang_deaf' && outcomes.push(outcome.kind === 'failed' ? outcome.error.code : outcome.kind)));
      for (const abortAfter of [5, 60]) {
        const controller = new AbortController();
        const started = performance.now();
        const pending = h.client.callTool({ name: 'hang_deaf', arguments: { agent_id: 'a' } }, undefined, { signal: controller.signal }).catch(() => 'aborted');
        setTimeout(() => controller.abort('stop'), abortAfter);
        assert.equal(await pending, 'aborted');
        while (h.host.current.inFlight > 0 && performance.now() - started < 1500) await new Promise((r) => setTimeout(r, 5));
        assert.equal(h.host.current.inFlight, 0, `cancelled after ${abortAfter} ms: still in flight after ${Math.round(performance.now() - started)} ms`);
      }
      assert.deepEqual(outcomes, ['M1ND_ERR_CALL_CANCELLED', 'M1ND_ERR_CALL_CANCELLED']);
    } finally {
      await h.close();
    }
  });
});
