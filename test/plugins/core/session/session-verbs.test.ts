import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from '../analysis/analysis-fixture.ts';

describe('am_i_stale', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture();
  });
  after(() => h.close());

  it('flags a file edited after the agent saw it, even once the graph has re-ingested it', async () => {
    await h.call('impact', { agent_id: 's1', node_id: 'function:src/c.ts#c', direction: 'reverse' });
    const before = (await h.call('am_i_stale', { agent_id: 's1' })).json;
    assert.equal(before.stale_count, 0);
    assert.ok(before.fresh.includes('src/c.ts') && before.fresh.includes('src/b.ts'));
    const file = path.join(h.workspace, 'src/c.ts');
    fs.writeFileSync(file, `// moved down by a line\n${fs.readFileSync(file, 'utf8')}`);
    // What the watcher does before the next query, done explicitly so the test does not race it.
    await h.call('ingest', { agent_id: 'someone-else', path: '.', incremental: true });
    const now = (await h.call('impact', { agent_id: 'someone-else', node_id: 'function:src/c.ts#c' })).json;
    assert.deepEqual(now.node.lines, [3, 5], 'the graph is current');
    const { json } = await h.call('am_i_stale', { agent_id: 's1' });
    assert.equal(json.stale_count, 1);
    const c = json.stale[0];
    assert.equal(c.path, 'src/c.ts');
    assert.equal(c.status, 'changed_since_seen');
    assert.equal(c.seen_by, 'impact');
    assert.equal(c.graph, 'current');
    assert.deepEqual(c.symbols, [{ id: 'function:src/c.ts#c', status: 'moved', seen_lines: [2, 4], lines: [3, 5] }]);
    assert.match(c.next, /^view\(\{"file_path":"src\/c\.ts"\}\)/);
  });

  it('remembers files the agent read with view and found with search', async () => {
    await h.call('view', { agent_id: 's4', file_path: 'src/a.ts' });
    await h.call('search', { agent_id: 's4', query: 'function b' });
    const before = (await h.call('am_i_stale', { agent_id: 's4' })).json;
    assert.ok(before.fresh.includes('src/a.ts'), JSON.stringify(before));
    assert.ok(before.fresh.includes('src/b.ts'), JSON.stringify(before));
    const file = path.join(h.workspace, 'src/a.ts');
    fs.appendFileSync(file, '\n// edited after it was read\n');
    const { json } = await h.call('am_i_stale', { agent_id: 's4' });
    const a = json.stale.find((x: { path: string }) => x.path === 'src/a.ts');
    assert.equal(a.status, 'changed_since_seen');
    assert.equal(a.seen_by, 'view');
    // Bring the graph up to date now rather than racing the watcher in the next test.
    await h.call('ingest', { agent_id: 'someone-else', path: '.', incremental: true });
  });

  it('is per agent: an agent that saw the new version, or never saw the file, is not stale', async () => {
    await h.call('activate', { agent_id: 's2', query: 'doubles a value' });
    const { json } = await h.call('am_i_stale', { agent_id: 's2' });
    assert.equal(json.stale_count, 0);
    assert.ok(json.fresh.includes('src/c.ts'));
    const none = (await h.call('am_i_stale', { agent_id: 's3' })).json;
    assert.equal(none.checked, 0);
    assert.match(none.note, /nothing to check/);
  });

  it('checks given files and nodes: vanished files, files changed during the session, unknown nodes', async () => {
    await h.call('why', { agent_id: 's4', source: 'a', target: 'd' });
    // File times come from the kernel's coarse clock (a few ms behind Date.now()): edit a little later.
    await new Promise((r) => setTimeout(r, 50));
    fs.rmSync(path.join(h.workspace, 'src/d.ts'));
    fs.appendFileSync(path.join(h.workspace, 'src/math.ts'), '// touched\n');
    const { json } = await h.call('am_i_stale', { agent_id: 's4', files: ['src/math.ts', './src/validate.ts'], nodes: ['function:src/d.ts#d', 'function:src/gone.ts#x'] });
    const byPath = Object.fromEntries(json.stale.map((s: { path: string; status: string }) => [s.path, s.status]));
    assert.deepEqual(byPath, { 'src/math.ts': 'changed_during_session', 'src/d.ts': 'vanished' });
    assert.deepEqual(json.fresh, ['src/validate.ts']);
    assert.deepEqual(json.unknown_nodes, ['function:src/gone.ts#x']);
    assert.equal(json.tracked.basis, 'given');
  });
});

describe('coverage_session and report', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture();
  });
  after(() => h.close());

  it('coverage_session says what this agent visited and which risky files it has not', async () => {
    await h.call('impact', { agent_id: 'c1', node_id: 'function:src/c.ts#c', direction: 'reverse' });
    await h.call('view', { agent_id: 'c1', file_path: 'src/math.ts' });
    const { json } = await h.call('coverage_session', { agent_id: 'c1' });
    assert.deepEqual(json.files, { visited: 4, total: 12, pct: 33.3 }, 'c, b and a from impact; math from view');
    assert.deepEqual(json.symbols, { visited: 6, total: 22, pct: 27.3 }, 'c, b, a from impact; clamp, scale, offset from viewing src/math.ts');
    assert.deepEqual(json.by_directory[0], { dir: 'src', visited: 4, total: 11, pct: 36.4 });
    assert.ok(json.unvisited_directories.includes('tests'));
    assert.deepEqual(
      json.unvisited_hotspots.map((x: { path: string }) => x.path),
      ['src/validate.ts', 'src/shapes.ts', 'src/d.ts', 'src/handlers.ts', 'src/norm-one.ts', 'src/norm-two.ts', 'src/render.ts'],
      'riskiest first, without a, b, c and math (visited)',
    );
    assert.equal(json.verbs.impact, 1);
    assert.equal(json.verbs.view, 1);
    const other = (await h.call('coverage_session', { agent_id: 'c2' })).json;
    assert.equal(other.files.visited, 0);
  });

  it('report summarises queries, time, graph size and hotspots, and caps its markdown', async () => {
    await h.call('activate', { agent_id: 'r1', query: 'handle' });
    await h.call('why', { agent_id: 'r1', source: 'a', target: 'c' });
    const { json } = await h.call('report', { agent_id: 'r1' });
    assert.equal(json.session.queries, 3, 'activate, why and this report');
    assert.deepEqual(json.session.by_verb, { activate: 1, why: 1, report: 1 });
    assert.deepEqual(json.recent_queries.map((q: { verb: string }) => q.verb), ['activate', 'why']);
    assert.equal(json.recent_queries[0].subject, 'handle');
    assert.deepEqual([json.graph.files, json.graph.generation], [12, 1]);
    assert.ok(json.graph.nodes > 30);
    assert.equal(json.hotspots[0].tested, false);
    assert.ok(json.hotspots.every((x: { path: string }) => !x.path.startsWith('tests/')), 'test files are not hotspots');
    assert.match(json.markdown, /^# Session report — r1\n/);
    assert.match(json.markdown, /## Riskiest files/);
    const capped = (await h.call('report', { agent_id: 'r1', max_output_chars: 200 })).json;
    assert.ok(capped.markdown.length <= 200);
    assert.equal(capped.markdown_truncated, true);
  });
});
