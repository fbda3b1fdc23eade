import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeBackends } from '../../helpers/backends.ts';

const TOTAL = 'function:src/cart.ts#total';
const TASK = 'change how the cart total adds prices';

function edit(ws: string, file: string, from: string, to: string): void {
  const p = path.join(ws, file);
  const text = fs.readFileSync(p, 'utf8');
  assert.ok(text.includes(from), `${file} contains ${from}`);
  fs.writeFileSync(p, text.replace(from, to));
}

describeBackends('claims shared between two agents, with computed freshness', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  const claimsOf = async (agent: string) => (await h.call('orient', { agent_id: agent, task: TASK })).json.claims as any[];

  it("A's claim on a function reaches B's orient; an edit makes it stale for both with what changed; A re-verifies", async () => {
    const text = 'total() starts the sum at 0 and delegates each addition to add()';
    const stored = (await h.call('memorize', { agent_id: 'a', claims: [{ text, kind: 'fact', evidence: [TOTAL] }] })).json.stored[0];

    const b = await h.call('orient', { agent_id: 'b', task: TASK });
    assert.equal(b.result.isError, undefined, JSON.stringify(b.json));
    assert.ok(b.json.nodes.some((n: { id: string }) => n.id === TOTAL), 'total is among the activated nodes');
    const seen = b.json.claims.find((c: { id: string }) => c.id === stored.id);
    assert.equal(seen.text, text);
    assert.equal(seen.author, 'a');
    assert.equal(seen.freshness, 'fresh');
    assert.ok(b.json.budget.used_tokens <= 1500);

    edit(ws, 'src/cart.ts', 'add(sum, p), 0)', 'add(sum, p), 1)');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    for (const agent of ['a', 'b']) {
      const c = (await claimsOf(agent)).find((x) => x.id === stored.id);
      assert.equal(c.freshness, 'stale', agent);
      assert.deepEqual(c.changed, [{ evidence: TOTAL, what: 'content_changed', lines_was: [4, 6], lines_now: [4, 6] }], agent);
    }
    const next = (await h.call('orient', { agent_id: 'b', task: TASK })).json.next;
    assert.equal(next.verb, 'view');
    assert.deepEqual(next.arguments, { agent_id: 'b', file_path: 'src/cart.ts', offset: 4, limit: 3 });

    const re = (await h.call('memorize', { agent_id: 'a', reverify: [stored.id] })).json;
    assert.deepEqual(re.reverified, [stored.id]);
    const after = (await claimsOf('b')).find((x) => x.id === stored.id);
    assert.equal(after.freshness, 'fresh');
    assert.equal(after.changed, undefined);
  });

  it('ranks fresh claims before stale ones and reports a deleted function as node_gone', async () => {
    const gone = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'checkout returns the cart total', evidence: ['method:src/cart.ts#Cart.checkout'] }] })).json;
    if (gone.result?.isError || !gone.stored) throw new Error(JSON.stringify(gone));
    const keep = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the cart total uses add from math', evidence: ['src/math.ts:2-4'] }] })).json.stored[0];
    edit(ws, 'src/cart.ts', '  checkout(): number {\n    return total(this.items);\n  }\n', '');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const claims = await claimsOf('b');
    const ids = claims.map((c) => c.id);
    assert.ok(ids.indexOf(keep.id) < ids.indexOf(gone.stored[0].id), 'fresh first');
    const stale = claims.find((c) => c.id === gone.stored[0].id);
    assert.equal(stale.freshness, 'stale');
    assert.equal(stale.changed[0].what, 'node_gone');
  });

  it('sees a claim another server process stored after this one read its claims', async () => {
    await h.call('memorize', { agent_id: 'a', claims: [{ text: 'mul repeats add b times', evidence: ['function:src/math.ts#mul'] }] });
    assert.equal((await claimsOf('b')).length > 0, true, 'this server has read (and cached) the claims');
    const other = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const id = (await other.call('memorize', { agent_id: 'c', claims: [{ text: 'the cart total adds every price to the running sum', evidence: [TOTAL] }] })).json.stored[0].id;
      assert.ok((await claimsOf('b')).some((c) => c.id === id));
    } finally {
      await other.close();
    }
  });

  it('stores a near-identical correction that supersedes the claim it corrects, and still reports a plain repeat as a duplicate', async () => {
    const old = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total() adds each price to a sum that starts at 0', evidence: [TOTAL] }] })).json.stored[0];
    const repeat = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total() adds each price to a sum that starts at 0', evidence: [TOTAL] }] })).json;
    assert.deepEqual(repeat.stored, []);
    assert.equal(repeat.duplicates[0].existing.id ?? repeat.duplicates[0].existing, old.id, JSON.stringify(repeat.duplicates));
    const fixed = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total() adds each price to a sum that starts at 1', evidence: [TOTAL], supersedes: old.id }] })).json;
    assert.equal(fixed.stored.length, 1, JSON.stringify(fixed));
    assert.equal(fixed.stored[0].supersedes, old.id);
    const seen = await claimsOf('b');
    assert.ok(seen.some((c) => c.id === fixed.stored[0].id) && !seen.some((c) => c.id === old.id), JSON.stringify(seen.map((c) => c.id)));
  });

  it('shows a private claim only to its author', async () => {
    const mine = (await h.call('memorize', { agent_id: 'a', scope: 'agent', claims: [{ text: 'my private hunch: the cart total should round prices', evidence: [TOTAL] }] })).json.stored[0];
    assert.equal(mine.scope, 'agent');
    assert.ok((await claimsOf('a')).some((c) => c.id === mine.id));
    assert.ok(!(await claimsOf('b')).some((c) => c.id === mine.id));
    assert.ok(!fs.existsSync(path.join(ws, '.m1nd/memory', `${mine.id}.md`)), 'private claims are not mirrored');
    const sup = await h.call('memorize', { agent_id: 'b', claims: [{ text: 'a replacement', evidence: [TOTAL], supersedes: mine.id }] });
    assert.equal(sup.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND', 'another agent cannot even address it');
  });
});
