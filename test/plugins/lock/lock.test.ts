import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { describeBackends } from '../../helpers/backends.ts';
import type { StateService } from '../../../plugins/state/api.ts';
import type { Snapshot } from '../../../plugins/lock/baseline.ts';
import { deleteBaseline, putBaseline, readBaseline } from '../../../plugins/lock/baseline-rows.ts';

const TOTAL = 'function:src/cart.ts#total';
const ADD = 'function:src/math.ts#add';
const MUL = 'function:src/math.ts#mul';

/** Replaces text in a workspace file (same line count, so no other node moves). */
function edit(ws: string, file: string, from: string, to: string): void {
  const p = path.join(ws, file);
  const text = fs.readFileSync(p, 'utf8');
  assert.ok(text.includes(from), `${file} contains ${from}`);
  fs.writeFileSync(p, text.replace(from, to));
}

describeBackends('lock verbs on a fixture repository', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  beforeEach(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  afterEach(() => h?.close());

  it('lock_diff shows exactly the function edited inside the region and nothing outside it', async () => {
    // total plus one hop: add (it calls), checkout and testTotal (call it), the test file, the doc section — not mul.
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: [TOTAL], radius: 1 })).json;
    assert.equal(lock.region.nodes, 6);
    assert.ok(!lock.region.sample.includes(MUL) && !lock.region.sample.includes('file:src/cart.ts'), 'a function lock does not climb to its file');
    const clean = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.equal(clean.changed, false);
    assert.equal(clean.unchanged_nodes, 6);

    edit(ws, 'src/math.ts', 'return a + b;', 'return b + a;'); // add: inside the region
    edit(ws, 'src/math.ts', 'let out = 0;', 'let out = 0; // accumulator'); // mul: same file, outside
    edit(ws, 'py/retry.py', 'min(30,', 'min(60,'); // elsewhere entirely
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });

    const diff = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.equal(diff.changed, true);
    assert.deepEqual(diff.nodes.changed.map((n: { id: string }) => n.id), [ADD]);
    assert.deepEqual(diff.nodes.changed[0].what, ['content']);
    assert.deepEqual(diff.nodes.changed[0].lines, [2, 4]);
    assert.deepEqual(diff.nodes.added, []);
    assert.deepEqual(diff.nodes.removed, []);
    assert.deepEqual(diff.nodes.moved, []);
    assert.deepEqual(diff.edges, { added: [], removed: [], reweighted: [] });
    assert.deepEqual(diff.files, [{ path: 'src/math.ts', content: 'edited', changed_nodes: [ADD], lines: [[2, 4]] }]);
    assert.equal(diff.unchanged_nodes, 5);
    assert.equal(diff.generation > diff.baseline_generation, true);
    assert.deepEqual(diff.look_next.arguments, { agent_id: 'a', file_path: 'src/math.ts', offset: 1, limit: 3 });

    const rebased = (await h.call('lock_rebase', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.equal(rebased.accepted.nodes_changed, 1);
    assert.equal((await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json.changed, false, 'rebase accepts the change');
  });

  it('stores a lock\'s region in its row and its baseline apart (overlap checks never read baselines); a lock stored with its baseline inline still diffs, and moves it on its next save', async () => {
    const team = (h.host.current.services.get('state')!.impl as StateService).team;
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: [TOTAL], radius: 1 })).json;
    const row = (await team.get<Record<string, any>>('locks', lock.lock_id))!.value;
    assert.equal(row.baseline, undefined, 'no baseline in the lock row');
    assert.equal(row.region.nodes.length, 6);
    assert.ok(row.region.nodes.every((n: { id: string; path: string }) => n.id && n.path));
    const baseline = (await readBaseline(team, lock.lock_id))!;
    assert.equal(Object.keys(baseline.nodes).length, 6);
    assert.ok(Object.keys(baseline.edges).length > 0);

    // The shape an older version stored: the baseline inside the row, no region, no baseline row.
    const { region: _region, ...legacy } = row;
    await team.put('locks', lock.lock_id, { ...legacy, baseline });
    await team.transaction((tx) => deleteBaseline(tx, lock.lock_id));
    edit(ws, 'src/math.ts', 'return a + b;', 'return b + a;');
    await h.call('ingest', { agent_id: 'a', path: ws });
    const diff = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.deepEqual(diff.nodes.changed.map((n: { id: string }) => n.id), [ADD]);
    const other = (await h.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: [ADD] })).json;
    assert.equal(other.overlaps[0]?.lock_id, lock.lock_id, 'the legacy lock\'s region is read for overlaps');
    await h.call('lock_rebase', { agent_id: 'a', lock_id: lock.lock_id });
    const moved = (await team.get<Record<string, any>>('locks', lock.lock_id))!.value;
    assert.equal(moved.baseline, undefined, 'the rebase moved the baseline to its own row');
    assert.equal((await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json.changed, false);
    await h.call('lock_release', { agent_id: 'a', lock_id: lock.lock_id });
    assert.deepEqual(await team.list('locks.baselines', lock.lock_id), [], 'released with its baseline, head and parts');
  });

  it('keeps a baseline in parts a diff reads one at a time: a smaller rebase drops the extra parts, a release all, a part of another baseline is never mixed in, and a one-row baseline of an older version still reads', async () => {
    const team = (h.host.current.services.get('state')!.impl as StateService).team;
    const id = 'lock_parts_test';
    const fn = (i: number) => `function:src/f${i}.ts#f`;
    const region = (n: number, generation: number): Snapshot => ({
      generation,
      truncated: false,
      nodes: Object.fromEntries(Array.from({ length: n }, (_, i) => [fn(i), { id: fn(i), kind: 'function', label: 'f', path: `src/f${i}.ts`, lines: [1, 3] as [number, number], hash: `h${i}-${generation}` }])),
      edges: Object.fromEntries(Array.from({ length: n }, (_, i) => [`${fn(i)}\tcalls\t${fn((i + 1) % n)}`, 1])),
      files: Object.fromEntries(Array.from({ length: n }, (_, i) => [`src/f${i}.ts`, `c${i}`])),
    });
    const parts = async () => (await team.list('locks.baselines', `${id}#`)).length;
    const big = region(1000, 1);
    await team.transaction((tx) => putBaseline(tx, id, big));
    assert.equal(await parts(), 12, '1,000 nodes, edges and files: four parts of at most 300 each');
    assert.deepEqual(await readBaseline(team, id), big);
    const small = region(400, 2);
    await team.transaction((tx) => putBaseline(tx, id, small));
    assert.equal(await parts(), 6, 'the parts past the smaller baseline are gone');
    assert.deepEqual(await readBaseline(team, id), small);
    await team.put('locks.baselines', `${id}#1`, { generation: 99, nodes: [] });
    assert.equal(await readBaseline(team, id), undefined, 'a part written by another baseline meanwhile: no mixed snapshot');
    await team.transaction((tx) => deleteBaseline(tx, id));
    assert.deepEqual(await team.list('locks.baselines', id), []);
    await team.put('locks.baselines', id, small); // one row, as stored before parts
    assert.deepEqual(await readBaseline(team, id), small);
    await team.transaction((tx) => putBaseline(tx, id, big));
    assert.deepEqual(await readBaseline(team, id), big, 'a one-row baseline is replaced by parts');
    await team.transaction((tx) => deleteBaseline(tx, id));
    assert.deepEqual(await team.list('locks.baselines', id), []);
  });

  it('reports nodes and edges added and removed inside the region, with files and lines', async () => {
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: ['file:src/math.ts'], radius: 1 })).json;
    // mul stops calling add; a new function appears in the file (contained: inside the region).
    edit(ws, 'src/math.ts', 'for (let i = 0; i < b; i++) out = add(out, a);', 'for (let i = 0; i < b; i++) out = out + a;');
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function neg(a: number): number {\n  return -a;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const diff = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.deepEqual(diff.nodes.added.map((n: { id: string; lines: number[] }) => [n.id, n.lines]), [['function:src/math.ts#neg', [12, 14]]]);
    assert.deepEqual(diff.nodes.changed.map((n: { id: string }) => n.id), [MUL]);
    assert.deepEqual(diff.edges.removed, [{ source: MUL, relation: 'calls', target: ADD, weight: 1 }]);
    assert.deepEqual(diff.edges.added.map((e: { source: string; relation: string; target: string }) => [e.source, e.relation, e.target]), [['file:src/math.ts', 'contains', 'function:src/math.ts#neg']]);
    const file = diff.files.find((f: { path: string }) => f.path === 'src/math.ts');
    assert.deepEqual(file.changed_nodes.sort(), ['function:src/math.ts#neg', MUL].sort());
  });

  it('reports a deleted function as removed, with the edges that went with it', async () => {
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: ['file:src/math.ts'], radius: 1 })).json;
    const p = path.join(ws, 'src/math.ts');
    const text = fs.readFileSync(p, 'utf8');
    fs.writeFileSync(p, text.slice(0, text.indexOf('export function mul')));
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const diff = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.deepEqual(diff.nodes.removed.map((n: { id: string; reason: string; lines: number[] }) => [n.id, n.reason, n.lines]), [[MUL, 'deleted', [6, 10]]]);
    assert.deepEqual(
      diff.edges.removed.map((e: { source: string; relation: string; target: string }) => `${e.source} ${e.relation} ${e.target}`).sort(),
      [`file:src/math.ts contains ${MUL}`, `${MUL} calls ${ADD}`],
    );
    assert.deepEqual(diff.nodes.changed, [], 'the file itself only lost a child');
  });

  it('moves an exclusive lock\'s holds with its region on rebase: a node that left is free after release, a node that joined is held', async () => {
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: [MUL], radius: 1, exclusive: true })).json;
    assert.ok(lock.region.sample.includes(ADD), JSON.stringify(lock.region));
    // mul stops calling add (add leaves the region) and calls a new function neg (neg joins it).
    edit(ws, 'src/math.ts', 'for (let i = 0; i < b; i++) out = add(out, a);', 'for (let i = 0; i < b; i++) out = neg(neg(out) - a);');
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function neg(a: number): number {\n  return -a;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const diff = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.deepEqual(diff.nodes.removed.map((n: { id: string; reason: string }) => [n.id, n.reason]), [[ADD, 'left_region']]);
    // add's text is untouched: it left the region, it did not change, so its file entry does not name it.
    assert.deepEqual(diff.files.map((f: { path: string; changed_nodes: string[] }) => [f.path, f.changed_nodes.sort()]), [['src/math.ts', [MUL, 'function:src/math.ts#neg']]]);
    const rebased = await h.call('lock_rebase', { agent_id: 'a', lock_id: lock.lock_id });
    assert.equal(rebased.result.isError, undefined, JSON.stringify(rebased.json));
    assert.equal(rebased.json.not_held, undefined);
    const joined = await h.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: ['function:src/math.ts#neg'], exclusive: true });
    assert.equal(joined.json.error?.code, 'M1ND_ERR_STATE_CONFLICT', 'the node that joined the region is held');
    await h.call('lock_release', { agent_id: 'a', lock_id: lock.lock_id });
    const left = await h.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: [ADD], exclusive: true });
    assert.equal(left.json.exclusive, true, `the node that left the region is not held by the released lock: ${JSON.stringify(left.json)}`);
    const team = (h.host.current.services.get('state')!.impl as StateService).team;
    assert.deepEqual((await team.list('locks.nodes', '', 100)).map((r) => r.key), [ADD], 'the released lock left no hold');
  });

  it('reports an edit the graph has not read as an unindexed file, not as every function below it changed, and rebases only after an ingest', async () => {
    // No watcher: the edit stays unread until the ingest (with one, it is unread until its event lands).
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD, MUL] })).json;
      const p = path.join(ws, 'src/math.ts');
      fs.writeFileSync(p, '// one\n// two\n' + fs.readFileSync(p, 'utf8')); // no ingest: the graph still has the old line ranges
      const early = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
      assert.equal(early.generation, early.baseline_generation, 'the graph has not re-read the file');
      assert.deepEqual(early.nodes.changed, [], 'add and mul are unchanged text, two lines lower');
      assert.equal(early.changed, false);
      assert.deepEqual(early.unindexed_edits, ['src/math.ts']);
      const refused = await h.call('lock_rebase', { agent_id: 'a', lock_id: lock.lock_id });
      assert.equal(refused.json.error?.code, 'M1ND_ERR_STATE_STALE', JSON.stringify(refused.json));
      assert.match(refused.json.error.hint, /ingest/);
      await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
      const late = (await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json;
      assert.equal(late.changed, false);
      assert.deepEqual(late.nodes.moved.map((n: { id: string; lines: number[]; was_lines: number[] }) => [n.id, n.lines, n.was_lines]).sort(), [[ADD, [4, 6], [2, 4]], [MUL, [8, 12], [6, 10]]]);
      assert.equal((await h.call('lock_rebase', { agent_id: 'a', lock_id: lock.lock_id })).json.lock_id, lock.lock_id);
    } finally {
      await h.close();
    }
  });

  it("reports overlaps between two agents' locks, so each sees the other", async () => {
    const a = (await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: ['file:src/math.ts'], radius: 1 })).json;
    assert.deepEqual(a.overlaps, []);
    const b = (await h.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: ['add'] })).json;
    assert.deepEqual(b.seeds, [ADD], 'an exact name resolves to its node');
    assert.equal(b.overlaps.length, 1);
    assert.equal(b.overlaps[0].lock_id, a.lock_id);
    assert.equal(b.overlaps[0].agent_id, 'a');
    assert.deepEqual(b.overlaps[0].sample, [ADD]);
    assert.deepEqual(b.overlaps[0].files, ['src/math.ts']);
    assert.match(b.warning, /other agents/);
    const seenByA = (await h.call('lock_diff', { agent_id: 'a', lock_id: a.lock_id })).json;
    assert.deepEqual(seenByA.overlaps.map((o: { lock_id: string; agent_id: string }) => [o.lock_id, o.agent_id]), [[b.lock_id, 'b']]);
    const own = (await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD] })).json;
    assert.deepEqual(own.overlaps.map((o: { agent_id: string }) => o.agent_id), ['b'], "the agent's own locks are not reported as overlaps");
  });

  it('lets only the owner diff, rebase, watch or release a lock, and names unknown lock ids clearly', async () => {
    const lock = (await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [TOTAL] })).json;
    for (const [verb, extra] of [['lock_diff', {}], ['lock_rebase', {}], ['lock_release', {}], ['lock_watch', { strategy: 'on_ingest' }]] as const) {
      const r = await h.call(verb, { agent_id: 'b', lock_id: lock.lock_id, ...extra });
      assert.equal(r.json.error.code, 'M1ND_ERR_STATE_NOT_OWNER', verb);
      assert.match(r.json.error.message, /belongs to agent "a"/);
    }
    const unknown = await h.call('lock_diff', { agent_id: 'a', lock_id: 'lock_nope' });
    assert.equal(unknown.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
    assert.match(unknown.json.error.hint, new RegExp(lock.lock_id), 'names the caller’s own locks');
    const released = (await h.call('lock_release', { agent_id: 'a', lock_id: lock.lock_id })).json;
    assert.equal(released.released, lock.lock_id);
    assert.equal((await h.call('lock_diff', { agent_id: 'a', lock_id: lock.lock_id })).json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
  });

  it('records a watch event after an ingest for on_ingest locks, not for manual ones', async () => {
    const watched = (await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD] })).json;
    const manual = (await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD] })).json;
    const w = (await h.call('lock_watch', { agent_id: 'a', lock_id: watched.lock_id, strategy: 'on_ingest' })).json;
    assert.match(w.means, /new generation/);
    const periodic = (await h.call('lock_watch', { agent_id: 'a', lock_id: manual.lock_id, strategy: 'periodic' })).json;
    assert.match(periodic.means, /every 60 s/);
    await h.call('lock_watch', { agent_id: 'a', lock_id: manual.lock_id, strategy: 'manual' });
    edit(ws, 'src/math.ts', 'return a + b;', 'return b + a;');
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    const d = (await h.call('lock_diff', { agent_id: 'a', lock_id: watched.lock_id })).json;
    assert.equal(d.watch.events.length, 1);
    assert.equal(d.watch.events[0].trigger, 'ingest');
    assert.equal(d.watch.events[0].counts.nodes_changed, 1);
    assert.deepEqual(d.watch.events[0].files, ['src/math.ts']);
    const m = (await h.call('lock_diff', { agent_id: 'a', lock_id: manual.lock_id })).json;
    assert.deepEqual(m.watch.events, [], 'a manual lock is checked only by lock_diff');
    assert.equal(m.changed, true);
    await h.call('lock_rebase', { agent_id: 'a', lock_id: watched.lock_id });
    assert.deepEqual((await h.call('lock_diff', { agent_id: 'a', lock_id: watched.lock_id })).json.watch.events, [], 'rebase clears accepted events');
  });

  it('locks the shortest path through roots, and refuses parameters that do not belong to the scope', async () => {
    const p = (await h.call('lock_create', { agent_id: 'a', scope: 'path', root_nodes: ['function:tests/cart.test.ts#testTotal', ADD] })).json;
    assert.deepEqual(p.path, ['function:tests/cart.test.ts#testTotal', TOTAL, ADD]);
    assert.equal(p.region.nodes, 3);
    assert.equal(p.region.edges, 2);
    const explicit = (await h.call('lock_create', { agent_id: 'a', scope: 'path', root_nodes: [], path_nodes: [TOTAL, ADD] })).json;
    assert.deepEqual(explicit.path, [TOTAL, ADD]);
    const q = (await h.call('lock_create', { agent_id: 'a', scope: 'query_neighborhood', root_nodes: [], query: 'retry backoff', radius: 0 })).json;
    assert.ok(q.seeds.includes('function:py/retry.py#backoff'), JSON.stringify(q.seeds));
    for (const [args, param] of [
      [{ scope: 'node', root_nodes: [ADD], radius: 2 }, 'radius'],
      [{ scope: 'subgraph', root_nodes: [ADD], query: 'x' }, 'query'],
      [{ scope: 'node', root_nodes: [ADD], path_nodes: [ADD] }, 'path_nodes'],
    ] as const) {
      const r = await h.call('lock_create', { agent_id: 'a', ...args });
      assert.equal(r.json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM', param);
      assert.match(r.json.error.message, new RegExp(`^${param} applies to`));
    }
    const missing = await h.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: ['function:src/math.ts#nope'] });
    assert.equal(missing.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
    const none = await h.call('lock_create', { agent_id: 'a', scope: 'subgraph', root_nodes: [] });
    assert.equal(none.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
  });
});

describeBackends('locks as shared, catalogued state', function () {
  this.timeout(60000);

  it('survive a restart, are advertised in the full tier and known to help in the essential one', async () => {
    const ws = writeFixtureRepo(tempDir());
    const first = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    let lockId: string;
    try {
      const names = (await first.client.listTools()).tools.map((t) => t.name);
      for (const v of ['lock_create', 'lock_watch', 'lock_diff', 'lock_rebase', 'lock_release']) assert.ok(names.includes(v), `${v} advertised in full`);
      await first.call('ingest', { agent_id: 'a', path: ws });
      lockId = (await first.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD] })).json.lock_id;
    } finally {
      await first.close();
    }
    const second = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'essential' } });
    try {
      assert.ok(!(await second.client.listTools()).tools.some((t) => t.name.startsWith('lock_')));
      const help = (await second.call('help', { agent_id: 'a', tool_name: 'lock_diff', render: 'none' })).json;
      assert.equal(help.found, true);
      assert.deepEqual(help.advertised_in, ['full']);
      const diff = (await second.call('lock_diff', { agent_id: 'a', lock_id: lockId })).json;
      assert.equal(diff.changed, false, 'the lock and its baseline came back from the store');
      const other = (await second.call('lock_create', { agent_id: 'b', scope: 'node', root_nodes: [ADD] })).json;
      assert.deepEqual(other.overlaps.map((o: { lock_id: string }) => o.lock_id), [lockId], 'a new server process sees the lock');
    } finally {
      await second.close();
    }
  });

  it('refuses every lock write on a read-only server but still diffs', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'a', path: ws });
    const lockId = (await writer.call('lock_create', { agent_id: 'a', scope: 'node', root_nodes: [ADD] })).json.lock_id;
    await writer.close();
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      for (const [verb, args] of [
        ['lock_create', { scope: 'node', root_nodes: [ADD] }],
        ['lock_watch', { lock_id: lockId, strategy: 'on_ingest' }],
        ['lock_rebase', { lock_id: lockId }],
        ['lock_release', { lock_id: lockId }],
      ] as const) {
        const r = await ro.call(verb, { agent_id: 'a', ...args });
        assert.equal(r.json.error.code, 'M1ND_ERR_GATE_READ_ONLY', verb);
      }
      const diff = await ro.call('lock_diff', { agent_id: 'a', lock_id: lockId });
      assert.equal(diff.result.isError, undefined);
      assert.equal(diff.json.changed, false);
    } finally {
      await ro.close();
    }
  });
});
