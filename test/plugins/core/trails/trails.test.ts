import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { describeBackends } from '../../../helpers/backends.ts';

const TOTAL = 'function:src/cart.ts#total';
const ADD = 'function:src/math.ts#add';
const MUL = 'function:src/math.ts#mul';
const MATH = 'file:src/math.ts';

describeBackends('trail verbs on a fixture repository', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  it("lets another agent resume a trail, whose boosts measurably re-rank that agent's routes", async () => {
    const rankOf = (json: { routes: { target: { id: string }; score: number; why: string }[] }, id: string) => {
      const i = json.routes.findIndex((r) => r.target.id === id);
      return { rank: i + 1, route: json.routes[i] };
    };
    const open = async (agent: string) => (await h.call('perspective_start', { agent_id: agent, query: 'cart', anchor_node: 'file:src/cart.ts', lens: { max_routes: 40 } })).json;
    const before = await open('b');
    const was = rankOf(before, MATH);
    assert.ok(was.rank > 1, `math.ts is not first before the resume (rank ${was.rank})`);

    const saved = (await h.call('trail_save', { agent_id: 'a', label: 'Cart arithmetic', visited_nodes: [TOTAL], activation_boosts: { [MATH]: 1 }, tags: ['cart'] })).json;
    const resumed = (await h.call('trail_resume', { agent_id: 'b', trail_id: saved.trail_id })).json;
    assert.equal(resumed.saved_by, 'a');
    assert.equal(resumed.resumed_by, 'b');
    assert.equal(resumed.boosts.source, `trail:${saved.trail_id}`);
    assert.equal(resumed.boosts.applied, 2, 'the explicit boost and the visited node');

    const after = (await h.call('perspective_routes', { agent_id: 'b', perspective_id: before.perspective_id, page_size: 40 })).json;
    assert.equal(after.refreshed, true, 'new boosts make a new route set');
    const now = rankOf(after, MATH);
    assert.equal(now.rank, 1);
    assert.equal(Math.round((now.route.score - was.route.score) * 1000) / 1000, 0.5, 'boost 1 × weight 0.5');
    assert.match(now.route.why, new RegExp(`boost \\+1 \\(trail:${saved.trail_id}\\)`));
    // The boosts are the resuming agent's: another agent's ranking is untouched.
    const c = await open('c');
    assert.equal(rankOf(c, MATH).rank, was.rank);
    // A new perspective's seed ranking feels them too: the boosted node wins the start.
    const seeded = (await h.call('perspective_start', { agent_id: 'b', query: 'total math' })).json;
    assert.equal(seeded.focus.id, MATH);
  });

  it('re-ranks the resuming agent\'s next seek and activate, and nobody else\'s', async () => {
    const ids = async (verb: string, agent: string) => {
      const json = (await h.call(verb, { agent_id: agent, query: 'cart total', top_k: 10 })).json;
      return (json.results as { id: string; node_id?: string }[]).map((r) => r.id ?? r.node_id);
    };
    const seekBefore = await ids('seek', 'b');
    const actBefore = await ids('activate', 'b');
    const target = 'file:src/cart.ts';
    assert.ok(seekBefore.indexOf(target) >= 2, `${target} starts low: ${seekBefore.join(' ')}`);
    const saved = (await h.call('trail_save', { agent_id: 'a', label: 'cart', summary: 'where cart totals come from', activation_boosts: { [target]: 1 } })).json;
    await h.call('trail_resume', { agent_id: 'b', trail_id: saved.trail_id });
    const seekAfter = await ids('seek', 'b');
    assert.ok(seekAfter.indexOf(target) < seekBefore.indexOf(target), `seek: ${target} rose from ${seekBefore.indexOf(target)} to ${seekAfter.indexOf(target)}`);
    const hit = (await h.call('seek', { agent_id: 'b', query: 'cart total', top_k: 10 })).json.results.find((r: { id: string }) => r.id === target);
    assert.equal(hit.why.boost, 1);
    const actAfter = await ids('activate', 'b');
    const before = actBefore.indexOf(target);
    const after = actAfter.indexOf(target);
    assert.ok(after !== -1 && (before === -1 || after < before), `activate: ${target} rose from ${before} to ${after}`);
    assert.deepEqual(await ids('seek', 'c'), seekBefore, 'another agent sees the unboosted ranking');
  });

  it('flags nodes changed since the save as stale and marks hypotheses resting on them for a re-check', async () => {
    const saved = (await h.call('trail_save', {
      agent_id: 'a',
      label: 'How totals are computed',
      visited_nodes: [TOTAL, { node_id: 'add', relevance: 0.8, note: 'the arithmetic' }, MUL, 'no-such-symbol'],
      hypotheses: [{ statement: 'total delegates to add', confidence: 0.9, supporting_nodes: [TOTAL, ADD] }, 'mul is unused'],
      conclusions: [{ statement: 'cart totals are exact', supporting_nodes: [TOTAL] }],
      open_questions: ['does checkout round?'],
      summary: 'Traced the cart total into math.ts.',
    })).json;
    assert.equal(saved.nodes, 3);
    assert.deepEqual(saved.unresolved, ['no-such-symbol']);
    const p = path.join(ws, 'src/math.ts');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace('return a + b;', 'return Math.fround(a + b);'));
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });

    const resumed = (await h.call('trail_resume', { agent_id: 'a', trail_id: saved.trail_id })).json;
    assert.deepEqual(resumed.nodes, { total: 3, unchanged: 2, moved: 0, changed: 1, missing: 0, unindexed: 0 });
    assert.deepEqual(resumed.stale_nodes.map((n: { id: string; status: string }) => [n.id, n.status]), [[ADD, 'changed']]);
    assert.deepEqual(resumed.hypotheses.map((x: { status: string }) => x.status), ['needs_recheck', 'as_saved']);
    assert.match(resumed.hypotheses[0].why, /function:src\/math.ts#add changed/);
    assert.equal(resumed.conclusions[0].status, 'as_saved');
    assert.deepEqual(resumed.open_questions, ['does checkout round?']);
    assert.equal(resumed.next[0].tool, 'view');
    assert.deepEqual(resumed.next[0].arguments, { agent_id: 'a', file_path: 'src/math.ts', offset: 1, limit: 3 });
    const listed = (await h.call('trail_list', { agent_id: 'a', filter_status: 'stale' })).json;
    assert.deepEqual(listed.trails.map((t: { trail_id: string }) => t.trail_id), [saved.trail_id]);
  });

  it('tells a node in a file edited but not yet ingested from a changed one', async () => {
    // No watcher: the edit stays unread until the ingest (with one, it is unread until its event lands).
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const saved = (await h.call('trail_save', { agent_id: 'a', label: 'math', visited_nodes: [ADD, MUL], hypotheses: [{ statement: 'mul repeats add', supporting_nodes: [MUL, ADD] }] })).json;
      const p = path.join(ws, 'src/math.ts');
      fs.writeFileSync(p, '// one\n// two\n' + fs.readFileSync(p, 'utf8'));
      const early = (await h.call('trail_resume', { agent_id: 'a', trail_id: saved.trail_id })).json;
      assert.deepEqual(early.nodes, { total: 2, unchanged: 0, moved: 0, changed: 0, missing: 0, unindexed: 2 }, 'their text is unchanged, two lines lower: not "changed"');
      assert.equal(early.hypotheses[0].status, 'needs_recheck');
      assert.match(early.hypotheses[0].why, /edited since the graph read it/);
      assert.equal(early.next[0].tool, 'ingest');
      await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
      const late = (await h.call('trail_resume', { agent_id: 'a', trail_id: saved.trail_id })).json;
      assert.deepEqual(late.nodes, { total: 2, unchanged: 0, moved: 2, changed: 0, missing: 0, unindexed: 0 });
      assert.equal(late.hypotheses[0].status, 'as_saved');
    } finally {
      await h.close();
    }
  });

  it('refuses to resume a trail whose nodes are mostly gone unless forced', async () => {
    fs.writeFileSync(path.join(ws, 'src/extra.ts'), 'export function one(): number {\n  return 1;\n}\n\nexport function two(): number {\n  return 2;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const saved = (await h.call('trail_save', { agent_id: 'a', label: 'extras', visited_nodes: ['function:src/extra.ts#one', 'function:src/extra.ts#two', TOTAL] })).json;
    fs.rmSync(path.join(ws, 'src/extra.ts'));
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const refused = await h.call('trail_resume', { agent_id: 'b', trail_id: saved.trail_id });
    assert.equal(refused.json.error.code, 'M1ND_ERR_STATE_STALE');
    assert.match(refused.json.error.message, /2 of its 3 visited nodes no longer exist/);
    assert.match(refused.json.error.hint, /"force":true/);
    const forced = (await h.call('trail_resume', { agent_id: 'b', trail_id: saved.trail_id, force: true })).json;
    assert.equal(forced.forced, true);
    assert.equal(forced.nodes.missing, 2);
    assert.equal(forced.boosts.applied, 1, 'only the surviving node is boosted');
    const unknown = await h.call('trail_resume', { agent_id: 'b', trail_id: 'trail_nope' });
    assert.equal(unknown.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.match(unknown.json.error.hint, /trail_list/);
  });

  it('merges trails with the graph connections between them, marking only the caller’s own sources merged', async () => {
    const mine = (await h.call('trail_save', { agent_id: 'a', label: 'tests side', visited_nodes: ['function:tests/cart.test.ts#testTotal'], hypotheses: [{ statement: 'the test covers totals', supporting_nodes: ['function:tests/cart.test.ts#testTotal'] }], tags: ['cart'] })).json;
    const theirs = (await h.call('trail_save', { agent_id: 'b', label: 'math side', visited_nodes: [ADD], tags: ['math'] })).json;
    const direct = (await h.call('trail_save', { agent_id: 'b', label: 'caller side', visited_nodes: [TOTAL], hypotheses: [{ statement: 'total is tested', supporting_nodes: ['function:tests/cart.test.ts#testTotal'] }] })).json;

    const merged = (await h.call('trail_merge', { agent_id: 'a', trail_ids: [mine.trail_id, theirs.trail_id, direct.trail_id], label: 'cart end to end' })).json;
    assert.equal(merged.nodes, 3);
    const link = (a: string, b: string) => merged.connections.find((c: { between: string[] }) => c.between[0] === a && c.between[1] === b);
    // testTotal → total → add: no edge between the first two trails, a two-hop path.
    assert.deepEqual(link(mine.trail_id, theirs.trail_id).paths, [['function:tests/cart.test.ts#testTotal', TOTAL, ADD]]);
    // total calls add: a direct edge.
    assert.deepEqual(link(theirs.trail_id, direct.trail_id).edges, [{ source: TOTAL, relation: 'calls', target: ADD }]);
    assert.equal(merged.overlapping_claims.length, 1, 'two different claims rest on testTotal');
    assert.deepEqual(merged.marked_merged, [mine.trail_id]);
    assert.deepEqual(merged.left_as_is.map((x: { trail_id: string }) => x.trail_id), [theirs.trail_id, direct.trail_id]);

    const resumed = (await h.call('trail_resume', { agent_id: 'c', trail_id: merged.trail_id })).json;
    assert.deepEqual(resumed.tags.sort(), ['cart', 'math']);
    assert.equal(resumed.hypotheses.length, 2);
    const bad = await h.call('trail_merge', { agent_id: 'a', trail_ids: [mine.trail_id, mine.trail_id] });
    assert.equal(bad.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
  });

  it('keeps the newest saved look at a node and a file when merging, whatever the order of trail_ids', async () => {
    const older = (await h.call('trail_save', { agent_id: 'a', label: 'before the edit', visited_nodes: [ADD, MUL] })).json;
    const p = path.join(ws, 'src/math.ts');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace('return a + b;', 'return Math.fround(a + b);'));
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    await new Promise((r) => setTimeout(r, 5));
    const newer = (await h.call('trail_save', { agent_id: 'a', label: 'after the edit', visited_nodes: [ADD] })).json;
    // Both orders, twice (the first merge marks both sources merged at one instant).
    const ba = (await h.call('trail_merge', { agent_id: 'a', trail_ids: [newer.trail_id, older.trail_id], label: 'newer first' })).json;
    const ab = (await h.call('trail_merge', { agent_id: 'a', trail_ids: [older.trail_id, newer.trail_id], label: 'older first' })).json;
    for (const merged of [ba, ab]) {
      const resumed = (await h.call('trail_resume', { agent_id: 'a', trail_id: merged.trail_id })).json;
      assert.deepEqual(resumed.nodes, { total: 2, unchanged: 2, moved: 0, changed: 0, missing: 0, unindexed: 0 }, `${merged.label}: add as the newer trail saw it`);
    }
    const listed = (await h.call('trail_list', { agent_id: 'a' })).json.trails;
    const stale = (id: string) => listed.find((t: { trail_id: string }) => t.trail_id === id).stale;
    assert.deepEqual([stale(older.trail_id), stale(newer.trail_id), stale(ba.trail_id), stale(ab.trail_id)], [true, false, false, false]);
  });

  it('tells which node a name several nodes carry was saved as, and lists the others', async () => {
    fs.writeFileSync(path.join(ws, 'src/vec.ts'), 'export function add(a: number[], b: number[]): number[] {\n  return a.map((x, i) => x + b[i]);\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const saved = (await h.call('trail_save', { agent_id: 'a', label: 'adds', visited_nodes: ['add', TOTAL], hypotheses: [{ statement: 'add is pure', supporting_nodes: ['add'] }] })).json;
    assert.equal(saved.nodes, 2);
    assert.equal(saved.ambiguous?.length, 1, JSON.stringify(saved));
    const [amb] = saved.ambiguous;
    assert.equal(amb.name, 'add');
    assert.deepEqual([amb.chose, ...amb.also].sort(), [ADD, 'function:src/vec.ts#add'].sort());
    // An id, a path#name or a unique name is no ambiguity.
    const plain = (await h.call('trail_save', { agent_id: 'a', label: 'plain', visited_nodes: ['function:src/vec.ts#add', 'src/math.ts#add', 'mul'] })).json;
    assert.equal(plain.ambiguous, undefined, JSON.stringify(plain));
  });

  it('lists trails filtered by agent, status and tags', async () => {
    const t1 = (await h.call('trail_save', { agent_id: 'a', label: 'one', visited_nodes: [TOTAL], tags: ['cart', 'bug'] })).json;
    const t2 = (await h.call('trail_save', { agent_id: 'b', label: 'two', visited_nodes: [ADD], tags: ['cart'] })).json;
    const t3 = (await h.call('trail_save', { agent_id: 'a', label: 'three', visited_nodes: [MUL] })).json;
    const merged = (await h.call('trail_merge', { agent_id: 'a', trail_ids: [t1.trail_id, t3.trail_id] })).json;
    const ids = async (args: Record<string, unknown>) => ((await h.call('trail_list', { agent_id: 'x', ...args })).json.trails as { trail_id: string }[]).map((t) => t.trail_id).sort();
    assert.deepEqual(await ids({}), [t1.trail_id, t2.trail_id, t3.trail_id, merged.trail_id].sort());
    assert.deepEqual(await ids({ filter_agent_id: 'b' }), [t2.trail_id]);
    assert.deepEqual(await ids({ filter_status: 'merged' }), [t1.trail_id, t3.trail_id].sort());
    assert.deepEqual(await ids({ filter_status: 'saved' }), [t2.trail_id, merged.trail_id].sort());
    assert.deepEqual(await ids({ filter_tags: ['cart', 'bug'] }), [t1.trail_id, merged.trail_id].sort(), 'a trail must carry every tag');
    assert.deepEqual(await ids({ filter_status: 'current', filter_agent_id: 'b' }), [t2.trail_id]);
  });
});

describe('trail verbs on a read-only server', function () {
  this.timeout(60000);

  it('refuses trail_save and trail_merge (write) but resumes (session) and lists (read)', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'a', path: ws });
    const saved = (await writer.call('trail_save', { agent_id: 'a', label: 'kept', visited_nodes: [TOTAL], activation_boosts: { [ADD]: 0.8 } })).json;
    await writer.close();
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      const names = (await ro.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('trail_resume') && names.includes('trail_list'));
      assert.ok(!names.includes('trail_save') && !names.includes('trail_merge'), 'write verbs are not advertised read-only');
      assert.equal((await ro.call('trail_save', { agent_id: 'a', label: 'new', visited_nodes: [TOTAL] })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      assert.equal((await ro.call('trail_merge', { agent_id: 'a', trail_ids: [saved.trail_id, saved.trail_id] })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      const resumed = (await ro.call('trail_resume', { agent_id: 'b', trail_id: saved.trail_id })).json;
      assert.equal(resumed.boosts.applied, 2);
      const listed = (await ro.call('trail_list', { agent_id: 'b' })).json;
      assert.deepEqual(listed.trails.map((t: { trail_id: string }) => t.trail_id), [saved.trail_id]);
    } finally {
      await ro.close();
    }
  });
});
