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

  it('delegate counts unanchored claims apart from fresh ones', async () => {
    await h.call('memorize', { agent_id: 'a', claims: [{ text: 'the cart total is summed in cents', evidence: ['function:src/cart.ts#total'] }, { text: 'the cart total never rounds prices' }] });
    const staleness = (await h.call('delegate', { agent_id: 'a', task: 'change how the cart total adds prices' })).json.headers.staleness;
    assert.equal(staleness.claims_fresh, 1);
    assert.equal(staleness.claims_unanchored, 1);
    assert.equal(staleness.claims_stale, 0);
  });

  it('debrief verifies a failure only by a command that failed', async () => {
    const d = (await h.call('delegate', { agent_id: 'a', task: 'change how the cart total adds prices', scope: { paths: ['src/cart.ts'] } })).json.delegation_id;
    const passed = (await h.call('debrief', { agent_id: 'a', delegation_id: d, outcome: 'failure', evidence: { cmd: 'npm test', exit_status: 0 }, touched_paths: ['src/cart.ts'] })).json;
    assert.equal(passed.verified, false);
    assert.equal(passed.status, 'outcome_unverified');
    assert.equal(passed.learned_nodes, 0);
    const failed = (await h.call('debrief', { agent_id: 'a', delegation_id: d, outcome: 'failure', evidence: { cmd: 'npm test', exit_status: 1 }, touched_paths: ['src/cart.ts'] })).json;
    assert.equal(failed.verified, true);
  });

  it('boot_memory bounds the whole entry: tags and source refs count with the value', async () => {
    const r = await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'k', value: 'v', tags: Array.from({ length: 20 }, () => 'y'.repeat(5000)) });
    assert.equal(r.result.isError, true);
    assert.equal(r.json.error.code, 'M1ND_ERR_MEMORY_CLAIM_TOO_LARGE');
    assert.match(r.json.error.message, /the entry \(value, tags, source_refs\) is \d+ tokens \(limit 500\)/);
    const ok = await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'k', value: 'v', tags: ['build'], source_refs: ['package.json'] });
    assert.equal(ok.result.isError, undefined, JSON.stringify(ok.json));
  });

  it('soul_check finds a dotted method name such as boolValue.Set in the graph before calling it a missing path', async () => {
    fs.writeFileSync(path.join(ws, 'go/flags.go'), 'package server\n\ntype boolValue struct{ v bool }\n\nfunc (b *boolValue) Set(s string) error {\n\tb.v = s == "true"\n\treturn nil\n}\n');
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), '# Notes\n\n`boolValue.Set` parses the flag; `nope.Gone` does not exist.\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const r = (await h.call('soul_check', { agent_id: 'a' })).json;
    assert.deepEqual(r.verified, ['3: boolValue.Set']);
    assert.deepEqual(r.false.map((c: { claim: string; detail: string }) => [c.claim, c.detail]), [['nope.Gone', 'no such file or directory in the workspace, nor a symbol of that name']]);
  });

  it('soul_check reads `make X` as a make target in code only, not in prose such as "make sure"', async () => {
    fs.writeFileSync(path.join(ws, 'Makefile'), 'build:\n\ttsc\n');
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), '# Notes\n\nPlease make sure the tests pass.\nRun `make build`, then:\n\n```sh\nmake release\n```\n');
    const r = (await h.call('soul_check', { agent_id: 'a' })).json;
    assert.deepEqual(r.verified, ['4: make build']);
    assert.deepEqual(r.false.map((c: { line: number; claim: string }) => [c.line, c.claim]), [[7, 'make release']]);
  });

  it('evidence by name pins a node only when the name is exact and unique', async () => {
    fs.writeFileSync(path.join(ws, 'src/tax.ts'), 'export function total(rate: number): number {\n  return rate * 100;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const folded = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'cart holds the items', evidence: ['cart'] }] });
    assert.equal(folded.result.isError, true, JSON.stringify(folded.json));
    assert.equal(folded.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
    assert.match(folded.json.error.message, /names no symbol with that exact name/);
    assert.match(folded.json.error.hint, /class:src\/cart\.ts#Cart/);
    const twice = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total sums the prices', evidence: [{ node: 'total' }] }] });
    assert.equal(twice.result.isError, true, JSON.stringify(twice.json));
    assert.match(twice.json.error.message, /names 2 symbols: cite one by id/);
    assert.deepEqual(twice.json.error.detail.candidates.sort(), ['function:src/cart.ts#total', 'function:src/tax.ts#total']);
    const pinned = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'total sums the prices', evidence: ['function:src/cart.ts#total'] }, { text: 'Cart.checkout returns the total', evidence: ['Cart.checkout'] }] })).json.stored;
    assert.deepEqual(pinned.map((c: { evidence: string[] }) => c.evidence[0]), ['function:src/cart.ts#total', 'method:src/cart.ts#Cart.checkout']);
  });

  it('promote refuses a superseded claim and names the one that replaced it', async () => {
    const TOTAL = 'function:src/cart.ts#total';
    const old = (await h.call('memorize', { agent_id: 'a', node_label: TOTAL, claims: [{ text: 'total starts at zero', evidence: [TOTAL] }] })).json.stored[0].id;
    const now = (await h.call('memorize', { agent_id: 'a', node_label: TOTAL, mode: 'replace', claims: [{ text: 'total starts the sum at 0 and adds with add()', evidence: [TOTAL] }] })).json.stored[0].id;
    const r = await h.call('promote', { agent_id: 'b', brain: 'team', claim: old, reason: 'shared' });
    assert.equal(r.result.isError, true, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'M1ND_ERR_STATE_STALE');
    assert.match(r.json.error.message, new RegExp(`superseded by "${now}"`));
    assert.equal((await h.call('promote', { agent_id: 'b', brain: 'team', claim: now, reason: 'shared' })).result.isError, undefined);
  });

  it('a cited line range stays fresh when lines above it come or go, and goes stale when its own text changes', async () => {
    const id = (await h.call('memorize', { agent_id: 'a', claims: [{ text: 'mul multiplies by repeated add', evidence: ['src/math.ts:6-10'] }] })).json.stored[0].id;
    const file = path.join(ws, 'src/math.ts');
    fs.writeFileSync(file, '// maths helpers\n// (integers only)\n' + fs.readFileSync(file, 'utf8'));
    const claimOf = async () => (await h.call('orient', { agent_id: 'a', task: 'mul multiplies numbers' })).json.claims.find((c: { id: string }) => c.id === id);
    const moved = await claimOf();
    assert.equal(moved.freshness, 'fresh', JSON.stringify(moved));
    assert.deepEqual(moved.moved, [{ evidence: 'src/math.ts:6-10', lines_was: [6, 10], lines_now: [8, 12] }]);
    // Re-verified, the anchor follows the text to its lines now.
    assert.deepEqual((await h.call('memorize', { agent_id: 'a', reverify: [id] })).json.reverified, [id]);
    const again = await claimOf();
    assert.deepEqual([again.freshness, again.evidence, again.moved], ['fresh', ['src/math.ts:8-12'], undefined]);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('let out = 0;', 'let out = 1;'));
    const changed = await claimOf();
    assert.equal(changed.freshness, 'stale');
    assert.deepEqual(changed.changed, [{ evidence: 'src/math.ts:8-12', what: 'content_changed', lines_was: [8, 12], lines_now: [8, 12] }]);
  });

  it('evidence naming a missing file or a reversed range is refused as such, with the next move', async () => {
    const missing = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'carts round totals', evidence: ['src/carts.ts:3'] }] });
    assert.equal(missing.json.error.code, 'M1ND_ERR_PATH_NOT_FOUND');
    assert.equal(missing.json.error.message, 'evidence "src/carts.ts:3" names no file of the workspace (nor a graph node)');
    assert.match(missing.json.error.hint, /"src\/cart\.ts"/);
    const reversed = await h.call('memorize', { agent_id: 'a', claims: [{ text: 'carts round totals', evidence: [{ path: 'src/cart.ts', lines: [9, 3] }] }] });
    assert.equal(reversed.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(reversed.json.error.message, /lines 9-3 end before they start/);
    assert.match(reversed.json.error.hint, /src\/cart\.ts:3-9/);
  });

  it("debrief counts a diff's deleted and renamed-away files as touched, not a removed line that starts with --", async () => {
    const d = (await h.call('delegate', { agent_id: 'a', task: 'change how the cart total adds prices', scope: { paths: ['src/cart.ts'] } })).json.delegation_id;
    const diff = [
      'diff --git a/src/math.ts b/src/math.ts',
      'deleted file mode 100644',
      '--- a/src/math.ts',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '--- a comment removed from an SQL file',
      '-export function add() {}',
      'diff --git a/src/cart.ts b/src/basket.ts',
      '--- a/src/cart.ts',
      '+++ b/src/basket.ts',
      '',
    ].join('\n');
    const r = (await h.call('debrief', { agent_id: 'a', delegation_id: d, outcome: 'partial', diff })).json;
    assert.deepEqual(r.score.touched, 3);
    assert.deepEqual(r.out_of_scope, ['src/basket.ts', 'src/math.ts']);
    assert.equal(r.score.in_scope, 1);
  });

  it('north counts the top node covered only by a claim about it, not by one on another function of its file', async () => {
    await h.call('memorize', { agent_id: 'a', claims: [{ text: 'add returns the sum of two numbers', evidence: ['function:src/math.ts#add'] }] });
    const r = (await h.call('north', { agent_id: 'b', task: 'mul multiplies' })).json;
    assert.equal(r.focus[0].id, 'function:src/math.ts#mul');
    assert.equal(r.sufficiency, 'partial');
    assert.ok(r.unknowns.includes('nothing remembered about function:src/math.ts#mul'), JSON.stringify(r.unknowns));
    await h.call('memorize', { agent_id: 'a', claims: [{ text: 'mul multiplies by repeated add', evidence: ['src/math.ts:6-10'] }] });
    assert.equal((await h.call('north', { agent_id: 'b', task: 'mul multiplies' })).json.sufficiency, 'sufficient');
  });

  it('boot_memory get names the tier a key is set in when asked in the other one', async () => {
    await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'test_cmd', value: 'npm test' });
    const r = await h.call('boot_memory', { agent_id: 'b', action: 'get', key: 'test_cmd', tier: 'medulla' });
    assert.equal(r.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.equal(r.json.error.message, 'no boot memory key "test_cmd" in tier medulla');
    assert.equal(r.json.error.hint, 'it is set in the project scope: boot_memory({"action":"get","key":"test_cmd","tier":"project"})');
  });
});
