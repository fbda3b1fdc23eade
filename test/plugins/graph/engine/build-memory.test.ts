import { strict as assert } from 'node:assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GraphBuilder, type FileInput } from '../../../../plugins/graph/engine/build.ts';
import { RETURN_BINDING, type FileExtraction } from '../../../../plugins/graph/engine/extraction.ts';
import type { FileState } from '../../../../plugins/graph/engine/file-state.ts';
import type { GraphNode } from '../../../../plugins/graph/engine/graph.ts';
import { FileDependents } from '../../../../plugins/graph/engine/file-dependents.ts';
import { SymbolNames } from '../../../../plugins/graph/engine/symbol-names.ts';
import { lightExtraction } from '../../../../plugins/graph/engine/store-files.ts';
import { typeFactsOf } from '../../../../plugins/graph/engine/type-facts.ts';
import { extraction, sym } from './helpers.ts';

const input = (ex: FileExtraction): FileInput => ({ path: ex.path, language: ex.language, extraction: ex });

function build(files: FileExtraction[]): GraphBuilder {
  const b = new GraphBuilder();
  b.apply({ upsert: files.map(input), remove: [], config: { goModules: [] } });
  return b;
}

function edges(b: GraphBuilder, relation: string): string[] {
  const out: string[] = [];
  for (let e = 0; e < b.graph.edgeCapacity; e++) {
    const ed = b.graph.edge(e);
    if (ed && ed.relation === relation) out.push(`${ed.source} -> ${ed.target}`);
  }
  return out.sort();
}

function state(b: GraphBuilder, path: string): FileState {
  return (b as unknown as { files: Map<string, FileState> }).files.get(path)!;
}

/** The main heap's live bytes after a full GC. */
function liveHeap(): number {
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('the graph builder kept lean', () => {
  before(() => setFlagsFromString('--expose-gc'));

  // A class defined twice (conditional definitions): the second becomes `C~2`; its method names its
  // parent by the raw qualified name `C`, which is the first C (as the map of names did before).
  const nested = extraction('pkg/n.py', 'python', {
    symbols: [
      sym('class', 'C', 1, 10),
      sym('method', 'm', 2, 3, { parent: 'C' }),
      sym('class', 'Inner', 4, 9, { parent: 'C' }),
      sym('method', 'deep', 5, 6, { parent: 'C.Inner' }),
      sym('class', 'C', 11, 14),
      sym('method', 'n', 12, 13, { parent: 'C' }),
      sym('function', 'orphan', 15, 16, { parent: 'Missing' }),
    ],
  });

  it("keeps each symbol's enclosing symbol as a typed column and links containment through it", () => {
    const b = build([nested]);
    const st = state(b, 'pkg/n.py');
    assert.ok(st.symbolParents instanceof Int32Array);
    assert.equal(st.symbolParents.length, st.symbols.size);
    assert.deepEqual(edges(b, 'contains').filter((e) => !e.startsWith('module:')), [
      'class:pkg/n.py#C -> class:pkg/n.py#C.Inner',
      'class:pkg/n.py#C -> method:pkg/n.py#C.m',
      'class:pkg/n.py#C -> method:pkg/n.py#C.n',
      'class:pkg/n.py#C.Inner -> method:pkg/n.py#C.Inner.deep',
      'file:pkg/n.py -> class:pkg/n.py#C',
      'file:pkg/n.py -> class:pkg/n.py#C~2',
      'file:pkg/n.py -> function:pkg/n.py#Missing.orphan',
    ]);
  });

  it('re-links containment from the new column when an edit moves a symbol', () => {
    const b = build([nested]);
    const moved = extraction('pkg/n.py', 'python', {
      symbols: [sym('class', 'C', 1, 10), sym('class', 'D', 11, 14), sym('method', 'm', 12, 13, { parent: 'D' }), sym('function', 'top', 15, 16)],
    });
    b.apply({ upsert: [input(moved)], remove: [] });
    assert.deepEqual(edges(b, 'contains').filter((e) => !e.startsWith('module:')), [
      'class:pkg/n.py#D -> method:pkg/n.py#D.m',
      'file:pkg/n.py -> class:pkg/n.py#C',
      'file:pkg/n.py -> class:pkg/n.py#D',
      'file:pkg/n.py -> function:pkg/n.py#top',
    ]);
    const fresh = build([moved]);
    assert.deepEqual(edges(b, 'contains'), edges(fresh, 'contains'));
  });

  it("keeps a type facts' signature as a short hash that changes with the facts and the imports", () => {
    const base = { symbols: [sym('function', 'f', 1, 2, { returnType: 'int' })], imports: [{ specifier: 'os', line: 1, names: [] }] };
    const a = typeFactsOf(extraction('a.py', 'python', base));
    const same = typeFactsOf(extraction('a.py', 'python', structuredClone(base)));
    const otherType = typeFactsOf(extraction('a.py', 'python', { ...base, symbols: [sym('function', 'f', 1, 2, { returnType: 'str' })] }));
    const otherImport = typeFactsOf(extraction('a.py', 'python', { ...base, imports: [{ specifier: 'sys', line: 1, names: [] }] }));
    assert.ok(a.signature.length <= 28, a.signature);
    assert.equal(a.signature, same.signature);
    assert.notEqual(a.signature, otherType.signature);
    assert.notEqual(a.signature, otherImport.signature);
  });

  it('keeps type aliases and class fields in the light extraction a streamed build reads before linking, so the type facts are the same', () => {
    const full = extraction('a.py', 'python', {
      symbols: [sym('class', 'A', 1, 3), sym('function', 'f', 4, 6)],
      bindings: [
        { scope: null, name: 'Endpoint', line: 7, source: 'alias', type: 'Callable[[str], A]' },
        { scope: 'A', name: 'x', line: 2, source: 'field', type: 'int' },
        { scope: 'f', name: 'y', line: 5, source: 'assign', value: 'A()' },
      ],
    });
    const light = lightExtraction(full);
    assert.deepEqual(light.bindings?.map((b) => b.name), ['Endpoint', 'x']);
    assert.deepEqual([...typeFactsOf(light).aliases], [['Endpoint', 'Callable[[str], A]']]);
    assert.equal(typeFactsOf(light).signature, typeFactsOf(full).signature);
  });

  it('keeps what an unannotated function returns, and the locals its return reads, in the light extraction and the type facts', () => {
    const full = extraction('a.py', 'python', {
      symbols: [sym('class', 'A', 1, 3), sym('function', 'make', 4, 8), sym('function', 'typed', 9, 10, { returnType: 'A' })],
      bindings: [
        { scope: 'make', name: 'kind', line: 4, source: 'param', type: 'type[A]' },
        { scope: 'make', name: 'other', line: 5, source: 'assign', value: 'A()' },
        { scope: 'make', name: 'p', line: 6, source: 'assign', value: 'kind()' },
        { scope: 'make', name: RETURN_BINDING, line: 7, source: 'assign', value: 'p' },
        { scope: 'typed', name: RETURN_BINDING, line: 10, source: 'assign', value: 'A()' },
      ],
    });
    const light = lightExtraction(full);
    assert.deepEqual(light.bindings?.map((b) => b.name), ['kind', 'p', RETURN_BINDING]);
    assert.deepEqual([...typeFactsOf(light).inferred.keys()], ['make']);
    assert.deepEqual(typeFactsOf(light).inferred.get('make')?.map((b) => b.name), [RETURN_BINDING, 'p', 'kind']);
    assert.equal(typeFactsOf(light).signature, typeFactsOf(full).signature);
  });

  it('keeps nothing for a function one of whose returns is a literal or an operator (its result cannot be inferred)', () => {
    const full = extraction('a.py', 'python', {
      symbols: [sym('class', 'A', 1, 3), sym('function', 'make', 4, 8), sym('function', 'pick', 9, 12), sym('function', 'count', 13, 14)],
      bindings: [
        { scope: 'make', name: 'p', line: 5, source: 'assign', value: 'A()' },
        { scope: 'make', name: RETURN_BINDING, line: 6, source: 'assign', value: 'p' },
        { scope: 'make', name: RETURN_BINDING, line: 7, source: 'assign', value: '0' },
        { scope: 'pick', name: RETURN_BINDING, line: 10, source: 'assign', value: 'A() if ok else B()' },
        { scope: 'pick', name: RETURN_BINDING, line: 11, source: 'assign', value: 'cast', type: 'A' },
        { scope: 'count', name: RETURN_BINDING, line: 14, source: 'assign', value: 'a + b' },
      ],
    });
    const facts = typeFactsOf(lightExtraction(full));
    assert.deepEqual([...facts.inferred.keys()], ['pick'], 'make returns 0 on one path and count an operator: neither result has a type');
    assert.deepEqual(lightExtraction(full).bindings?.map((b) => b.scope), ['pick', 'pick'], 'their locals are not kept either');
  });

  it('makes one link scope per file, shared with the tables, and re-links a caller whose receiver type reads a return type an edit changed', () => {
    const lib = (ret: string) => extraction('lib.py', 'python', { symbols: [sym('function', 'make', 1, 2, { returnType: ret }), sym('class', 'A', 3, 6), sym('method', 'go', 4, 5, { parent: 'A' }), sym('class', 'B', 7, 10), sym('method', 'go', 8, 9, { parent: 'B' })] });
    const user = extraction('user.py', 'python', {
      symbols: [sym('function', 'run', 1, 3)],
      imports: [{ specifier: 'lib', line: 1, names: ['make'] }],
      calls: [{ caller: 'run', callee: 'go', receiver: 'make()', line: 2 }],
    });
    // The receiver's type is read in lib.py's scope: the one its own link made (one scope per file).
    const b = new GraphBuilder();
    const made: string[] = [];
    const own = b as unknown as { scopeOf(st: FileState): unknown; fileScopes: Map<string, unknown> };
    const scopeOf = own.scopeOf.bind(b);
    own.scopeOf = (st) => (made.push(st.path), scopeOf(st));
    b.apply({ upsert: [input(lib('A')), input(user)], remove: [], config: { goModules: [] } });
    assert.deepEqual(made.sort(), ['lib.py', 'user.py']);
    assert.equal(own.fileScopes.size, 0, 'the cache is emptied once the build is done');
    assert.ok(edges(b, 'calls').includes('function:user.py#run -> method:lib.py#A.go'), edges(b, 'calls').join('\n'));
    b.apply({ upsert: [input(lib('B'))], remove: [] });
    const calls = edges(b, 'calls');
    assert.ok(calls.includes('function:user.py#run -> method:lib.py#B.go') && !calls.includes('function:user.py#run -> method:lib.py#A.go'), calls.join('\n'));
  });

  it("keeps a name's list of one symbol in one slot (an empty array's first push reserves 17)", () => {
    const names = Array.from({ length: 50_000 }, (_, i) => `name_${i}`);
    const nodes = names.map((label): GraphNode => ({ id: label, kind: 'function', label, path: 'a.py', startLine: 1, endLine: 1, language: 'python' }));
    const before = liveHeap();
    const table = new SymbolNames();
    nodes.forEach((n, i) => table.add(n, i));
    const perName = (liveHeap() - before) / names.length;
    // One map entry and a one-element array: ~93 bytes (8-byte pointers); with the 17-slot array ~222.
    assert.ok(perName < 140, `${perName.toFixed(1)} bytes per name`);
    assert.deepEqual(table.named('name_7'), [7]);
    table.add({ ...nodes[7], id: 'again' }, 50_007);
    assert.deepEqual(table.named('name_7'), [7, 50_007]);
    assert.equal(table.remove(nodes[7], 7), true);
    assert.deepEqual(table.named('name_7'), [50_007]);
  });

  it('keeps a name looked up by one file as that path, and a set from the second file on', () => {
    const file = (path: string): FileState => ({ path, globalNames: [], missStems: [], importTargets: [], imports: [] }) as unknown as FileState;
    const names = Array.from({ length: 50_000 }, (_, i) => `name_${i}`);
    const a = file('a.py');
    const before = liveHeap();
    const deps = new FileDependents();
    deps.recordNames(a, names);
    const perName = (liveHeap() - before) / names.length;
    // A map entry and the file's list entry: ~45 bytes; a set of one path per name was ~200 more.
    assert.ok(perName < 100, `${perName.toFixed(1)} bytes per name`);
    assert.equal(a.globalNames.length, names.length);
    const b = file('b.py');
    deps.recordNames(b, ['name_1', 'name_1', 'other']);
    deps.recordNames(a, ['name_1']);
    assert.deepEqual(b.globalNames, ['name_1', 'other']);
    assert.deepEqual([...deps.dependentsOfName('name_1')], ['a.py', 'b.py']);
    deps.forget(a);
    assert.deepEqual([...deps.dependentsOfName('name_1')], ['b.py']);
    assert.deepEqual([...deps.dependentsOfName('name_2')], []);
    deps.forget(b);
    assert.deepEqual([...deps.dependentsOfName('name_1')], []);
    assert.deepEqual([...deps.dependentsOfName('other')], []);
  });

  it('gives a full build the graph an incremental relink of every file gives', () => {
    const base = extraction('pkg/base.py', 'python', { symbols: [sym('class', 'Base', 1, 4), sym('method', 'greet', 2, 3, { parent: 'Base' })] });
    const mid = extraction('pkg/mid.py', 'python', {
      symbols: [sym('class', 'Mid', 3, 6)],
      imports: [{ specifier: '.base', line: 1, names: ['Base'] }],
      inherits: [{ child: 'Mid', parent: 'Base', kind: 'extends' }],
    });
    const user = extraction('pkg/user.py', 'python', {
      symbols: [sym('function', 'run', 2, 4)],
      imports: [{ specifier: '.mid', line: 1, names: ['Mid'] }],
      calls: [{ caller: 'run', callee: 'greet', receiver: 'Mid()', line: 3 }],
    });
    const ts = extraction('web/app.ts', 'typescript', { symbols: [sym('function', 'main', 1, 3)], imports: [{ specifier: './util', line: 1, names: ['help'] }], calls: [{ caller: 'main', callee: 'help', line: 2 }] });
    const tsUtil = extraction('web/util.ts', 'typescript', { symbols: [sym('function', 'help', 1, 2, { exported: true })] });
    const go = extraction('svc/main.go', 'go', { symbols: [sym('function', 'Serve', 1, 3)], calls: [{ caller: 'Serve', callee: 'helper', line: 2 }] });
    const goH = extraction('svc/helper.go', 'go', { symbols: [sym('function', 'helper', 1, 2)] });
    const java = extraction('src/p/A.java', 'java', { symbols: [sym('class', 'A', 1, 5), sym('method', 'a', 2, 3, { parent: 'A' })], calls: [{ caller: 'A.a', callee: 'b', receiver: 'new B()', line: 2 }] });
    const javaB = extraction('src/p/B.java', 'java', { symbols: [sym('class', 'B', 1, 5), sym('method', 'b', 2, 3, { parent: 'B' })] });
    const files = [base, mid, user, ts, tsUtil, go, goH, java, javaB];
    const full = build(files);
    assert.ok(edges(full, 'calls').includes('function:pkg/user.py#run -> method:pkg/base.py#Base.greet'), edges(full, 'calls').join('\n'));
    // The same files added one at a time (each apply tracks parents and import targets for later waves).
    const stepwise = new GraphBuilder();
    for (const f of [...files].reverse()) stepwise.apply({ upsert: [input(f)], remove: [], config: { goModules: [] } });
    for (const rel of ['contains', 'imports', 'calls', 'inherits', 'references']) assert.deepEqual(edges(stepwise, rel), edges(full, rel), rel);
  });
});
