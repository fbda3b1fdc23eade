import { strict as assert } from 'node:assert';
import { rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import type { SourceParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { FIXTURE_FILES } from './fixture-repo.ts';
import { git, removeWorkspace, writeFiles, writeWorkspace } from './helpers.ts';

function edgeList(engine: CodeGraphEngine, relation: string): string[] {
  const g = engine.graph;
  const out: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const ed = g.edge(e);
    if (ed && ed.relation === relation) out.push(`${ed.source} -> ${ed.target}`);
  }
  return out.sort();
}

describe('CodeGraphEngine on a multi-language repository', function () {
  this.timeout(30_000);
  let root: string;
  let engine: CodeGraphEngine;

  before(async () => {
    root = writeWorkspace(FIXTURE_FILES);
    engine = new CodeGraphEngine({ root });
    await engine.open();
    await engine.ingest();
  });
  after(async () => {
    await engine.close();
    removeWorkspace(root);
  });

  it('creates nodes for every language with their line ranges', () => {
    const span = (id: string): string => {
      const n = engine.getNode(id);
      return n ? `${n.kind} ${n.startLine}-${n.endLine}` : 'missing';
    };
    assert.equal(span('class:py/app/models.py#User'), 'class 6-11');
    assert.equal(span('method:py/app/models.py#User.rename'), 'method 9-11');
    assert.equal(span('function:py/app/util.py#helper'), 'function 1-3');
    assert.equal(engine.getNode('function:py/app/util.py#helper')!.doc, 'Return x doubled.');
    assert.equal(span('class:ts/src/greeter.ts#Greeter'), 'class 5-9');
    assert.equal(span('interface:ts/src/greeter.ts#Greeting'), 'interface 1-3');
    assert.equal(span('function:go/store/store.go#Open'), 'function 4-6');
    assert.equal(span('method:rs/src/graph.rs#Node.new'), 'method 4-6');
    assert.equal(span('method:java/src/main/java/com/acme/util/Strings.java#Strings.shout'), 'method 4-6');
    assert.equal(span('section:README.md#Demo.TypeScript'), 'section 3-4');
    assert.ok(engine.getNode('module:py/app'));
  });

  it('resolves imports file to file in each language', () => {
    const imports = edgeList(engine, 'imports');
    for (const e of [
      'file:py/app/main.py -> file:py/app/models.py',
      'file:py/tests/test_main.py -> file:py/app/main.py',
      'file:ts/src/index.ts -> file:ts/src/greeter.ts',
      'file:go/cmd/main.go -> file:go/store/store.go',
      'file:rs/src/lib.rs -> file:rs/src/graph.rs',
      'file:java/src/main/java/com/acme/App.java -> file:java/src/main/java/com/acme/util/Strings.java',
    ]) assert.ok(imports.includes(e), e);
    assert.deepEqual(engine.unresolvedImports().map((u) => `${u.from} ${u.specifier}`), ['py/app/main.py os']);
  });

  it('resolves calls function to function across files and languages', () => {
    const calls = edgeList(engine, 'calls');
    for (const e of [
      'function:py/app/main.py#run -> function:py/app/util.py#helper',
      'method:py/app/models.py#User.rename -> method:py/app/models.py#Base.save',
      'function:ts/src/index.ts#main -> class:ts/src/greeter.ts#Greeter',
      'method:ts/src/greeter.ts#Greeter.greet -> function:ts/src/greeter.ts#format',
      'function:go/cmd/main.go#main -> function:go/store/store.go#Open',
      'function:rs/src/lib.rs#build -> method:rs/src/graph.rs#Node.new',
      'method:java/src/main/java/com/acme/App.java#App.main -> method:java/src/main/java/com/acme/util/Strings.java#Strings.shout',
    ]) assert.ok(calls.includes(e), e);
  });

  it('links tests, docs and inheritance', () => {
    assert.deepEqual(edgeList(engine, 'inherits'), ['class:py/app/models.py#User -> class:py/app/models.py#Base']);
    const tests = edgeList(engine, 'tests');
    assert.ok(tests.includes('file:py/tests/test_main.py -> file:py/app/main.py'));
    assert.ok(tests.includes('file:ts/src/index.test.ts -> file:ts/src/index.ts'));
    const docs = edgeList(engine, 'documents');
    assert.ok(docs.includes('section:README.md#Demo -> file:py/app/main.py'));
    assert.ok(docs.includes('section:README.md#Demo.TypeScript -> method:ts/src/greeter.ts#Greeter.greet'));
  });

  it('reports the skip list with reasons and respects .gitignore', async () => {
    const summary = await engine.ingest();
    const skipped = summary.skipped.map((s) => `${s.path} ${s.reason}`).sort();
    assert.deepEqual(skipped, ['ignored/ gitignored', 'py/app/generated_pb2.py generated', 'py/app/scratch.tmp.py gitignored', 'vendor/ vendored', 'web/dist/ build_output', 'web/lib.min.js minified']);
    assert.equal(engine.getNode('file:ignored/skip.py'), null);
    assert.equal(summary.files.scanned, 16);
    assert.equal(summary.nodes, engine.graph.nodeCount);
    assert.ok(summary.edgesByRelation.calls > 0);
    assert.equal(summary.edgesByRelation.calls, edgeList(engine, 'calls').length, 'the summary counts the graph it built');
    assert.equal(typeof summary.phases.parse, 'number');
  });

  it('finds nodes by id, path, path:line, label and qualified name', () => {
    assert.equal(engine.resolveNode('py/app/util.py')!.id, 'file:py/app/util.py');
    assert.equal(engine.resolveNode('py/app/models.py:10')!.id, 'method:py/app/models.py#User.rename');
    assert.equal(engine.resolveNode('helper')!.id, 'function:py/app/util.py#helper');
    assert.equal(engine.resolveNode('Greeter.greet')!.id, 'method:ts/src/greeter.ts#Greeter.greet');
    assert.equal(engine.findNodes('greeter')[0].node.id, 'class:ts/src/greeter.ts#Greeter');
    assert.throws(() => engine.requireNode('function:nope#x'), /no node with id/);
  });

  it('seeks by meaning-bearing tokens and searches file contents', () => {
    const seek = engine.seek('user rename');
    assert.equal(seek.results[0].id, 'method:py/app/models.py#User.rename');
    assert.equal(seek.generation, engine.generation);
    const found = engine.search('toUpperCase', { contextLines: 1 });
    assert.deepEqual(found.matches.map((m) => `${m.path}:${m.line}`), ['java/src/main/java/com/acme/util/Strings.java:5']);
    assert.equal(engine.search('def ', { filenamePattern: '*.py', countOnly: true }).counts!.length, 4);
  });

  it('reads files through the path guard', () => {
    assert.equal(engine.readFile('py/app/util.py').lines, 3);
    assert.throws(() => engine.readFile('../etc/passwd'), /outside the workspace root/);
    assert.throws(() => engine.readFile('/etc/passwd'), /outside the workspace root/);
    assert.throws(() => engine.readFile('py/missing.py'), /no file/);
  });

  it('computes PageRank and node stats', () => {
    const pr = engine.pagerank();
    const idx = engine.graph.indexOf('class:py/app/models.py#Base');
    assert.ok(pr.scores[idx] > 0);
    // Normalised to a maximum of 1 (the documented contract).
    let max = 0;
    for (let i = 0; i < engine.graph.nodeCapacity; i++) if (engine.graph.node(i) && pr.scores[i] > max) max = pr.scores[i];
    assert.equal(max, 1);
    const id = 'method:py/app/models.py#User.rename';
    const st = engine.nodeStats(id);
    assert.equal(st.loc, 3);
    assert.ok(st.outDegree >= 1 && st.inDegree >= 1);
    assert.equal(st.outDegree, engine.graph.outgoing(id).length);
    assert.equal(st.inDegree, engine.graph.incoming(id).length);
  });
});

describe('CodeGraphEngine incremental ingest and persistence', function () {
  this.timeout(30_000);
  let root: string;
  let engine: CodeGraphEngine;

  beforeEach(async () => {
    root = writeWorkspace(FIXTURE_FILES);
    engine = new CodeGraphEngine({ root });
    await engine.open();
    await engine.ingest();
  });
  afterEach(async () => {
    await engine.close();
    removeWorkspace(root);
  });

  it('re-parses only the edited file and patches its nodes and edges', async () => {
    writeFiles(root, { 'py/app/util.py': 'def helper(x):\n    return x\n\n\ndef twice(x):\n    return helper(helper(x))\n' });
    const s = await engine.ingest({ incremental: true });
    assert.equal(s.files.parsed, 1);
    assert.equal(s.files.unchanged, 14); // + the generated file, re-read and skipped again
    assert.equal(s.mode, 'incremental');
    assert.deepEqual(engine.getNode('function:py/app/util.py#helper')!.endLine, 2);
    assert.ok(edgeList(engine, 'calls').includes('function:py/app/util.py#twice -> function:py/app/util.py#helper'));
    assert.ok(edgeList(engine, 'calls').includes('function:py/app/main.py#run -> function:py/app/util.py#helper'));
    assert.ok(engine.seek('twice').results.some((r) => r.id === 'function:py/app/util.py#twice'));
    assert.equal(engine.search('helper(helper', { caseSensitive: true }).totalMatches, 1);
    const again = await engine.ingest({ incremental: true });
    assert.equal(again.files.parsed, 0);
    assert.equal(again.generation, s.generation, 'no change, no new generation');
  });

  it('drops everything a deleted file owned', async () => {
    unlinkSync(join(root, 'py/app/util.py'));
    const s = await engine.ingest({ incremental: true });
    assert.equal(s.files.removed, 1);
    assert.equal(engine.getNode('file:py/app/util.py'), null);
    assert.equal(engine.getNode('function:py/app/util.py#helper'), null);
    assert.ok(!edgeList(engine, 'calls').some((e) => e.includes('helper')));
    assert.equal(engine.search('Return x doubled').totalMatches, 0);
  });

  it('re-ingests just the given paths (watcher mode), including deletions', async () => {
    writeFiles(root, { 'ts/src/extra.ts': "import { format } from './greeter';\nexport const shout = (s: string) => format(s);\n" });
    unlinkSync(join(root, 'go/cmd/main.go'));
    const s = await engine.ingest({ paths: ['ts/src/extra.ts', 'go/cmd/main.go'] });
    assert.equal(s.mode, 'paths');
    assert.equal(s.files.parsed, 1);
    assert.equal(s.files.removed, 1);
    assert.ok(edgeList(engine, 'calls').includes('function:ts/src/extra.ts#shout -> function:ts/src/greeter.ts#format'));
    assert.equal(engine.getNode('file:go/cmd/main.go'), null);
  });

  it('rebuilds the same graph from the store in a new engine without parsing', async () => {
    const noParse: SourceParser = {
      version: 'unused',
      detectLanguage: () => null,
      extractorFor: () => {
        throw new Error('must not parse on open');
      },
    };
    const other = new CodeGraphEngine({ root, parser: noParse });
    const opened = await other.open();
    assert.equal(opened.loaded, true);
    assert.equal(opened.nodes, engine.graph.nodeCount);
    assert.equal(opened.edges, engine.graph.edgeCount);
    assert.deepEqual(edgeList(other, 'calls'), edgeList(engine, 'calls'));
    assert.equal(other.generation, engine.generation);
    await other.close();
  });

  it('says why a file failed to parse: the extractor\'s message, or the grammar that did not load', async () => {
    const failing: SourceParser = {
      version: 'failing',
      detectLanguage: (p) => (p.endsWith('.py') ? 'python' : p.endsWith('.go') ? 'go' : null),
      extractorFor: async (language) => {
        if (language === 'go') throw new Error('no wasm here');
        return (path: string) => {
          throw new Error(`unexpected token in ${path}`);
        };
      },
    };
    const dir = writeWorkspace({ 'a.py': 'x = 1\n', 'b.go': 'package b\n' });
    const broken = new CodeGraphEngine({ root: dir, parser: failing });
    try {
      await broken.open();
      const s = await broken.ingest();
      assert.equal(s.skippedByReason.parse_failed, 2);
      const byPath = Object.fromEntries(s.skipped.map((x) => [x.path, x]));
      assert.deepEqual(byPath['a.py'], { path: 'a.py', reason: 'parse_failed', error: 'unexpected token in a.py' });
      assert.deepEqual(byPath['b.go'], { path: 'b.go', reason: 'parse_failed', error: 'the go grammar did not load: no wasm here' });
    } finally {
      await broken.close();
      removeWorkspace(dir);
    }
  });

  it('saves checkpoints and loads them back as a new generation', async () => {
    const cp = engine.checkpoint('before-edit');
    assert.equal(cp.files, 15);
    unlinkSync(join(root, 'py/app/util.py'));
    await engine.ingest({ incremental: true });
    assert.equal(engine.getNode('file:py/app/util.py'), null);
    const loaded = await engine.loadCheckpoint('before-edit');
    assert.ok(loaded.generation > cp.generation);
    assert.ok(engine.getNode('function:py/app/util.py#helper'));
    const status = engine.status();
    assert.deepEqual(status.checkpoints.map((c) => c.name), ['before-edit']);
    assert.equal(status.files, 15);
    assert.ok(status.dbBytes > 0);
    await assert.rejects(engine.loadCheckpoint('nope'), /no checkpoint named "nope"/);
    assert.throws(() => engine.checkpoint('bad name!'), /invalid checkpoint name/);
    assert.equal(engine.deleteCheckpoint('before-edit'), true);
    engine.save();
  });

  it('reports progress by phase and aborts before committing when signalled', async () => {
    const phases = new Set<string>();
    await engine.ingest({ onProgress: (_done, _total, phase) => phases.add(phase) });
    for (const p of ['walk', 'parse', 'persist', 'build']) assert.ok(phases.has(p), p);
    const generation = engine.generation;
    writeFiles(root, { 'py/app/util.py': 'def changed():\n    pass\n' });
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(engine.ingest({ incremental: true, signal: controller.signal }), (e: Error & { code?: string }) => e.code === 'M1ND_ERR_ENGINE_INGEST_ABORTED');
    assert.equal(engine.generation, generation);
    assert.ok(engine.getNode('function:py/app/util.py#helper'), 'the graph is unchanged');
    assert.equal(engine.status().generation, generation, 'nothing was committed');
  });

  it('keeps generic memory tables per namespace', () => {
    engine.memory.set('trails', 'a/1', { x: 1 });
    engine.memory.set('trails', 'a/2', [1, 2]);
    engine.memory.set('trails', 'b/1', 'y');
    engine.memory.set('other', 'a/1', null);
    assert.deepEqual(engine.memory.get('trails', 'a/1')!.value, { x: 1 });
    assert.deepEqual(engine.memory.list('trails', 'a/').map((e) => e.key), ['a/1', 'a/2']);
    assert.equal(engine.memory.delete('trails', 'a/1'), true);
    assert.equal(engine.memory.get('trails', 'a/1'), undefined);
    assert.deepEqual(engine.status().memoryNamespaces, [{ namespace: 'other', keys: 1 }, { namespace: 'trails', keys: 2 }]);
  });

  it('re-ingests files the watcher marked dirty before answering (ensureFresh)', async () => {
    await engine.watch({ debounceMs: 20 });
    writeFiles(root, { 'py/app/late.py': 'def late_arrival():\n    return 1\n' });
    const deadline = Date.now() + 5000;
    while (!engine.seek('late arrival').stale && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(engine.seek('late arrival').stale, true);
    const fresh = await engine.ensureFresh();
    assert.ok(fresh.reingested.includes('py/app/late.py'), JSON.stringify(fresh.reingested));
    // The reconciliation at the watcher's start may also check a file the ingest skips (the generated
    // one) when it is younger than store-drift's racy margin before the last ingest: it stays skipped.
    assert.deepEqual(fresh.reingested.filter((p) => p !== 'py/app/late.py' && engine.getNode(`file:${p}`)), []);
    const hit = engine.seek('late arrival');
    assert.equal(hit.stale, false);
    assert.equal(hit.results[0].id, 'function:py/app/late.py#late_arrival');
    await engine.unwatch();
  });
});

describe('CodeGraphEngine git history', function () {
  this.timeout(30_000);
  it('derives recency, commit counts and co-change edges from one git log pass', async () => {
    const root = writeWorkspace({ 'a.py': 'def a():\n    pass\n', 'b.py': 'def b():\n    pass\n', 'c.py': 'def c():\n    pass\n' });
    try {
      git(root, 'init', '-q', '-b', 'main');
      git(root, 'add', '.');
      git(root, 'commit', '-q', '-m', 'init');
      for (let i = 0; i < 3; i++) {
        writeFiles(root, { 'a.py': `def a():\n    return ${i}\n`, 'b.py': `def b():\n    return ${i}\n` });
        git(root, 'commit', '-qam', `pair ${i}`);
      }
      const engine = new CodeGraphEngine({ root });
      await engine.open();
      const s = await engine.ingest();
      assert.deepEqual(s.git, { scanned: true, commits: 4, head: git(root, 'rev-parse', 'HEAD').trim() });
      assert.equal(engine.getNode('file:a.py')!.commitCount, 4);
      assert.ok(engine.getNode('file:c.py')!.lastCommitAt! > 0);
      const co = engine.graph.outgoing('file:a.py', 'co_changes');
      assert.deepEqual(co.map((e) => e.target), ['file:b.py']);
      assert.ok(co[0].weight > 0 && co[0].weight <= 0.8 + 1e-6);
      assert.equal(engine.gitHistory().commits.length, 4);
      // Same HEAD: the incremental run does not rescan history.
      const inc = await engine.ingest({ incremental: true });
      assert.equal(inc.git!.scanned, false);
      await engine.close();
    } finally {
      removeWorkspace(root);
    }
  });
});

describe('CodeGraphEngine store location', () => {
  it('writes the store under <root>/.m1nd by default and honours storeDir', async () => {
    const root = writeWorkspace({ 'a.py': 'def a():\n    pass\n' });
    const elsewhere = writeWorkspace({});
    try {
      const e1 = new CodeGraphEngine({ root });
      assert.equal(e1.storeDir, join(root, '.m1nd'));
      const e2 = new CodeGraphEngine({ root, storeDir: elsewhere });
      await e2.open();
      assert.equal(e2.status().path, join(elsewhere, 'm1nd.db'));
      await e2.close();
      await e1.close();
    } finally {
      removeWorkspace(root);
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
