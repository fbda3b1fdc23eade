import { strict as assert } from 'node:assert';
import { GraphBuilder, type FileInput, type GitFacts } from '../../../../plugins/graph/engine/build.ts';
import type { FileExtraction } from '../../../../plugins/graph/engine/extraction.ts';
import { RELATIONS } from '../../../../plugins/graph/engine/graph.ts';
import { extraction, sym } from './helpers.ts';

function input(ex: FileExtraction): FileInput {
  return { path: ex.path, language: ex.language, extraction: ex };
}

/** Every live edge as a sorted "source -relation-> target @weight" line. */
function edges(b: GraphBuilder, relation?: string): string[] {
  const g = b.graph;
  const out: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const ed = g.edge(e);
    if (ed && (!relation || ed.relation === relation)) out.push(`${ed.source} -${ed.relation}-> ${ed.target} @${ed.weight.toFixed(2)}`);
  }
  return out.sort();
}

const pyBase = extraction('pkg/base.py', 'python', {
  symbols: [sym('class', 'Base', 1, 6), sym('method', 'greet', 2, 3, { parent: 'Base' }), sym('method', 'log', 5, 6, { parent: 'Base' })],
});
const pyUtil = extraction('pkg/util.py', 'python', {
  symbols: [sym('function', 'helper', 1, 2), sym('function', 'shared', 4, 5)],
});
const pyA = extraction('pkg/a.py', 'python', {
  loc: 20,
  symbols: [
    sym('class', 'Foo', 4, 14, { doc: 'A foo.' }),
    sym('method', 'bar', 6, 8, { parent: 'Foo' }),
    sym('method', 'baz', 10, 14, { parent: 'Foo' }),
    sym('function', 'main', 17, 18),
  ],
  imports: [
    { specifier: 'os', line: 1, names: [] },
    { specifier: '.base', line: 2, names: ['Base'] },
    { specifier: '.', line: 3, names: ['util'] },
    { specifier: '.missing', line: 3, names: ['x'] },
  ],
  calls: [
    { caller: 'Foo.bar', callee: 'baz', receiver: 'self', line: 7 },
    { caller: 'Foo.bar', callee: 'helper', receiver: 'util', line: 7 },
    { caller: 'Foo.baz', callee: 'greet', receiver: 'self', line: 11 },
    { caller: 'main', callee: 'Foo', line: 18 },
    { caller: 'main', callee: 'len', line: 18 },
    { caller: null, callee: 'main', line: 20 },
  ],
  inherits: [{ child: 'Foo', parent: 'Base', kind: 'extends' }],
  references: [{ from: 'Foo.bar', name: 'Base', line: 6 }],
});
const pyInit = extraction('pkg/__init__.py', 'python', { loc: 1 });
const pyTest = extraction('tests/test_a.py', 'python', {
  symbols: [sym('function', 'test_main', 3, 4)],
  imports: [{ specifier: 'pkg.a', line: 1, names: ['main'] }],
  calls: [{ caller: 'test_main', callee: 'main', line: 4 }],
});
const readme = extraction('README.md', 'markdown', {
  symbols: [sym('section', 'Intro', 1, 5), sym('section', 'Setup', 3, 5, { parent: 'Intro' })],
  docLinks: [
    { section: 'Intro', target: 'pkg/a.py', kind: 'link', line: 2 },
    { section: 'Intro.Setup', target: 'Foo.bar', kind: 'code_symbol', line: 4 },
    { section: 'Intro.Setup', target: 'pkg', kind: 'code_path', line: 4 },
    { section: 'Intro', target: 'https://example.com', kind: 'link', line: 2 },
    // A package's public name for a function defined in pkg/util.py; another package's is nothing here.
    { section: 'Intro', target: 'pkg.helper', kind: 'code_symbol', line: 2 },
    { section: 'Intro', target: 'other.helper', kind: 'code_symbol', line: 2 },
  ],
});
const all = [pyBase, pyUtil, pyA, pyInit, pyTest, readme];

function fullBuild(files: FileExtraction[], git: GitFacts | null = null): GraphBuilder {
  const b = new GraphBuilder();
  b.apply({ upsert: files.map(input), remove: [], git, config: { goModules: [] } });
  return b;
}

describe('GraphBuilder', () => {
  it('creates file, module and symbol nodes with their line ranges', () => {
    const b = fullBuild(all);
    const g = b.graph;
    const bar = g.get('method:pkg/a.py#Foo.bar')!;
    assert.deepEqual([bar.kind, bar.label, bar.path, bar.startLine, bar.endLine, bar.language], ['method', 'bar', 'pkg/a.py', 6, 8, 'python']);
    assert.equal(g.get('class:pkg/a.py#Foo')!.doc, 'A foo.');
    assert.equal(g.get('file:pkg/a.py')!.endLine, 20);
    assert.ok(g.get('module:pkg'));
    assert.ok(g.get('module:.'));
    assert.ok(g.get('section:README.md#Intro.Setup'));
    assert.equal(g.get('file:tests/test_a.py')!.isTest, true);
  });

  it('links containment module → file → class → method', () => {
    const c = edges(fullBuild(all), 'contains');
    assert.ok(c.includes('module:pkg -contains-> file:pkg/a.py @0.40'));
    assert.ok(c.includes('module:. -contains-> module:pkg @0.40'));
    assert.ok(c.includes('file:pkg/a.py -contains-> class:pkg/a.py#Foo @0.90'));
    assert.ok(c.includes('class:pkg/a.py#Foo -contains-> method:pkg/a.py#Foo.bar @0.90'));
    assert.ok(c.includes('section:README.md#Intro -contains-> section:README.md#Intro.Setup @0.90'));
  });

  it('resolves imports file to file and keeps unresolved ones as records, not edges', () => {
    const b = fullBuild(all);
    assert.deepEqual(edges(b, 'imports'), [
      'file:pkg/a.py -imports-> file:pkg/__init__.py @0.80',
      'file:pkg/a.py -imports-> file:pkg/base.py @0.80',
      'file:pkg/a.py -imports-> file:pkg/util.py @0.80',
      'file:tests/test_a.py -imports-> file:pkg/a.py @0.80',
    ]);
    const unresolved = b.unresolvedImports().map((u) => `${u.from} ${u.specifier} ${u.reason}`).sort();
    assert.deepEqual(unresolved, ['pkg/a.py .missing not_found', 'pkg/a.py os external']);
  });

  it('resolves calls through self, module aliases, inherited members, imported names and the file', () => {
    const calls = edges(fullBuild(all), 'calls');
    assert.deepEqual(calls, [
      'file:pkg/a.py -calls-> function:pkg/a.py#main @1.00',
      'function:pkg/a.py#main -calls-> class:pkg/a.py#Foo @1.00',
      'function:tests/test_a.py#test_main -calls-> function:pkg/a.py#main @1.00',
      'method:pkg/a.py#Foo.bar -calls-> function:pkg/util.py#helper @1.00',
      'method:pkg/a.py#Foo.bar -calls-> method:pkg/a.py#Foo.baz @1.00',
      'method:pkg/a.py#Foo.baz -calls-> method:pkg/base.py#Base.greet @1.00',
    ]);
  });

  it('links inheritance and type references', () => {
    const b = fullBuild(all);
    assert.deepEqual(edges(b, 'inherits'), ['class:pkg/a.py#Foo -inherits-> class:pkg/base.py#Base @0.90']);
    assert.deepEqual(edges(b, 'references'), ['method:pkg/a.py#Foo.bar -references-> class:pkg/base.py#Base @0.60']);
  });

  it('links a test file to what it imports and calls, and docs to what they link or name', () => {
    const b = fullBuild(all);
    assert.deepEqual(edges(b, 'tests'), ['file:tests/test_a.py -tests-> file:pkg/a.py @0.70', 'file:tests/test_a.py -tests-> function:pkg/a.py#main @0.70']);
    assert.deepEqual(edges(b, 'documents'), [
      'section:README.md#Intro -documents-> file:pkg/a.py @0.50',
      'section:README.md#Intro -documents-> function:pkg/util.py#helper @0.50',
      'section:README.md#Intro.Setup -documents-> method:pkg/a.py#Foo.bar @0.50',
      'section:README.md#Intro.Setup -documents-> module:pkg @0.50',
    ]);
  });

  it('links a unique workspace-wide name at lower confidence and skips an ambiguous one', () => {
    const other1 = extraction('x/one.ts', 'typescript', { symbols: [sym('function', 'dup', 1, 2), sym('function', 'solo', 3, 4)] });
    const other2 = extraction('y/two.ts', 'typescript', { symbols: [sym('function', 'dup', 1, 2)] });
    const other3 = extraction('z/three.ts', 'typescript', { symbols: [sym('function', 'dup', 1, 2)] });
    const other4 = extraction('w/four.ts', 'typescript', { symbols: [sym('function', 'dup', 1, 2)] });
    const caller = extraction('c/main.ts', 'typescript', {
      symbols: [sym('function', 'run', 1, 3)],
      calls: [
        { caller: 'run', callee: 'solo', line: 2 },
        { caller: 'run', callee: 'dup', line: 3 },
      ],
    });
    const calls = edges(fullBuild([other1, other2, other3, other4, caller]), 'calls');
    assert.deepEqual(calls, ['function:c/main.ts#run -calls-> function:x/one.ts#solo @0.70']);
  });

  it('records co-change edges both ways with Jaccard-scaled weights', () => {
    const git: GitFacts = { files: new Map([['pkg/a.py', { lastCommitAt: 100, commitCount: 3 }]]), pairs: [{ a: 'pkg/a.py', b: 'pkg/util.py', weight: 0.5 }] };
    const b = fullBuild(all, git);
    assert.deepEqual(edges(b, 'co_changes'), ['file:pkg/a.py -co_changes-> file:pkg/util.py @0.40', 'file:pkg/util.py -co_changes-> file:pkg/a.py @0.40']);
    assert.equal(b.graph.get('file:pkg/a.py')!.commitCount, 3);
  });

  it('drops a changed file’s removed symbol and the edges other files had into it', () => {
    const b = fullBuild(all);
    const util2 = extraction('pkg/util.py', 'python', { symbols: [sym('function', 'shared', 4, 5)] });
    const report = b.apply({ upsert: [input(util2)], remove: [] });
    assert.equal(b.graph.get('function:pkg/util.py#helper'), null);
    assert.ok(!edges(b, 'calls').some((e) => e.includes('helper')));
    assert.ok(report.resolvedFiles < all.length, 'only the changed file and its dependents are re-linked');
  });

  it('resolves a previously unresolved call once a file defining the name appears', () => {
    const caller = extraction('c/main.ts', 'typescript', { symbols: [sym('function', 'run', 1, 3)], calls: [{ caller: 'run', callee: 'later', line: 2 }] });
    const b = fullBuild([caller, pyUtil]);
    assert.deepEqual(edges(b, 'calls'), []);
    b.apply({ upsert: [input(extraction('d/late.ts', 'typescript', { symbols: [sym('function', 'later', 1, 2)] }))], remove: [] });
    assert.deepEqual(edges(b, 'calls'), ['function:c/main.ts#run -calls-> function:d/late.ts#later @0.70']);
  });

  it('removes a deleted file’s nodes and turns its importers’ imports into records', () => {
    const b = fullBuild(all);
    b.apply({ upsert: [], remove: ['pkg/base.py'] });
    assert.equal(b.graph.get('file:pkg/base.py'), null);
    assert.equal(b.graph.get('class:pkg/base.py#Base'), null);
    assert.equal(edges(b, 'inherits').length, 0);
    assert.ok(b.unresolvedImports().some((u) => u.from === 'pkg/a.py' && u.specifier === '.base'));
  });

  it('patches incrementally to exactly the graph a full build of the final state gives', () => {
    const b = fullBuild(all);
    const a2 = extraction('pkg/a.py', 'python', {
      ...pyA,
      symbols: [...pyA.symbols.filter((s) => s.name !== 'baz'), sym('function', 'extra', 19, 20)],
      calls: [...pyA.calls, { caller: 'extra', callee: 'shared', receiver: 'util', line: 20 }],
    });
    const base2 = extraction('pkg/base.py', 'python', { symbols: [sym('class', 'Base', 1, 3), sym('method', 'greet', 2, 3, { parent: 'Base' })] });
    const newFile = extraction('pkg/extra_mod.py', 'python', { symbols: [sym('function', 'len', 1, 1)] });
    b.apply({ upsert: [input(a2)], remove: [] });
    b.apply({ upsert: [input(base2), input(newFile)], remove: ['README.md'] });
    b.apply({ upsert: [], remove: ['pkg/util.py'] });
    const final = [a2, base2, newFile, pyInit, pyTest];
    const fresh = fullBuild(final);
    assert.deepEqual(edges(b), edges(fresh));
    for (const r of RELATIONS) assert.equal(b.graph.edgeCountsByRelation()[r], fresh.graph.edgeCountsByRelation()[r], r);
    assert.equal(b.graph.nodeCount, fresh.graph.nodeCount);
  });

  it('re-loads dropped extractions through the loader when a file must be re-linked', () => {
    const store = new Map(all.map((x) => [x.path, x]));
    let loads = 0;
    const b = new GraphBuilder({ loadExtraction: (p) => (loads++, store.get(p) ?? null) });
    b.apply({ upsert: all.map(input), remove: [], config: { goModules: [] } });
    assert.equal(loads, 0);
    const withoutHelper = extraction('pkg/util.py', 'python', { symbols: [sym('function', 'shared', 4, 5)] });
    store.set('pkg/util.py', withoutHelper);
    b.apply({ upsert: [input(withoutHelper)], remove: [] });
    assert.ok(loads > 0, 'the caller of the removed function was re-linked from the loader');
    assert.ok(!edges(b, 'calls').some((e) => e.includes('helper')));
    store.set('pkg/util.py', pyUtil);
    b.apply({ upsert: [input(pyUtil)], remove: [] });
    assert.ok(edges(b, 'calls').includes('method:pkg/a.py#Foo.bar -calls-> function:pkg/util.py#helper @1.00'), 'the miss depended on the name');
  });
});
