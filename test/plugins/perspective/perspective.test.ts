import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const TOTAL = 'function:src/cart.ts#total';
const ADD = 'function:src/math.ts#add';
const MUL = 'function:src/math.ts#mul';
const targets = (json: { routes: { target: { id: string } }[] }) => json.routes.map((r) => r.target.id);
const routeTo = (json: { routes: { route_id: string; target: { id: string } }[] }, id: string) => {
  const r = json.routes.find((x) => x.target.id === id);
  assert.ok(r, `a route to ${id} among ${targets(json as never).join(', ')}`);
  return r.route_id;
};

describe('perspective verbs on a fixture repository', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('walks start → routes → follow → back and compares two perspectives by their visited nodes', async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    assert.equal(start.focus.id, TOTAL, 'the best match for the query is the focus');
    assert.equal(start.seeded_by, 'query');
    // One hop out of total: what it calls, what calls it, what contains, tests and documents it.
    const first = (await h.call('perspective_routes', { agent_id: 'a', perspective_id: start.perspective_id, page_size: 40 })).json;
    assert.equal(first.route_set_version, start.route_set_version);
    assert.deepEqual(
      [...targets(first)].sort(),
      ['file:src/cart.ts', 'file:tests/cart.test.ts', ADD, 'function:tests/cart.test.ts#testTotal', 'method:src/cart.ts#Cart.checkout', 'section:docs/guide.md#Guide.Checkout'],
    );
    const toAdd = first.routes.find((r: { target: { id: string } }) => r.target.id === ADD);
    assert.equal(toAdd.via, 'focus calls target');
    assert.match(toAdd.why, /edge 1 .* unvisited/);
    const scores = first.routes.map((r: { score: number }) => r.score);
    assert.deepEqual(scores, [...scores].sort((x, y) => y - x), 'routes come ranked');

    const followed = (await h.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(first, ADD), route_set_version: first.route_set_version })).json;
    assert.equal(followed.focus.id, ADD);
    assert.equal(followed.depth, 1);
    assert.ok(followed.route_set_version > first.route_set_version, 'moving the focus starts a new route set');
    assert.deepEqual([...targets(followed)].sort(), ['file:src/math.ts', TOTAL, MUL].sort());
    const back = followed.routes.find((r: { target: { id: string } }) => r.target.id === TOTAL);
    assert.match(back.why, /visited/, 'the node we came from is marked visited');

    const undone = (await h.call('perspective_back', { agent_id: 'a', perspective_id: start.perspective_id })).json;
    assert.equal(undone.focus.id, TOTAL);
    assert.equal(undone.left, ADD);
    assert.equal(undone.depth, 0);
    const again = await h.call('perspective_back', { agent_id: 'a', perspective_id: start.perspective_id });
    assert.equal(again.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND', 'no checkpoint before the start');

    // A second perspective from mul walks to add: the two share add and differ elsewhere.
    const other = (await h.call('perspective_start', { agent_id: 'a', query: 'multiply', anchor_node: MUL })).json;
    assert.equal(other.focus.id, MUL);
    assert.equal(other.seeded_by, 'anchor_node');
    await h.call('perspective_follow', { agent_id: 'a', perspective_id: other.perspective_id, route_id: routeTo(other, ADD), route_set_version: other.route_set_version });
    const cmp = (await h.call('perspective_compare', { agent_id: 'a', perspective_id_a: start.perspective_id, perspective_id_b: other.perspective_id })).json;
    assert.deepEqual(cmp.shared_nodes, [ADD]);
    assert.deepEqual(cmp.unique_to_a, [TOTAL]);
    assert.deepEqual(cmp.unique_to_b, [MUL]);
    assert.deepEqual(cmp.dimension_deltas.files, { shared: ['src/math.ts'], only_a: ['src/cart.ts'], only_b: [] });
    assert.deepEqual(cmp.dimension_deltas.depth.a, 0);
    const only = (await h.call('perspective_compare', { agent_id: 'a', perspective_id_a: start.perspective_id, perspective_id_b: other.perspective_id, dimensions: ['kinds'] })).json;
    assert.deepEqual(Object.keys(only.dimension_deltas), ['kinds']);
    assert.deepEqual(only.dimension_deltas.kinds.function, { a: 2, b: 2, delta: 0 });
  });

  it('inspects, peeks at and finds affinities of a route target without moving the focus', async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    const sel = { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(start, ADD), route_set_version: start.route_set_version };
    const inspect = (await h.call('perspective_inspect', sel)).json;
    assert.equal(inspect.target.id, ADD);
    assert.deepEqual(inspect.path.edges.map((e: { reads: string }) => e.reads), ['focus calls target']);
    assert.equal(inspect.metrics.in_degree, 3, 'contained by math.ts, called by mul and total');
    assert.equal(inspect.score.factors.novelty, 1);
    assert.equal(inspect.provenance.file, 'src/math.ts');
    const peek = (await h.call('perspective_peek', sel)).json;
    assert.deepEqual(peek.lines, [2, 4]);
    assert.match(peek.excerpt, /^2│export function add\(a: number, b: number\): number \{\n3│ {2}return a \+ b;\n4│\}$/);
    assert.equal(peek.truncated, false);
    // Affinity of the focus's neighbour checkout (a method): testTotal also calls total, so they share a neighbour.
    const aff = (await h.call('perspective_affinity', { ...sel, route_id: routeTo(start, 'method:src/cart.ts#Cart.checkout') })).json;
    const tt = aff.candidates.find((c: { node: { id: string } }) => c.node.id === 'function:tests/cart.test.ts#testTotal');
    assert.ok(tt, JSON.stringify(aff.candidates));
    assert.deepEqual(tt.signals.via, [TOTAL]);
    assert.match(tt.why, /shares neighbour total/);
    assert.ok(!aff.candidates.some((c: { node: { id: string } }) => c.node.id === TOTAL), 'a node already linked is confirmed, never offered');
    const list = (await h.call('perspective_list', { agent_id: 'a' })).json;
    const mine = list.perspectives.find((p: { perspective_id: string }) => p.perspective_id === start.perspective_id);
    assert.equal(mine.focus.id, TOTAL, 'inspect, peek and affinity did not move the focus');
    assert.equal(mine.depth, 0);
  });

  it('suggests the next move from the routes and the history, as a ready call', async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    const base = { agent_id: 'a', perspective_id: start.perspective_id };
    const s1 = (await h.call('perspective_suggest', { ...base, route_set_version: start.route_set_version })).json;
    assert.equal(s1.suggestion.action, 'follow');
    assert.equal(s1.suggestion.route_id, start.routes[0].route_id, 'with no history, the best-ranked route');
    assert.equal(s1.suggestion.call.tool, 'perspective_follow');
    // Follow add, back out of it: suggest then avoids add (abandoned) and total (visited).
    const f = (await h.call('perspective_follow', { ...base, route_id: routeTo(start, ADD), route_set_version: start.route_set_version })).json;
    assert.equal(f.focus.id, ADD);
    const b = (await h.call('perspective_back', base)).json;
    const s2 = (await h.call('perspective_suggest', { ...base, route_set_version: b.route_set_version })).json;
    assert.notEqual(s2.suggestion.target.id, ADD);
    // The confidence, recomputed from the routes as perspective_routes shows them.
    const routes = (await h.call('perspective_routes', { ...base, page_size: 40 })).json.routes as { route_id: string; target: { id: string }; score: number; why: string }[];
    const open = routes.filter((r) => /unvisited/.test(r.why) && r.target.id !== ADD);
    assert.equal(s2.suggestion.route_id, open[0].route_id, 'the best route neither visited nor backed out of');
    const margin = (open[0].score - (open[1]?.score ?? 0)) / open[0].score;
    const match = Number(/query match ([\d.]+)/.exec(open[0].why)?.[1] ?? 0);
    assert.equal(s2.suggestion.confidence, Number(Math.min(0.9, 0.45 + 0.3 * margin + 0.15 * match).toFixed(3)));
    assert.match(s2.suggestion.confidence_basis, /^computed/);
    const follow = await h.call(s2.suggestion.call.tool, s2.suggestion.call.arguments);
    assert.equal(follow.json.focus.id, s2.suggestion.target.id, 'the suggested call works as given');
  });

  it('suggests going back, then starting anew, when every route is used up — priors labelled, start only as a template', async () => {
    const ws2 = writeFixtureRepo(tempDir(), { 'one.ts': 'export function lonely(): number {\n  return 1;\n}\n' });
    const h2 = await connect({ workspaceRoot: ws2, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h2.call('ingest', { agent_id: 'a', path: ws2 });
      const start = (await h2.call('perspective_start', { agent_id: 'a', query: 'lonely' })).json;
      const base = { agent_id: 'a', perspective_id: start.perspective_id };
      let rsv = start.route_set_version;
      const suggest = async () => (await h2.call('perspective_suggest', { ...base, route_set_version: rsv })).json.suggestion;
      // lonely → one.ts → module "." (each the only unvisited route), every call run as given.
      const first = await suggest();
      assert.equal(first.target.id, 'file:one.ts');
      assert.equal(first.confidence, 0.75, 'one route: full margin (0.3), no query match');
      rsv = (await h2.call(first.call.tool, first.call.arguments)).json.route_set_version;
      const second = await suggest();
      assert.equal(second.target.id, 'module:.');
      rsv = (await h2.call(second.call.tool, second.call.arguments)).json.route_set_version;
      const back = await suggest();
      assert.deepEqual([back.action, back.confidence, back.confidence_basis], ['back', 0.7, 'fixed prior']);
      rsv = (await h2.call(back.call.tool, back.call.arguments)).json.route_set_version;
      const backAgain = await suggest();
      assert.equal(backAgain.action, 'back', 'at one.ts: lonely is visited, the module was backed out of');
      rsv = (await h2.call(backAgain.call.tool, backAgain.call.arguments)).json.route_set_version;
      const anew = await suggest();
      assert.deepEqual([anew.action, anew.confidence, anew.confidence_basis], ['start', 0.5, 'fixed prior']);
      assert.equal(anew.call, undefined, 'no runnable call with a query the agent has to choose');
      assert.equal(anew.call_template.template, true);
      assert.deepEqual(anew.call_template.fill, ['query']);
      assert.equal(anew.call_template.tool, 'perspective_start');
    } finally {
      await h2.close();
    }
  });

  it('branches a perspective into an independent one at the same focus', async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    const branch = (await h.call('perspective_branch', { agent_id: 'a', perspective_id: start.perspective_id, branch_name: 'via math' })).json;
    assert.notEqual(branch.perspective_id, start.perspective_id);
    assert.equal(branch.branch_of, start.perspective_id);
    assert.equal(branch.name, 'via math');
    const moved = (await h.call('perspective_follow', { agent_id: 'a', perspective_id: branch.perspective_id, route_id: routeTo(start, ADD), route_set_version: branch.route_set_version })).json;
    assert.equal(moved.focus.id, ADD);
    const cmp = (await h.call('perspective_compare', { agent_id: 'a', perspective_id_a: start.perspective_id, perspective_id_b: branch.perspective_id, dimensions: ['depth'] })).json;
    assert.deepEqual(cmp.unique_to_b, [ADD], 'the original did not move');
    assert.equal(cmp.dimension_deltas.depth.delta, 1);
    const closed = (await h.call('perspective_close', { agent_id: 'a', perspective_id: start.perspective_id })).json;
    assert.deepEqual(closed.branches_left_open, [branch.perspective_id]);
    const gone = await h.call('perspective_routes', { agent_id: 'a', perspective_id: start.perspective_id });
    assert.equal(gone.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.match(gone.json.error.hint, /perspective_list/);
  });

  it('refuses a route id from before a re-ingest as a stale route set, naming the call that refreshes it', async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function neg(a: number): number {\n  return -a;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const stale = await h.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(start, ADD), route_set_version: start.route_set_version });
    assert.equal(stale.result.isError, true);
    assert.equal(stale.json.error.code, 'M1ND_ERR_STATE_STALE');
    assert.match(stale.json.error.message, /stale route set/);
    assert.match(stale.json.error.hint, new RegExp(`perspective_routes\\(\\{"agent_id":"a","perspective_id":"${start.perspective_id}"\\}\\)`));
    for (const verb of ['perspective_inspect', 'perspective_peek', 'perspective_affinity']) {
      const r = await h.call(verb, { agent_id: 'a', perspective_id: start.perspective_id, route_index: 1, route_set_version: start.route_set_version });
      assert.equal(r.json.error.code, 'M1ND_ERR_STATE_STALE', verb);
    }
    const fresh = (await h.call('perspective_routes', { agent_id: 'a', perspective_id: start.perspective_id })).json;
    assert.equal(fresh.refreshed, true);
    assert.ok(fresh.route_set_version > start.route_set_version);
    const oldId = await h.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(start, ADD), route_set_version: fresh.route_set_version });
    assert.equal(oldId.json.error.code, 'M1ND_ERR_STATE_STALE', 'a route id names its route set');
    const ok = (await h.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(fresh, ADD), route_set_version: fresh.route_set_version })).json;
    assert.equal(ok.focus.id, ADD);
  });

  it("refuses to let another agent drive a perspective, and lists only the caller's own", async () => {
    const start = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
    for (const [verb, args] of [
      ['perspective_routes', {}],
      ['perspective_follow', { route_index: 1, route_set_version: start.route_set_version }],
      ['perspective_back', {}],
      ['perspective_branch', {}],
      ['perspective_close', {}],
    ] as const) {
      const r = await h.call(verb, { agent_id: 'intruder', perspective_id: start.perspective_id, ...args });
      assert.equal(r.json.error.code, 'M1ND_ERR_STATE_NOT_OWNER', verb);
      assert.match(r.json.error.hint, /perspective_start/);
    }
    const cmp = await h.call('perspective_compare', { agent_id: 'intruder', perspective_id_a: start.perspective_id, perspective_id_b: start.perspective_id });
    assert.equal(cmp.json.error.code, 'M1ND_ERR_STATE_NOT_OWNER');
    assert.deepEqual((await h.call('perspective_list', { agent_id: 'intruder' })).json.perspectives, []);
    const still = (await h.call('perspective_routes', { agent_id: 'a', perspective_id: start.perspective_id })).json;
    assert.equal(still.focus.id, TOTAL);
  });

  it('refuses an unknown lens key and honours the lens it knows', async () => {
    const bad = await h.call('perspective_start', { agent_id: 'a', query: 'cart total', lens: { depth: 3 } });
    assert.equal(bad.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    const lensed = (await h.call('perspective_start', { agent_id: 'a', query: 'cart total', lens: { relations: ['calls'], direction: 'in' } })).json;
    assert.deepEqual([...targets(lensed)].sort(), ['function:tests/cart.test.ts#testTotal', 'method:src/cart.ts#Cart.checkout']);
  });
});

describe('perspective storage and limits', function () {
  this.timeout(60000);

  it('keeps perspectives across a server restart on the same workspace, route set included', async () => {
    const ws = writeFixtureRepo(tempDir());
    const first = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    let start: any;
    try {
      await first.call('ingest', { agent_id: 'a', path: ws });
      start = (await first.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
      assert.equal(start.persisted, true);
    } finally {
      await first.close();
    }
    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      const list = (await second.call('perspective_list', { agent_id: 'a' })).json;
      assert.deepEqual(list.perspectives.map((p: { perspective_id: string }) => p.perspective_id), [start.perspective_id]);
      assert.match(list.storage, /store/);
      const moved = (await second.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(start, ADD), route_set_version: start.route_set_version })).json;
      assert.equal(moved.focus.id, ADD, 'the route set from before the restart is still valid: the graph did not change');
    } finally {
      await second.close();
    }
  });

  it('keeps perspectives in session memory on a read-only server, says so, and never writes the store', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'a', path: ws });
    await writer.close();
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      const start = (await ro.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json;
      assert.equal(start.persisted, false);
      assert.match(start.note, /read-only/);
      const moved = (await ro.call('perspective_follow', { agent_id: 'a', perspective_id: start.perspective_id, route_id: routeTo(start, ADD), route_set_version: start.route_set_version })).json;
      assert.equal(moved.focus.id, ADD, 'session verbs work on a read-only server');
      const list = (await ro.call('perspective_list', { agent_id: 'a' })).json;
      assert.equal(list.perspectives.length, 1);
      assert.match(list.storage, /read-only/);
    } finally {
      await ro.close();
    }
    const again = await connect({ workspaceRoot: ws });
    try {
      assert.deepEqual((await again.call('perspective_list', { agent_id: 'a' })).json.perspectives, [], 'nothing reached the store');
    } finally {
      await again.close();
    }
  });

  it('bounds the perspectives an agent may hold, naming perspective_close', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) ids.push((await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).json.perspective_id);
      const over = await h.call('perspective_start', { agent_id: 'a', query: 'cart total' });
      assert.equal(over.json.error.code, 'M1ND_ERR_STATE_LIMIT');
      assert.match(over.json.error.hint, new RegExp(`perspective_close\\(.*${ids[0]}`));
      assert.equal((await h.call('perspective_start', { agent_id: 'b', query: 'cart total' })).result.isError, undefined, 'the limit is per agent');
      await h.call('perspective_close', { agent_id: 'a', perspective_id: ids[0] });
      assert.equal((await h.call('perspective_start', { agent_id: 'a', query: 'cart total' })).result.isError, undefined);
    } finally {
      await h.close();
    }
  });
});
