import assert from 'node:assert/strict';
import { countTokens } from '../../core/index.ts';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';

describe('the _m1nd envelope', function () {
  it('is added to object results without renaming their fields', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      const t0 = performance.now();
      const { json } = await h.call('rec_read', { agent_id: 'a', note: 'x' });
      const roundTrip = performance.now() - t0;
      assert.equal(json.did, 'rec_read');
      assert.equal(json.note, 'x');
      assert.equal(json._m1nd.verb, 'rec_read');
      assert.equal(json._m1nd.tier, 'essential');
      assert.equal(json._m1nd.read_only, false);
      assert.ok(json._m1nd.elapsed_ms >= 0 && json._m1nd.elapsed_ms <= roundTrip, `the server's time (${json._m1nd.elapsed_ms} ms) fits in the client's round trip (${roundTrip} ms)`);
      const { _m1nd, ...result } = json;
      const text = JSON.stringify(result);
      assert.equal(_m1nd.result_bytes, Buffer.byteLength(text), 'the UTF-8 size of the result as sent, envelope excluded');
      assert.equal(_m1nd.result_tokens, undefined, 'a result far under the limit is not tokenised');
      assert.ok(countTokens(text) <= _m1nd.result_bytes, 'its bytes bound its tokens');
      const health = await h.call('health', { agent_id: 'a' });
      assert.equal(health.json._m1nd.next_suggested_verb, 'session_handshake');
    } finally {
      await h.close();
    }
  });

  it('is left out when M1ND_RESPONSE_ENVELOPE=0 or false', async () => {
    for (const value of ['0', 'false', 'FALSE']) {
      const h = await connect({ env: { M1ND_RESPONSE_ENVELOPE: value }, plugins: [recorderPlugin().plugin] });
      try {
        const { json } = await h.call('rec_read', { agent_id: 'a' });
        assert.equal(json._m1nd, undefined, value);
        assert.equal(json.did, 'rec_read');
      } finally {
        await h.close();
      }
    }
  });
});
