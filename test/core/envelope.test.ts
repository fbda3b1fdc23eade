import assert from 'node:assert/strict';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';

describe('the _m1nd envelope', function () {
  it('is added to object results without renaming their fields', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      const { json } = await h.call('rec_read', { agent_id: 'a', note: 'x' });
      assert.equal(json.did, 'rec_read');
      assert.equal(json.note, 'x');
      assert.equal(json._m1nd.verb, 'rec_read');
      assert.equal(json._m1nd.tier, 'essential');
      assert.equal(json._m1nd.read_only, false);
      assert.equal(typeof json._m1nd.elapsed_ms, 'number');
      assert.equal(typeof json._m1nd.result_tokens, 'number');
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
