import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const read = (ws: string, f: string) => fs.readFileSync(path.join(ws, f), 'utf8');

describe('apply writes one file and keeps the graph in step', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  it('writes, re-ingests in the same call, and reports the changed symbol, its dependents and the tests to run', async () => {
    const next = read(ws, 'src/math.ts').replace('return a + b;', 'return b + a;');
    const { result, json } = await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: next });
    assert.equal(result.isError, undefined, JSON.stringify(json));
    assert.equal(read(ws, 'src/math.ts'), next);
    assert.deepEqual(json.graph.symbols.changed.map((s: { id: string }) => s.id), ['function:src/math.ts#add']);
    assert.deepEqual(json.graph.symbols.added, []);
    assert.deepEqual(json.graph.symbols.removed, []);
    const deps = json.graph.dependents.map((d: { id: string; of: string }) => `${d.id}<-${d.of}`);
    assert.ok(deps.includes('function:src/cart.ts#total<-function:src/math.ts#add'), deps.join(', '));
    assert.ok(deps.includes('file:src/cart.ts<-file:src/math.ts'), 'the file importing math.ts');
    assert.deepEqual(json.written[0].created, false);
    assert.match(json.written[0].new_hash, /^[0-9a-f]{40}$/);
    // The agent's next read sees the new graph at once.
    const view = (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts', symbol: 'add' })).json;
    assert.match(view.content, /return b \+ a;/);
    assert.equal(view.content_hash, json.written[0].new_hash);
  });

  it('reports a removed function and a new one, with the tests covering the file', async () => {
    const next = read(ws, 'src/cart.ts').replace(/export function total[\s\S]*?\n}\n/, 'export function sum(prices: number[]): number {\n  return prices.length;\n}\n');
    const { json } = await h.call('apply', { agent_id: 'a', file_path: 'src/cart.ts', new_content: next });
    assert.deepEqual(json.graph.symbols.removed.map((s: { id: string }) => s.id), ['function:src/cart.ts#total']);
    assert.deepEqual(json.graph.symbols.added.map((s: { id: string }) => s.id), ['function:src/cart.ts#sum']);
    assert.ok(json.graph.dependents.some((d: { id: string; of: string }) => d.of === 'function:src/cart.ts#total' && d.id === 'method:src/cart.ts#Cart.checkout') === false, 'a caller in the same written file is no outside dependent');
    assert.deepEqual(json.graph.tests_to_run, ['tests/cart.test.ts']);
    assert.ok(json.graph.edges.removed > 0);
  });

  it('refuses a stale expected_hash with a coded error naming the refresh call, leaving the file as it was', async () => {
    const ctx = (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts' })).json;
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '// a colleague was here\n');
    const before = read(ws, 'src/math.ts');
    const { result, json } = await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: 'export {};\n', expected_hash: ctx.content_hash });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_EDIT_STALE_BASE');
    assert.match(json.error.hint, /surgical_context_v2\(\{"agent_id":"a","file_path":"src\/math.ts"\}\)/);
    assert.equal(read(ws, 'src/math.ts'), before);
    const fresh = (await h.call('surgical_context', { agent_id: 'a', file_path: 'src/math.ts' })).json;
    const ok = await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: 'export {};\n', expected_hash: fresh.content_hash });
    assert.equal(ok.result.isError, undefined);
    assert.equal(read(ws, 'src/math.ts'), 'export {};\n');
  });

  it('keeps the file mode, creates parent folders for a new file, and refuses paths leaving the workspace', async () => {
    const script = path.join(ws, 'go/server.go');
    fs.chmodSync(script, 0o751);
    await h.call('apply', { agent_id: 'a', file_path: 'go/server.go', new_content: read(ws, 'go/server.go') + '\n' });
    assert.equal(fs.statSync(script).mode & 0o777, 0o751);
    const created = await h.call('apply', { agent_id: 'a', file_path: 'src/deep/new/thing.ts', new_content: 'export function x(): number {\n  return 1;\n}\n', expected_hash: 'absent' });
    assert.equal(created.json.written[0].created, true);
    assert.equal(read(ws, 'src/deep/new/thing.ts'), 'export function x(): number {\n  return 1;\n}\n');
    assert.deepEqual(created.json.graph.symbols.added.map((s: { id: string }) => s.id), ['function:src/deep/new/thing.ts#x'], 'the new file is in the graph');
    for (const bad of ['../outside.ts', '/etc/passwd', 'src/\0.ts']) {
      const r = await h.call('apply', { agent_id: 'a', file_path: bad, new_content: 'x' });
      assert.equal(r.result.isError, true, bad);
      assert.equal(r.json.error.code, 'M1ND_ERR_PATH_ESCAPE', bad);
    }
    assert.equal(fs.existsSync(path.join(ws, '..', 'outside.ts')), false);
    assert.deepEqual(fs.readdirSync(path.join(ws, 'src')).filter((f) => f.includes('m1nd-tmp')), [], 'no temp file left behind');
  });

  it('writes a whole file far longer than free-text arguments may be (a 200 KB module), through apply and apply_batch', async () => {
    const big = Array.from({ length: 5000 }, (_, i) => `export const value${i} = ${i}; // padding to make a large module\n`).join('');
    assert.ok(big.length > 200_000);
    const one = await h.call('apply', { agent_id: 'a', file_path: 'src/big.ts', new_content: big, expected_hash: 'absent' });
    assert.notEqual(one.result.isError, true, JSON.stringify(one.json).slice(0, 300));
    assert.equal(read(ws, 'src/big.ts'), big);
    const batch = await h.call('apply_batch', { agent_id: 'a', edits: [{ file_path: 'src/big2.ts', new_content: big }] });
    assert.notEqual(batch.result.isError, true, JSON.stringify(batch.json).slice(0, 300));
    assert.equal(read(ws, 'src/big2.ts'), big);
  });

  it("counts the writer's own write as seen: its am_i_stale stays quiet, another agent who read the file is told", async () => {
    await h.call('view', { agent_id: 'a', file_path: 'src/math.ts' });
    await h.call('view', { agent_id: 'b', file_path: 'src/math.ts' });
    await new Promise((r) => setTimeout(r, 20));
    const w = await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: read(ws, 'src/math.ts') + '\nexport const Z = 1;\n' });
    assert.notEqual(w.result.isError, true, JSON.stringify(w.json).slice(0, 300));
    const mine = (await h.call('am_i_stale', { agent_id: 'a' })).json;
    const theirs = (await h.call('am_i_stale', { agent_id: 'b' })).json;
    const flagged = (j: { stale?: { path: string; status: string }[] }) => (j.stale ?? []).filter((f) => f.path === 'src/math.ts').map((f) => f.status);
    assert.deepEqual(flagged(mine), [], JSON.stringify(mine).slice(0, 400));
    assert.deepEqual(flagged(theirs), ['changed_since_seen'], JSON.stringify(theirs).slice(0, 400));
  });

  it("reports the lock_ region of another agent that the write touched, not one it left alone", async () => {
    const lock = (await h.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: ['function:src/math.ts#add'] })).json;
    const untouched = read(ws, 'src/math.ts').replace('let out = 0;', 'let out = 0; // acc');
    const far = (await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: untouched })).json;
    assert.deepEqual(far.lock_overlaps, []);
    const touching = read(ws, 'src/math.ts').replace('return a + b;', 'return a + b + 0;');
    const near = (await h.call('apply', { agent_id: 'a', file_path: 'src/math.ts', new_content: touching })).json;
    assert.deepEqual(near.lock_overlaps, [{ lock_id: lock.lock_id, owner: 'b', file_path: 'src/math.ts', nodes: ['function:src/math.ts#add'] }]);
    const own = (await h.call('apply', { agent_id: 'b', file_path: 'src/math.ts', new_content: touching.replace('+ 0', '+ 1') })).json;
    assert.deepEqual(own.lock_overlaps, [], "an agent's own lock is no overlap");
  });
});
