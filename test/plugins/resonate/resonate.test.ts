import assert from 'node:assert/strict';
import { writeCallMesh } from '../../helpers/call-mesh.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { pingDuring } from '../../helpers/ping.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('resonate (back-compat)', function () {
  this.timeout(60000);

  for (const [tier, readOnly] of [
    ['essential', '0'],
    ['full', '0'],
    ['full', '1'],
  ] as const) {
    it(`is absent from tools/list in tier ${tier}${readOnly === '1' ? ' (read-only)' : ''}, yet callable and listed by help as back-compat`, async () => {
      const ws = writeFixtureRepo(tempDir());
      if (readOnly === '1') {
        const writer = await connect({ workspaceRoot: ws });
        await writer.call('ingest', { agent_id: 'a', path: ws });
        await writer.close();
      }
      const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: tier, M1ND_READ_ONLY: readOnly } });
      try {
        if (readOnly === '0') await h.call('ingest', { agent_id: 'a', path: ws });
        assert.ok(!(await h.client.listTools()).tools.some((t) => t.name === 'resonate'));
        const r = await h.call('resonate', { agent_id: 'a', query: 'cart total' });
        assert.equal(r.result.isError, undefined, JSON.stringify(r.json).slice(0, 300));
        assert.equal(r.json.seeds[0], 'function:src/cart.ts#total');
        assert.deepEqual([r.json.modes[0].mode, r.json.modes[0].eigenvalue, r.json.modes[0].strongest[0].id], [1, 1, 'function:src/cart.ts#total'], 'the main body, led by the best seed');
        const overview = (await h.call('help', { agent_id: 'a', render: 'none' })).json;
        assert.deepEqual(overview.back_compat.find((b: { name: string }) => b.name === 'resonate'), { name: 'resonate', use_instead: 'activate' });
        const doc = (await h.call('help', { agent_id: 'a', tool_name: 'resonate', render: 'none' })).json;
        assert.equal(doc.callable, true);
        assert.deepEqual(doc.advertised_in, []);
        assert.equal(doc.use_instead, 'activate');
        assert.deepEqual(doc.parameters.map((p: { name: string }) => p.name), ['query', 'node_id', 'agent_id', 'top_k']);
      } finally {
        await h.close();
      }
    });
  }
});

describe('resonate analysis', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('finds the dominant modes of the subgraph around a query, the first being its main body', async () => {
    const { json } = await h.call('resonate', { agent_id: 'a', query: 'cart total' });
    assert.ok(json.seeds.includes('function:src/cart.ts#total'));
    assert.ok(json.subgraph.nodes > 5);
    const eigen = json.modes.map((m: { eigenvalue: number }) => m.eigenvalue);
    assert.ok(Math.abs(eigen[0] - 1) < 1e-3, `the normalised adjacency's top eigenvalue is 1 (got ${eigen[0]})`);
    assert.deepEqual(eigen, [...eigen].sort((a: number, b: number) => b - a), 'modes come strongest first');
    assert.equal(json.modes[0].strongest[0].id, 'function:src/cart.ts#total', 'the best seed leads the main body');
    // The second mode splits the docs from the math code (which pole is positive is the eigenvector's sign).
    const poles = [json.modes[1].poles.positive, json.modes[1].poles.negative].map((p: { id: string }[]) => p.map((x) => x.id));
    const docs = poles.find((p) => p.includes('section:docs/guide.md#Guide'))!;
    const math = poles.find((p) => p.includes('file:src/math.ts'))!;
    assert.ok(docs && math && docs !== math, JSON.stringify(poles));
    assert.ok(docs.includes('file:docs/guide.md') && math.includes('function:src/math.ts#add'), JSON.stringify(poles));
  });

  it('pairs nodes that respond alike — add and mul, both in math.ts and linked to each other — and explains the score', async () => {
    const { json } = await h.call('resonate', { agent_id: 'a', node_id: 'function:src/math.ts#add', top_k: 5 });
    const pair = json.pairs.find((p: { a: { id: string }; b: { id: string } }) => [p.a.id, p.b.id].sort().join() === 'function:src/math.ts#add,function:src/math.ts#mul');
    assert.ok(pair, JSON.stringify(json.pairs));
    assert.ok(pair.score > 0.5 && pair.score <= 1);
    assert.equal(pair.linked, true);
    assert.match(pair.why, /load alike on modes .* \(cosine [0-9.]+\)/);
    assert.ok(json.pairs.length <= 5, 'top_k bounds the pairs');
    const scores = json.pairs.map((p: { score: number }) => p.score);
    assert.deepEqual(scores, [...scores].sort((a: number, b: number) => b - a));
    assert.ok(!json.pairs.some((p: { a: { id: string }; b: { id: string } }) => [p.a.id, p.b.id].includes('file:src/math.ts') && [p.a.id, p.b.id].some((x) => x.startsWith('function:src/math.ts'))), 'a container is never paired with its own content');
  });

  it('refuses a call with neither query nor node_id, and an unknown node', async () => {
    const none = await h.call('resonate', { agent_id: 'a' });
    assert.equal(none.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
    assert.match(none.json.error.hint, /activate/);
    const unknown = await h.call('resonate', { agent_id: 'a', node_id: 'function:src/math.ts#nope' });
    assert.equal(unknown.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
  });
});

describe('resonate on a dense neighbourhood', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    // 30 modules × 10 functions, each calling four functions of other modules: a module's two-hop neighbourhood
    // (the modules it imports and is imported by, their functions) holds the 300 nodes resonate analyses at most.
    const ws = tempDir();
    writeCallMesh(ws, { modules: 30, functions: 10, calls: (m, i) => [1, 7, 13, 19].map((d) => [(m + d + i) % 30, (i * 3 + d) % 10] as const) });
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('analyses 300 nodes in slices: no ping waits on more than 50 ms of main-thread work, and the answer is whole', async () => {
    await h.call('resonate', { agent_id: 'a', node_id: 'file:src/m0.ts' }); // warm: graph, index, compiled code
    const { result, held } = await pingDuring(h, () => h.call('resonate', { agent_id: 'a', node_id: 'file:src/m0.ts' }));
    assert.equal(result.json.subgraph.nodes, 300, JSON.stringify(result.json.subgraph));
    assert.equal(result.json.modes.length, 4);
    assert.ok(result.json.pairs.length > 0);
    assert.ok(Math.max(...held) < 50, `longest main-thread stretch ${Math.max(...held).toFixed(1)} ms`);
  });
});

describe('resonate pairs nodes by the structure the subgraph holds of them', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    // p and q are two hops from seed, each reached through mid alone; everything else they call lies
    // outside the subgraph, and it differs. Their loadings rest on the one link left: cosine 1.
    const files: Record<string, string> = {
      'src/seed.ts': "import { mid } from './mid.ts';\n\nexport function seed(): number {\n  return mid(1);\n}\n",
      'src/mid.ts': 'export function mid(n: number): number {\n  return n + 1;\n}\n',
    };
    for (const who of ['p', 'q']) {
      const callees = [1, 2, 3, 4].map((k) => `${who}${k}`);
      files[`src/${who}.ts`] = `import { mid } from './mid.ts';\n${callees.map((c) => `import { ${c} } from './lib/${c}.ts';`).join('\n')}\n\nexport function ${who}(): number {\n  return mid(${callees.map((c) => `${c}()`).join(' + ')});\n}\n`;
      for (const c of callees) files[`src/lib/${c}.ts`] = `export function ${c}(): number {\n  return ${c.length};\n}\n`;
    }
    const ws = writeFixtureRepo(tempDir(), files);
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('does not pair two edge nodes that look alike only because their other links are cut off', async () => {
    const { json } = await h.call('resonate', { agent_id: 'a', node_id: 'function:src/seed.ts#seed', top_k: 100 });
    const ids = (json.pairs as { a: { id: string }; b: { id: string } }[]).map((p) => [p.a.id, p.b.id].sort().join(' '));
    assert.ok(!ids.includes('function:src/p.ts#p function:src/q.ts#q'), JSON.stringify(json.pairs));
    for (const p of json.pairs) assert.ok(p.score <= p.cosine && p.score > 0.5, JSON.stringify(p));
  });
});
