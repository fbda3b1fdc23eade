import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

/** Numbers the memory verbs report, checked against the fixture's files. */
describe('memory answers hold to the files', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  it('counts a file’s lines without the empty piece after its final newline (src/cart.ts has 13)', async () => {
    const past = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the last line closes Cart', evidence: ['src/cart.ts:14'] }] });
    assert.equal(past.result.isError, true);
    assert.match(past.json.error.message, /outside src\/cart\.ts \(13 lines\)/);
    const last = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the last line closes Cart', evidence: ['src/cart.ts:13'] }] });
    assert.equal(last.result.isError, undefined, JSON.stringify(last.json));

    const id = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'cart.ts holds the cart and its total', evidence: ['src/cart.ts'] }] })).json.stored[0].id;
    fs.appendFileSync(path.join(ws, 'src/cart.ts'), 'export const TAX = 0;\n');
    const claim = (await h.call('orient', { agent_id: 'a', task: 'the cart total' })).json.claims.find((c: { id: string }) => c.id === id);
    assert.deepEqual(claim.changed, [{ evidence: 'src/cart.ts', what: 'content_changed', lines_now: [1, 14] }]);
  });
});
