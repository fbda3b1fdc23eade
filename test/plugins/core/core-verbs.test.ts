import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countTokens } from '../../../core/index.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('core verbs on a fixture repository', function () {
  this.timeout(30000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
  });
  after(() => h.close());

  it('ingest builds the graph and reports progress notifications', async () => {
    const progress: number[] = [];
    const messages: string[] = [];
    const result = await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: ws } }, undefined, {
      onprogress: (p) => {
        progress.push(p.progress);
        assert.equal(p.total, 100);
        messages.push(p.message ?? '');
      },
    });
    const json = JSON.parse((result.content as { text: string }[])[0].text);
    assert.equal(json.mode, 'full');
    assert.equal(json.files.parsed, 6);
    // add, mul, total, testTotal, backoff, retry, Serve, listen; Cart and its checkout.
    assert.deepEqual([json.nodesByKind.function, json.nodesByKind.class, json.nodesByKind.method], [8, 1, 1], JSON.stringify(json.nodesByKind));
    // cart.ts → math.ts and cart.test.ts → cart.ts (time is external).
    assert.equal(json.edgesByRelation.imports, 2, JSON.stringify(json.edgesByRelation));
    // mul → add, total → add, checkout → total, testTotal → total, retry → backoff, Serve → listen.
    assert.equal(json.edgesByRelation.calls, 6, JSON.stringify(json.edgesByRelation));
    // One scale across phases: MCP progress must increase within a request.
    assert.ok(progress.every((p, i) => i === 0 || p > progress[i - 1]), `increasing: ${progress.join(', ')}`);
    assert.ok(messages.some((m) => m.startsWith('parse ')) && messages.some((m) => m.startsWith('persist ')), messages.join(' | '));
    assert.equal(progress.at(-1), 100, 'ends at 100 once the type checker is done');
    assert.match(messages.at(-1)!, /^type-check /);
  });

  it('keeps the store out of git: .m1nd/ holds its own .gitignore', async () => {
    assert.equal(fs.readFileSync(path.join(ws, '.m1nd/.gitignore'), 'utf8'), '*\n');
  });

  it('ingest refuses unsupported adapters and paths outside the workspace, naming the next call', async () => {
    const adapter = await h.call('ingest', { agent_id: 'a', path: '.', adapter: 'bibtex' });
    assert.equal(adapter.json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM');
    const outside = await h.call('ingest', { agent_id: 'a', path: os.tmpdir() });
    assert.equal(outside.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    assert.match(outside.json.error.hint, /--workspace/);
  });

  it('incremental ingest re-parses only the edited file', async () => {
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n');
    const { json } = await h.call('ingest', { agent_id: 'a', path: '.', incremental: true });
    assert.equal(json.files.parsed, 1);
    const seek = (await h.call('seek', { agent_id: 'a', query: 'sub' })).json;
    assert.equal(seek.results[0].id, 'function:src/math.ts#sub');
  });

  it('seek ranks a symbol by purpose and explains the score', async () => {
    const { json } = await h.call('seek', { agent_id: 'a', query: 'wait before retry', top_k: 3 });
    assert.equal(json.results[0].id, 'function:py/retry.py#backoff');
    assert.deepEqual(json.results[0].lines, [5, 7]);
    assert.ok(json.results[0].why.matched.includes('retry'));
    const typed = (await h.call('seek', { agent_id: 'a', query: 'cart', node_types: ['class'] })).json;
    assert.deepEqual(typed.results.map((r: { kind: string }) => r.kind), ['class']);
    const medulla = await h.call('seek', { agent_id: 'a', query: 'cart', tier: 'medulla' });
    assert.equal(medulla.json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM');
  });

  it('seek packs results into a token budget', async () => {
    const all = (await h.call('seek', { agent_id: 'a', query: 'cart', top_k: 20, min_score: 0 })).json.results;
    assert.ok(all.length >= 3, `needs three results to cut between: ${all.length}`);
    const cost = (r: unknown) => countTokens(JSON.stringify(r));
    // A budget that fits exactly the first two results: the third would not.
    const budget = cost(all[0]) + cost(all[1]) + Math.min(cost(all[2]) - 1, 3);
    const { json } = await h.call('seek', { agent_id: 'a', query: 'cart', top_k: 20, min_score: 0, token_budget: budget });
    assert.deepEqual(json.results, all.slice(0, 2), 'the longest ranked prefix that fits');
    assert.deepEqual(json.budget, { requested_tokens: budget, used_tokens: cost(all[0]) + cost(all[1]), kept: 2, dropped: all.length - 2 });
  });

  it('search finds literal text with context lines, regexes, counts and filename filters', async () => {
    const lit = (await h.call('search', { agent_id: 'a', query: 'add(', context_lines: 1 })).json;
    const where = lit.matches.map((m: { path: string; line: number }) => `${m.path}:${m.line}`);
    assert.ok(where.includes('src/cart.ts:5'), where.join(' '));
    const m = lit.matches.find((x: { path: string; line: number }) => x.path === 'src/cart.ts' && x.line === 5);
    assert.deepEqual(m.before, ['export function total(prices: number[]): number {']);
    const re = (await h.call('search', { agent_id: 'a', query: '^func \\w+', mode: 'regex', filename_pattern: '*.go' })).json;
    assert.deepEqual(re.matches.map((x: { line: number }) => x.line), [4, 8]);
    const count = (await h.call('search', { agent_id: 'a', query: 'return', count_only: true })).json;
    assert.ok(count.total_matches >= 8);
    assert.ok(count.counts.some((c: { path: string }) => c.path === 'go/server.go'));
    const sem = (await h.call('search', { agent_id: 'a', query: 'shopping cart prices', mode: 'semantic' })).json;
    assert.equal(sem.results[0].id, 'function:src/cart.ts#total');
  });

  it('view shows a numbered window and the symbols in it', async () => {
    const { json } = await h.call('view', { agent_id: 'a', file_path: 'src/cart.ts', offset: 2, limit: 4 });
    assert.deepEqual(json.lines, [3, 6]);
    assert.match(json.content, /^3│\/\*\* Totals/);
    assert.equal(json.next_offset, 6);
    assert.ok(json.symbols.some((s: { id: string }) => s.id === 'function:src/cart.ts#total'));
    assert.equal(json.note, undefined);
  });

  it('view past the end of a file says so and where its lines are, instead of an empty window alone', async () => {
    const { json } = await h.call('view', { agent_id: 'a', file_path: 'src/cart.ts', offset: 5000, limit: 10 });
    assert.equal(json.content, '');
    assert.deepEqual(json.lines, []);
    assert.match(json.note, new RegExp(`offset 5000 is past the end of the file \\(${json.total_lines} lines\\): pass an offset below ${json.total_lines}`));
  });

  it('refuses paths that leave the workspace: .., absolute outside, and symlinks that escape', async () => {
    for (const file_path of ['../outside.ts', '/etc/hostname']) {
      const { json } = await h.call('view', { agent_id: 'a', file_path });
      assert.equal(json.error.code, 'M1ND_ERR_PATH_ESCAPE', file_path);
    }
    const secret = path.join(tempDir(), 'secret.txt');
    fs.writeFileSync(secret, 'top secret');
    fs.symlinkSync(secret, path.join(ws, 'link.txt'));
    const link = await h.call('view', { agent_id: 'a', file_path: 'link.txt' });
    assert.equal(link.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    assert.doesNotMatch(JSON.stringify(link.json), /top secret/);
  });

  it('batch_view reads a glob within a token budget, with outlines', async () => {
    const { json } = await h.call('batch_view', { agent_id: 'a', files: ['src/*.ts'], max_lines_per_file: 3 });
    assert.deepEqual(json.files.map((f: { file_path: string }) => f.file_path), ['src/cart.ts', 'src/math.ts']);
    assert.ok(json.files[0].outline.some((o: { label: string }) => o.label === 'Cart'));
    const tight = (await h.call('batch_view', { agent_id: 'a', files: ['src/*.ts', 'py/retry.py'], token_budget: 100 })).json;
    assert.equal(tight.files.length, 1);
    assert.equal(tight.budget.dropped, 2);
    assert.deepEqual(tight.omitted_files, ['src/math.ts', 'py/retry.py']);
  });

  it('glob lists graph paths by pattern, by path or by centrality', async () => {
    const { json } = await h.call('glob', { agent_id: 'a', pattern: '**/*.ts' });
    assert.deepEqual(json.paths, ['src/cart.ts', 'src/math.ts', 'tests/cart.test.ts']);
    const ranked = (await h.call('glob', { agent_id: 'a', pattern: '*.ts', sort: 'activation' })).json;
    const ranks = ranked.paths.map((p: { pagerank: number }) => p.pagerank);
    assert.deepEqual(ranks, [...ranks].sort((x, y) => y - x), 'ordered by centrality');
    assert.equal(ranked.paths.at(-1).path, 'tests/cart.test.ts', 'a test nobody depends on ranks last');
  });

  it('glob reads a pattern anchored with "/" or spelled with the workspace path as workspace-relative, and says so when nothing matches', async () => {
    for (const pattern of ['/src/*.ts', `${ws}/src/*.ts`, './src/*.ts']) assert.deepEqual((await h.call('glob', { agent_id: 'a', pattern })).json.paths, ['src/cart.ts', 'src/math.ts'], pattern);
    const none = (await h.call('glob', { agent_id: 'a', pattern: 'lib/**/*.rs' })).json;
    assert.equal(none.total, 0);
    assert.match(none.note, /no file of the graph \(\d+ files\) matches "lib\/\*\*\/\*\.rs"; patterns are relative to the workspace root/);
  });

  it('metrics reports LOC, degrees and PageRank, sorted as asked', async () => {
    const { json } = await h.call('metrics', { agent_id: 'a', node_types: ['function', 'method'], sort: 'in_degree_desc', top_k: 50 });
    const degrees = json.nodes.map((n: { in_degree: number }) => n.in_degree);
    assert.deepEqual(degrees, [...degrees].sort((x, y) => y - x));
    const add = json.nodes.find((n: { id: string }) => n.id === 'function:src/math.ts#add');
    assert.ok(add.in_degree >= 3, 'add is contained by its file and called by mul and total');
    assert.equal(add.loc, 3);
    const files = (await h.call('metrics', { agent_id: 'a', scope: 'py' })).json;
    assert.equal(files.nodes[0].path, 'py/retry.py');
    assert.equal(files.nodes[0].loc, 16);
  });

  it('persist reports status, checkpoints, exports JSON atomically and loads a checkpoint back', async () => {
    const status = (await h.call('persist', { agent_id: 'a', action: 'status' })).json;
    assert.ok(status.generation >= 2);
    const cp = (await h.call('persist', { agent_id: 'a', action: 'checkpoint', path: 'before-edit' })).json;
    assert.equal(cp.checkpoint.name, 'before-edit');
    fs.rmSync(path.join(ws, 'go'), { recursive: true });
    await h.call('ingest', { agent_id: 'a', path: '.', incremental: true });
    assert.equal((await h.call('glob', { agent_id: 'a', pattern: '*.go' })).json.total, 0);
    const loaded = (await h.call('persist', { agent_id: 'a', action: 'load', path: 'before-edit' })).json;
    assert.equal(loaded.loaded, true);
    const saved = (await h.call('persist', { agent_id: 'a', action: 'save', path: 'out/graph.json' })).json;
    const exported = JSON.parse(fs.readFileSync(path.join(ws, 'out/graph.json'), 'utf8'));
    assert.equal(exported.nodes.length, saved.exported.nodes);
    const bad = await h.call('persist', { agent_id: 'a', action: 'load' });
    assert.match(bad.json.error.hint, /before-edit/);
  });
});

describe('core verbs in read-only mode', function () {
  it('refuses ingest and persist writes but serves persist status and queries', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'w', path: '.' });
    await writer.close();
    const h = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1' } });
    try {
      assert.equal((await h.call('ingest', { agent_id: 'a', path: '.' })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      assert.equal((await h.call('persist', { agent_id: 'a', action: 'checkpoint' })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      assert.equal((await h.call('persist', { agent_id: 'a', action: 'status' })).json.generation, 1, "the writer's one ingest, and the refused one made none");
      assert.equal((await h.call('seek', { agent_id: 'a', query: 'backoff' })).json.results[0].label, 'backoff');
    } finally {
      await h.close();
    }
  });
});

describe('core doctrine', function () {
  it('names only verbs the served tier advertises, and says how to reach the others', async () => {
    const full = await connect({ env: { M1ND_TOOL_TIER: 'essential' } });
    const narrow = await connect({ config: { tiers: { tiny: { extends: 'essential', remove: ['seek', 'view'] } }, tier: 'tiny' } });
    try {
      const a = full.client.getInstructions() ?? '';
      assert.match(a, /then seek \(by purpose\)/);
      const b = narrow.client.getInstructions() ?? '';
      assert.match(b, /seek \(not listed here; callable, see help\)/);
      assert.match(b, /help/);
    } finally {
      await full.close();
      await narrow.close();
    }
  });
});
