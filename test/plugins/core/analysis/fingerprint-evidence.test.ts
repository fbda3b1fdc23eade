import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

describe('fingerprint: a target with too little evidence says it was compared with nothing', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ watch: false });
  });
  after(() => h.close());

  it('notes that handleCreate (one feature: calls validate) was not compared, with probes or not', async () => {
    for (const extra of [{}, { probe_queries: ['clamp scale offset', 'handle validate', 'shape area', 'chain'] }]) {
      const { json } = await h.call('fingerprint', { agent_id: 'q', target_node: 'handleCreate', similarity_threshold: 0, ...extra });
      assert.deepEqual(json.matches, []);
      assert.match(json.note ?? '', /has 1 signature feature\(s\).*needs 2 to compare/, JSON.stringify(json));
    }
  });

  it('gives no note when the target was compared', async () => {
    const { json } = await h.call('fingerprint', { agent_id: 'q', target_node: 'normalizeOne' });
    assert.equal(json.matches.length, 1);
    assert.equal(json.note, undefined);
  });
});
