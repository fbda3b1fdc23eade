import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from '../../../../core/index.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { ANALYSIS_FILES, ids, ingestedFixture } from './analysis-fixture.ts';

describe('graph query verbs on a repository with known answers', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture();
  });
  after(() => h.close());

  it('impact of c in reverse lists b as its direct caller and a as transitive, with the chain that reaches it', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/c.ts#c', direction: 'reverse' });
    assert.deepEqual(json.direct, [{ id: 'function:src/b.ts#b', relation: 'calls', confidence: 1, line: 5 }]);
    const a = json.transitive.entries.find((e: { id: string }) => e.id === 'function:src/a.ts#a');
    assert.equal(a.depth, 2);
    assert.equal(a.weakest, 1);
    assert.deepEqual(a.chain, ['function:src/c.ts#c', '<-calls-', 'function:src/b.ts#b', '<-calls-', 'function:src/a.ts#a']);
    const all = [...ids(json.direct), ...ids(json.transitive.entries)];
    assert.ok(!all.includes('function:src/d.ts#d'), 'the side branch does not depend on c');
    assert.deepEqual(json.structure, ['file:src/c.ts'], 'the file holding c is structure, not a dependent');
    assert.deepEqual(ids(json.transitive.entries), ['function:src/a.ts#a'], 'the files holding b and a are counted, not listed');
    assert.equal(json.transitive.count, 3);
    assert.equal(json.import_fanout.count, 0, 'b.ts and a.ts are reached better through b and a than through their imports');
    const full = (await h.call('impact', { agent_id: 'q', node_id: 'function:src/c.ts#c', direction: 'reverse', detail: 'full' })).json;
    assert.deepEqual(ids(full.transitive.entries), ['function:src/a.ts#a', 'file:src/b.ts', 'file:src/a.ts']);
  });

  it('impact forward from a reaches what a needs (b, d direct; c transitive), without causal chains when asked', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'a', direction: 'forward', include_causal_chains: false, max_depth: 2 });
    assert.equal(json.node.id, 'function:src/a.ts#a');
    assert.deepEqual(json.resolved_from, { text: 'a', via: 'label' });
    assert.deepEqual(ids(json.direct), ['function:src/b.ts#b', 'function:src/d.ts#d']);
    assert.deepEqual(ids(json.transitive.entries), ['function:src/c.ts#c']);
    assert.equal(json.transitive.entries[0].chain, undefined);
    const shallow = (await h.call('impact', { agent_id: 'q', node_id: 'a', direction: 'forward', max_depth: 1 })).json;
    assert.deepEqual(shallow.transitive, { count: 0, by_depth: {}, entries: [] }, 'max_depth 1 stops before c');
  });

  it('impact walks reverse by default (the blast radius: who depends on c) and says so', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'c', include_causal_chains: false });
    assert.equal(json.direction, 'reverse');
    assert.deepEqual(ids(json.direct), ['function:src/b.ts#b']);
    assert.ok(ids(json.transitive.entries).includes('function:src/a.ts#a'), 'a calls b, which calls c');
  });

  it('why from a to c gives the call path, explained edge by edge', async () => {
    const { json } = await h.call('why', { agent_id: 'q', source: 'function:src/a.ts#a', target: 'function:src/c.ts#c' });
    assert.equal(json.found, true);
    const best = json.paths[0];
    assert.equal(best.line, 'a -calls-> b -calls-> c');
    assert.deepEqual(best.steps.map((s: { says: string }) => s.says), ['`a` calls `b`', '`b` calls `c`']);
    const back = (await h.call('why', { agent_id: 'q', source: 'c', target: 'a' })).json;
    assert.equal(back.paths[0].line, 'c <-calls- b <-calls- a', 'walked against the edges, and said so');
    assert.equal(back.paths[0].steps[0].direction, 'backward');
    assert.equal(back.paths[0].steps[0].says, '`c` is called by `b`');
  });

  it('why respects max_hops and says when two nodes are not connected at all', async () => {
    const tight = (await h.call('why', { agent_id: 'q', source: 'function:src/a.ts#a', target: 'function:src/c.ts#c', max_hops: 1 })).json;
    assert.equal(tight.found, false);
    assert.match(tight.note, /raise max_hops/);
    const apart = (await h.call('why', { agent_id: 'q', source: 'function:src/math.ts#clamp', target: 'class:src/shapes.ts#Shape' })).json;
    assert.equal(apart.found, false);
    assert.match(apart.note, /not connected/);
  });

  it('counterfactual removing b cuts c off and leaves a broken, but keeps the side branch d', async () => {
    const { json } = await h.call('counterfactual', { agent_id: 'q', node_ids: ['function:src/b.ts#b'] });
    assert.deepEqual(ids(json.orphaned), ['function:src/c.ts#c']);
    assert.deepEqual(ids(json.broken), ['function:src/a.ts#a']);
    assert.match(json.broken[0].edge, /a -calls-> function:src\/b\.ts#b/);
    assert.ok(ids(json.cascade).includes('function:src/a.ts#a'));
    assert.equal(json.reachability.lost, 2, 'b and c');
    const file = (await h.call('counterfactual', { agent_id: 'q', node_ids: ['src/b.ts'], include_cascade: false })).json;
    assert.equal(file.removed_with_contents, 2, 'the file and the function it contains');
    assert.deepEqual(ids(file.orphaned).sort(), ['file:src/c.ts', 'function:src/c.ts#c'], 'first ring only: c.ts lost its only importer, c its only caller');
    assert.equal(file.cascade, undefined);
  });

  it('missing finds the handler that does not validate and the one that is not tested', async () => {
    const { json } = await h.call('missing', { agent_id: 'q', query: 'handle request' });
    const edge = json.holes.find((x: { kind: string }) => x.kind === 'missing_edge');
    assert.equal(edge.node.id, 'function:src/handlers.ts#handleList');
    assert.deepEqual(edge.expected, { relation: 'calls', target: 'function:src/validate.ts#validate' });
    assert.match(edge.evidence, /3 of 4 sibling functions/);
    const untested = json.holes.find((x: { kind: string }) => x.kind === 'untested');
    assert.equal(untested.node.id, 'function:src/handlers.ts#handleDelete');
    const strict = (await h.call('missing', { agent_id: 'q', query: 'handle request', min_sibling_activation: 1 })).json;
    assert.ok(strict.reference_points <= 1, 'only the best node is a reference point at 1.0');
  });

  it('fingerprint finds the duplicated normalizer, against a target and over the whole graph', async () => {
    const one = (await h.call('fingerprint', { agent_id: 'q', target_node: 'normalizeOne' })).json;
    assert.deepEqual(one.matches.map((m: { node: { id: string } }) => m.node.id), ['function:src/norm-two.ts#normalizeTwo']);
    assert.equal(one.matches[0].similarity, 1);
    assert.deepEqual(one.matches[0].shared.sort(), ['calls function clamp', 'calls function offset', 'calls function scale']);
    const all = (await h.call('fingerprint', { agent_id: 'q', similarity_threshold: 0.9 })).json;
    const pairs = all.pairs.map((p: { a: { label: string }; b: { label: string } }) => [p.a.label, p.b.label].sort().join('~'));
    assert.ok(pairs.includes('normalizeOne~normalizeTwo'), pairs.join(' '));
    assert.ok(pairs.includes('Circle~Square'), 'two subclasses with the same members');
    assert.ok(!pairs.some((p: string) => p.includes('handleList')), 'a handler that calls nothing has too little structure to compare');
  });

  it('fingerprint probes score near-identical nodes high and unrelated ones low, one dimension per probe seed', async () => {
    const probes = ['clamp scale offset', 'handle validate', 'shape area', 'chain'];
    const all = (await h.call('fingerprint', { agent_id: 'q', probe_queries: probes, similarity_threshold: 0, top_k: 200 })).json;
    assert.equal(all.response_note, undefined, 'four probes find enough seeds');
    const byPair = new Map<string, { response: number; similarity: number; jaccard: number }>(
      all.pairs.map((p: { a: { label: string }; b: { label: string }; response: number; similarity: number; jaccard: number }) => [[p.a.label, p.b.label].sort().join('~'), p]),
    );
    const twins = byPair.get('normalizeOne~normalizeTwo')!;
    assert.equal(twins.response, 1, 'the same seeds reach both with the same strength');
    assert.equal(twins.similarity, 1);
    const unrelated = byPair.get('a~normalizeOne')!;
    assert.ok(unrelated.response < 0.2, `a and normalizeOne share no seed's walk: ${unrelated.response}`);
    assert.ok(unrelated.similarity < 0.2, `a constant response of 1 would lift this to ≥ 0.5: ${unrelated.similarity}`);
    const subclasses = byPair.get('Circle~Square')!;
    assert.ok(subclasses.response > 0.6 && subclasses.response < 0.95, `each subclass's own area() seed reaches it first: ${subclasses.response}`);
    // The evidence rule: the handlers (one feature: calls validate) and b/c are never compared.
    for (const key of byPair.keys()) assert.ok(!/handle|^b~|~b$|^c~|~c$/.test(key), `a node with < 2 signature features was scored: ${key}`);
    const oneFeature = (await h.call('fingerprint', { agent_id: 'q', target_node: 'handleCreate', probe_queries: probes, similarity_threshold: 0 })).json;
    assert.deepEqual(oneFeature.matches, [], 'a target with one feature has too little evidence, probes or not');
  });

  it('fingerprint with too few probe seeds reports no response and says why', async () => {
    const probed = (await h.call('fingerprint', { agent_id: 'q', target_node: 'normalizeOne', probe_queries: ['clamp scale offset'], similarity_threshold: 0 })).json;
    assert.match(probed.response_note, /found 3 seed\(s\); a response needs at least 4 dimensions/);
    assert.deepEqual(probed.matches.map((m: { node: { label: string } }) => m.node.label), ['normalizeTwo'], 'only nodes the probe reaches are compared');
    assert.equal(probed.matches[0].response, undefined);
    assert.equal(probed.matches[0].similarity, 1, 'structural only');
  });

  it('fingerprint refuses a target it cannot compare, naming the kinds it does', async () => {
    const { json, result } = await h.call('fingerprint', { agent_id: 'q', target_node: 'src/math.ts' });
    assert.equal(result.isError, true);
    assert.equal(json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM');
    assert.match(json.error.message, /function, method, class/);
  });

  it('type_trace lists the subclasses and the function calling a Shape method, grouped by file', async () => {
    const { json } = await h.call('type_trace', { agent_id: 'q', target: 'Shape' });
    assert.equal(json.target.id, 'class:src/shapes.ts#Shape');
    // `shape.area()` on a parameter typed Shape: the type checker resolves it to Shape.area.
    assert.deepEqual(json.by_use, { subtype: 2, 'construction or call': 1 });
    assert.deepEqual(json.files.map((f: { path: string; uses: number }) => [f.path, f.uses]), [['src/shapes.ts', 2], ['src/render.ts', 1]]);
    assert.equal(json.files[1].nodes[0].via, 'area <-calls- render');
    const flat = (await h.call('type_trace', { agent_id: 'q', target: 'Circle', direction: 'reverse', group_by_file: false })).json;
    assert.deepEqual(ids(flat.uses), ['class:src/shapes.ts#Shape'], 'Circle builds on Shape');
  });

  it('diagram draws the neighbourhood of b in Mermaid and the top nodes of a scope in DOT', async () => {
    const m = (await h.call('diagram', { agent_id: 'q', center: 'function:src/b.ts#b', depth: 1 })).json;
    const key = (id: string) => m.nodes.find((n: { id: string }) => n.id === id).key;
    assert.match(m.diagram, /^flowchart TD\n/);
    assert.ok(m.diagram.includes(`${key('function:src/b.ts#b')} -->|calls| ${key('function:src/c.ts#c')}`));
    assert.ok(m.diagram.includes(`${key('function:src/a.ts#a')} -->|calls| ${key('function:src/b.ts#b')}`));
    const dot = (await h.call('diagram', { agent_id: 'q', format: 'dot', scope: 'src/shapes.ts', node_types: ['class'], direction: 'LR', show_pagerank: true })).json;
    assert.match(dot.diagram, /^digraph m1nd \{\n {2}rankdir=LR;/);
    assert.equal(dot.nodes.length, 3);
    assert.match(dot.diagram, /label="Circle \(class\) pr [\d.]+"/);
    assert.match(dot.diagram, /-> n\d \[label="inherits"\]/);
  });

  it('diagram without a center draws the most central nodes, best first, and a smaller max_nodes keeps the same head', async () => {
    const all = (await h.call('diagram', { agent_id: 'q', max_nodes: 200, show_pagerank: true })).json;
    const pr = [...all.diagram.matchAll(/\bpr ([\d.]+)"\]/g)].map((m: RegExpMatchArray) => Number(m[1]));
    assert.equal(pr.length, all.nodes.length);
    assert.ok(all.nodes.length > 5);
    for (let k = 1; k < pr.length; k++) assert.ok(pr[k] <= pr[k - 1], `pagerank order at ${k}: ${pr[k - 1]} then ${pr[k]}`);
    assert.ok(!all.nodes.some((n: { id: string }) => n.id.startsWith('module:')), 'modules are left out unless node_types asks');
    const head = (await h.call('diagram', { agent_id: 'q', max_nodes: 4 })).json;
    assert.deepEqual(head.nodes.map((n: { id: string }) => n.id), all.nodes.slice(0, 4).map((n: { id: string }) => n.id));
  });

  it('focus picks the chain functions within the token budget and says what it left out', async () => {
    const { json } = await h.call('focus', { agent_id: 'q', goal: 'chain', token_budget: 60 });
    assert.ok(json.used_tokens <= 60);
    const picked = ids(json.selected);
    for (const f of ['function:src/a.ts#a', 'function:src/b.ts#b', 'function:src/c.ts#c']) assert.ok(picked.includes(f), picked.join(' '));
    assert.ok(json.left_out.some((l: { id: string; reason: string }) => l.id === 'file:src/b.ts' && l.reason === 'covered_by_parts'));
    assert.deepEqual(json.load.find((l: { file_path: string }) => l.file_path === 'src/c.ts'), { file_path: 'src/c.ts', offset: 1, limit: 3 });
    assert.equal(json.sufficiency, 'sufficient');
    const tiny = (await h.call('focus', { agent_id: 'q', goal: 'chain', token_budget: 5 })).json;
    assert.equal(tiny.selected.length, 0);
    assert.ok(tiny.left_out_by_reason.over_budget >= 3);
    assert.equal(tiny.sufficiency, 'insufficient');
  });

  it('activate ranks matching nodes with per-dimension scores and explains the others by their path', async () => {
    const { json } = await h.call('activate', { agent_id: 'q', query: 'handle', top_k: 10 });
    const top4 = ids(json.results.slice(0, 4)).sort();
    assert.deepEqual(top4, ['function:src/handlers.ts#handleCreate', 'function:src/handlers.ts#handleDelete', 'function:src/handlers.ts#handleList', 'function:src/handlers.ts#handleUpdate']);
    assert.deepEqual(json.dimensions, ['structural', 'semantic', 'causal']);
    assert.deepEqual(json.unavailable, { temporal: 'no git history in the graph' });
    const validate = json.results.find((r: { id: string }) => r.id === 'function:src/validate.ts#validate');
    assert.equal(validate.dims.semantic, 0, 'reached structurally, not by its name');
    assert.match(validate.why, /^handle\w+ -calls-> validate$/);
    const semantic = (await h.call('activate', { agent_id: 'q', query: 'handle', dimensions: ['semantic'] })).json;
    assert.deepEqual(semantic.dimensions, ['semantic']);
    assert.ok(!ids(semantic.results).includes('function:src/validate.ts#validate'), 'without propagation only name matches remain');
    assert.deepEqual(Object.keys(semantic.results[0].dims), ['semantic']);
  });

  it('activate refuses dimensions it cannot compute, packs a token budget and lists structural holes', async () => {
    const temporal = await h.call('activate', { agent_id: 'q', query: 'handle', dimensions: ['temporal'] });
    assert.equal(temporal.json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM');
    assert.match(temporal.json.error.message, /temporal \(no git history/);
    const unpacked = (await h.call('activate', { agent_id: 'q', query: 'handle' })).json.results;
    const cost = (r: unknown) => countTokens(JSON.stringify(r));
    const budget = cost(unpacked[0]) + cost(unpacked[1]) + Math.min(cost(unpacked[2]) - 1, 3);
    const packed = (await h.call('activate', { agent_id: 'q', query: 'handle', token_budget: budget })).json;
    assert.deepEqual(packed.results, unpacked.slice(0, 2), 'the longest ranked prefix that fits');
    assert.deepEqual([packed.budget.kept, packed.budget.dropped], [2, unpacked.length - 2]);
    const holes = (await h.call('activate', { agent_id: 'q', query: 'handle', top_k: 4, include_structural_holes: true })).json;
    const sorted = (xs: string[]) => [...xs].sort();
    const H = (n: string) => `function:src/handlers.ts#${n}`;
    assert.deepEqual(sorted(ids(holes.results)), sorted([H('handleCreate'), H('handleUpdate'), H('handleList'), H('handleDelete')]));
    // Outside the four handlers and linked to at least two of them: their file, the test file and function, validate.
    assert.deepEqual(
      holes.structural_holes.map((x: { id: string; connects: string[] }) => [x.id, sorted(x.connects)]),
      [
        ['file:src/handlers.ts', sorted([H('handleCreate'), H('handleUpdate'), H('handleList'), H('handleDelete')])],
        ['function:src/validate.ts#validate', sorted([H('handleCreate'), H('handleUpdate'), H('handleDelete')])],
        ['file:tests/handlers.test.ts', sorted([H('handleCreate'), H('handleUpdate'), H('handleList')])],
        ['function:tests/handlers.test.ts#testHandlers', sorted([H('handleCreate'), H('handleUpdate'), H('handleList')])],
      ],
      'ranked by the summed score of the results they connect',
    );
    const scoreOf = new Map(holes.results.map((r: { id: string; score: number }) => [r.id, r.score]));
    for (const hole of holes.structural_holes as { connects: string[]; support: number }[]) {
      assert.ok(Math.abs(hole.support - hole.connects.reduce((sum, id) => sum + (scoreOf.get(id) as number), 0)) < 0.01, 'support is the sum of the connected results\' scores');
    }
    const chain = (await h.call('activate', { agent_id: 'q', query: 'chain', top_k: 3, include_structural_holes: true })).json;
    assert.deepEqual(chain.structural_holes, [], 'a, b and c are linked directly: nothing outside bridges them');
    assert.deepEqual(chain.ghost_edges, { note: 'no co-change edges: the workspace has no git history in the graph' });
  });

  it('activate never changes weights: the same query twice gives the same scores', async () => {
    const first = (await h.call('activate', { agent_id: 'q', query: 'shape area' })).json;
    const second = (await h.call('activate', { agent_id: 'q', query: 'shape area' })).json;
    assert.deepEqual(second.results, first.results);
  });
});

describe('activate over a git repository', function () {
  this.timeout(60000);
  it('uses the temporal dimension and reports files that change together without a static edge as ghost edges', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-git-'), ANALYSIS_FILES);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: ws, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'initial');
    for (const n of [1, 2]) {
      fs.appendFileSync(path.join(ws, 'src/c.ts'), `// change ${n}\n`);
      fs.appendFileSync(path.join(ws, 'src/validate.ts'), `// change ${n}\n`);
      git('commit', '-qam', `change ${n}`);
    }
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'g', path: ws });
      const { json } = await h.call('activate', { agent_id: 'g', query: 'doubles checks', top_k: 10 });
      assert.deepEqual(json.dimensions, ['structural', 'semantic', 'temporal', 'causal']);
      assert.ok(json.results.find((r: { id: string }) => r.id === 'function:src/c.ts#c').dims.temporal > 0);
      assert.deepEqual(json.ghost_edges.map((e: { files: string[] }) => e.files), [['src/c.ts', 'src/validate.ts']]);
      const off = (await h.call('activate', { agent_id: 'g', query: 'doubles checks', include_ghost_edges: false })).json;
      assert.equal(off.ghost_edges, undefined);
    } finally {
      await h.close();
    }
  });
});
