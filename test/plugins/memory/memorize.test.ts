import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeBackends } from '../../helpers/backends.ts';

const TOTAL = 'function:src/cart.ts#total';

describeBackends('memorize on a fixture repository', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('stores a claim anchored to a node, a line range and a file, and mirrors it as Markdown with front matter', async () => {
    const text = 'total() folds prices with add(), so a NaN price poisons the whole cart --- and that is intended';
    const r = await h.call('memorize', { agent_id: 'a', claims: [{ text, kind: 'gotcha', confidence: 'high', evidence: [TOTAL, 'src/math.ts:2-4', 'docs/guide.md'] }] });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const [stored] = r.json.stored;
    assert.match(stored.id, /^c_[0-9a-f]{10}$/);
    assert.deepEqual(stored.evidence, [TOTAL, 'src/math.ts:2-4', 'docs/guide.md']);
    assert.deepEqual(r.json.markdown, [`.m1nd/memory/${stored.id}.md`]);
    const md = fs.readFileSync(path.join(ws, '.m1nd/memory', `${stored.id}.md`), 'utf8');
    assert.ok(md.startsWith('---\n'));
    assert.match(md, /\nkind: "gotcha"\n/);
    assert.match(md, /\nauthor: "a"\n/);
    assert.match(md, /\nconfidence: 0\.9\n/);
    assert.ok(md.includes(`\n# Claim ${stored.id}\n\n${text}\n\n## Evidence\n`), 'the text is the body, verbatim');
    assert.match(md, /\n- `src\/cart\.ts` `total` lines 4-6 \(hash [0-9a-f]{16}\)\n/);
    assert.deepEqual(fs.readdirSync(path.join(ws, '.m1nd/memory')).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
  });

  it('reports a near-identical claim as a duplicate of the stored one instead of storing it', async () => {
    const first = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'Serve in go/server.go only listens; it never closes the port', evidence: ['go/server.go'] }] })).json;
    const again = (await h.call('memorize', { agent_id: 'b', claims: [{ text: 'serve in go/server.go only listens, it never closes the port.', evidence: ['go/server.go'] }] })).json;
    assert.deepEqual(again.stored, []);
    assert.equal(again.duplicates[0].existing.id, first.stored[0].id);
    assert.equal(again.duplicates[0].existing.author, 'a');
    assert.equal(again.duplicates[0].existing.similarity, 1);
  });

  it('refuses evidence outside the workspace, missing files, lines past the end and unknown nodes, storing nothing', async () => {
    const cases: [unknown, string][] = [
      ['../outside.ts', 'M1ND_ERR_PATH_ESCAPE'],
      ['/etc/passwd', 'M1ND_ERR_PATH_ESCAPE'],
      ['src/nope.ts', 'M1ND_ERR_PATH_NOT_FOUND'],
      ['src/math.ts:40-50', 'M1ND_ERR_PATH_NOT_FOUND'],
      [{ node: 'function:src/math.ts#nothing' }, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND'],
    ];
    for (const [evidence, code] of cases) {
      const r = await h.call('memorize', { agent_id: 'a', claims: [{ text: `about ${JSON.stringify(evidence)}`, evidence: [evidence] }] });
      assert.equal(r.result.isError, true, JSON.stringify(evidence));
      assert.equal(r.json.error.code, code, JSON.stringify(evidence));
    }
    const ok = (await h.call('memorize', { agent_id: 'z', claims: [{ text: 'about ../outside.ts', evidence: ['src/math.ts'] }] })).json;
    assert.equal(ok.stored.length, 1, 'none of the refused claims was stored (no duplicate)');
  });

  it('refuses a claim over the size limit and an agent over its quota with coded errors', async () => {
    const big = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'x '.repeat(1500), evidence: ['src/math.ts'] }] });
    assert.equal(big.json.error.code, 'M1ND_ERR_MEMORY_CLAIM_TOO_LARGE');
    const ws2 = writeFixtureRepo(tempDir());
    const small = await connect({ workspaceRoot: ws2, config: { options: { memory: { maxClaimsPerAgent: 2 } } } as never });
    try {
      await small.call('ingest', { agent_id: 'q', path: ws2 });
      const two = await small.call('memorize', { agent_id: 'q', claims: [{ text: 'one fact', evidence: ['src/math.ts'] }, { text: 'another different thing', evidence: ['src/cart.ts'] }] });
      assert.equal(two.json.stored.length, 2);
      const third = await small.call('memorize', { agent_id: 'q', claims: [{ text: 'a third unrelated note', evidence: ['py/retry.py'] }] });
      assert.equal(third.json.error.code, 'M1ND_ERR_MEMORY_QUOTA');
      assert.equal(third.json.error.data?.limit ?? 2, 2);
    } finally {
      await small.close();
    }
  });
});

describe('memorize with the reference parameters', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('keeps state and namespace with each claim, and mode replace retires the author\'s earlier claims on the same node_label', async () => {
    const first = (await h.call('memorize', { agent_id: 'a', node_label: TOTAL, claims: [{ text: 'total() sums with a loop', evidence: [TOTAL] }] })).json.stored[0];
    const other = (await h.call('memorize', { agent_id: 'b', node_label: TOTAL, claims: [{ text: 'total() is called by checkout', evidence: [TOTAL] }] })).json.stored[0];
    const second = (await h.call('memorize', { agent_id: 'a', node_label: TOTAL, mode: 'replace', state: 'verified', namespace: 'billing', claims: [{ text: 'total() folds prices with add()', evidence: [TOTAL] }] })).json;
    assert.deepEqual(second.replaced, [first.id], "only a's own claim on the topic is retired");
    const claims = (await h.call('orient', { agent_id: 'a', task: 'how the cart total adds prices' })).json.claims as any[];
    const now = claims.find((c) => c.id === second.stored[0].id);
    assert.equal(now.state, 'verified');
    assert.equal(now.namespace, 'billing');
    assert.ok(claims.some((c) => c.id === other.id), "b's claim stays");
    const refused = await h.call('memorize', { agent_id: 'a', mode: 'replace', claims: [{ text: 'x y z', evidence: ['src/math.ts'] }] });
    assert.match(refused.json.error.message, /give node_label/);
  });

  it('writes the stored claims to output_path as one Markdown document and ingests it, inside the workspace only', async () => {
    const r = (await h.call('memorize', { agent_id: 'a', title: 'Cart notes', output_path: 'docs/cart-notes.md', claims: [{ text: 'mul() repeats add() b times', kind: 'gotcha', evidence: ['function:src/math.ts#mul'] }] })).json;
    assert.equal(r.output_path, 'docs/cart-notes.md');
    assert.equal(r.ingested, true);
    const doc = fs.readFileSync(path.join(ws, 'docs/cart-notes.md'), 'utf8');
    assert.ok(doc.startsWith('# Cart notes\n'));
    assert.match(doc, /## gotcha: c_[0-9a-f]{10}\n\nmul\(\) repeats add\(\) b times\n\n- `src\/math\.ts` `mul`/);
    const found = (await h.call('impact', { agent_id: 'a', node_id: 'function:src/math.ts#mul', max_depth: 1, detail: 'full' })).json;
    assert.ok(JSON.stringify(found.direct).includes('docs/cart-notes.md'), 'the ingested document links to mul');
    const outside = await h.call('memorize', { agent_id: 'a', output_path: '../escape.md', claims: [{ text: 'outside the workspace', evidence: ['src/math.ts'] }] });
    assert.equal(outside.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
  });
});
