import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, memoryLogger, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { parseClaimMarkdown } from '../../../plugins/memory/mirror-edits.ts';

const TOTAL = 'function:src/cart.ts#total';
const TASK = 'change how the cart total adds prices';

const until = async <T>(probe: () => Promise<T | undefined>, ms = 8000): Promise<T | undefined> => {
  for (let t = 0; t < ms; t += 100) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
};

describe('hand edits of the memory Markdown mirror', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  const log: string[] = [];
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, log: memoryLogger(log) });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it("a person's edit of a claim file updates the claim every agent reads (text, kind, confidence), keeping its evidence", async () => {
    const stored = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total() adds prices with add()', kind: 'fact', evidence: [TOTAL] }] })).json.stored[0];
    const file = path.join(ws, '.m1nd/memory', `${stored.id}.md`);
    const md = fs.readFileSync(file, 'utf8');
    const edited = md
      .replace('kind: "fact"', 'kind: "gotcha"')
      .replace(/confidence: [0-9.]+/, 'confidence: 0.95')
      .replace('total() adds prices with add()', 'total() adds prices with add(), and a NaN price poisons the sum');
    fs.writeFileSync(file, edited);
    const seen = await until(async () => {
      const claims = (await h.call('orient', { agent_id: 'b', task: TASK })).json.claims as any[];
      const c = claims.find((x) => x.id === stored.id);
      return c?.text.includes('NaN') ? c : undefined;
    });
    assert.ok(seen, 'the edit reached the store');
    assert.equal(seen.kind, 'gotcha');
    assert.equal(seen.confidence, 0.95);
    assert.deepEqual(seen.evidence, [TOTAL]);
    assert.match(seen.edited_by_hand, /^\d{4}-\d\d-\d\dT/);
    assert.equal(fs.readFileSync(file, 'utf8'), edited, "the person's file is not rewritten");
  });

  it('leaves the stored claim as it was when the edit is invalid (an unknown kind)', async () => {
    const stored = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'Serve in go/server.go only listens', evidence: ['go/server.go'] }] })).json.stored[0];
    const file = path.join(ws, '.m1nd/memory', `${stored.id}.md`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('kind: "fact"', 'kind: "rumour"').replace('Serve in go/server.go only listens', 'changed text'));
    const refused = await until(async () => log.find((l) => l.includes(`hand edit of ${stored.id}.md not applied`)));
    assert.match(String(refused), /kind "rumour" is not one of fact, decision, convention, gotcha, todo; the stored claim is unchanged/);
    const claims = (await h.call('orient', { agent_id: 'a', task: 'go server listens' })).json.claims as any[];
    const c = claims.find((x) => x.id === stored.id);
    assert.ok(c, 'the claim is still there');
    assert.equal(c.text, 'Serve in go/server.go only listens');
    assert.equal(c.edited_by_hand, undefined);
  });

  it('parses plain (unquoted) front matter values and a body without the evidence section', () => {
    const parsed = parseClaimMarkdown('---\nid: c_0123456789\nkind: decision\nconfidence: 0.7\n---\n\n# Why\n\nWe keep prices in cents.\n');
    assert.deepEqual(parsed, { text: 'We keep prices in cents.', kind: 'decision', confidence: 0.7, title: undefined, topic: undefined });
    assert.deepEqual(parseClaimMarkdown('no front matter'), { error: 'no front matter (the file must start with ---)' });
  });
});
