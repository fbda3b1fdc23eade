import assert from 'node:assert/strict';
import { extractFile } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { repairPython } from '../../../../../plugins/graph/engine/parsers/py-repair.ts';
import { repairTypeScript } from '../../../../../plugins/graph/engine/parsers/ts-repair.ts';

// An extra `}` closes `route` early: error recovery reads the rest of its body as class members.
const BROKEN_TS = `import { split } from './split';
export class Router {
  route(path: string) {
    const parts = split(path);
    }
    if (parts.length > 0) {
      return parts;
    }
    for (const p of parts) {
      visit(p);
    }
  }
  match(path: string) {
    return path;
  }
}
export function helper(a: number) {
  return norm(a);
}
`;

// A missing colon after a def header: recovery wraps the whole file in one ERROR node.
const BROKEN_PY = `import os

def first(a):
    return norm(a)

class Store:
    def load(self, key)
        if key:
            return fetch(key)
        return None

def last(b):
    return norm(b)
`;

describe('extraction from files with parse errors', function () {
  it('takes no declaration from a mis-parsed header and keeps the sound ones (TypeScript)', async function () {
    const x = await extractFile('src/router.ts', BROKEN_TS);
    assert.ok(x.parseErrors > 0);
    assert.equal(x.parseErrorLine, 6);
    assert.deepEqual(
      x.symbols.map((s) => s.qualifiedName),
      ['Router', 'Router.route', 'helper'],
    );
    // The method header read as a call `match(path: string)` is not a call either.
    assert.deepEqual(
      x.calls.map((c) => `${c.caller}->${c.callee}`),
      ['Router.route->split', 'Router->visit', 'helper->norm'],
    );
    assert.deepEqual(x.imports.map((i) => i.specifier), ['./split']);
  });

  it('drops reserved-word declarations only in files with errors, and calls misread from a method header', async function () {
    const broken = 'export class Runner {\n  run() {\n    go();\n    }\n    while (running) {\n      tick();\n    }\n    switch (mode) {\n      case 1: break;\n    }\n  }\n  stop() {}\n}\n';
    const x = await extractFile('src/runner.ts', broken);
    assert.ok(x.parseErrors > 0);
    assert.deepEqual(x.symbols.map((s) => s.qualifiedName), ['Runner', 'Runner.run']);
    assert.deepEqual(x.calls.map((c) => `${c.caller}->${c.callee}`), ['Runner.run->go', 'Runner->tick']);
    // The same member names are legitimate in a clean file (`promise.catch()`, iterator `return()`).
    const clean = await extractFile('src/lazy.ts', 'export class Lazy {\n  catch(f: () => void) { return this; }\n  return() { return { done: true }; }\n}\n');
    assert.equal(clean.parseErrors, 0);
    assert.deepEqual(clean.symbols.map((s) => s.qualifiedName), ['Lazy', 'Lazy.catch', 'Lazy.return']);
  });

  it('keeps whole declarations and sound headers, drops the rest, when recovery wraps the whole file (Python)', async function () {
    const x = await extractFile('pkg/store.py', BROKEN_PY);
    assert.ok(x.parseErrors > 0);
    // The outer ERROR starts at line 1; the first nested one is nearer the missing colon.
    assert.equal(x.parseErrorLine, 6);
    // `first` is whole inside the ERROR node; `Store` has a sound header (its body holds the error, so
    // `load` and the call in it are dropped); recovery never formed `last`.
    assert.deepEqual(x.symbols.map((s) => s.qualifiedName), ['first', 'Store']);
    assert.deepEqual(x.calls.map((c) => `${c.caller}->${c.callee}@${c.line}`), ['first->norm@4']);
    assert.deepEqual(x.imports.map((i) => i.specifier), ['os']);
  });

  it('drops only the broken statement when the error is local (Python)', async function () {
    const source = 'import os\n\nclass Store:\n    def load(self, key):\n        return fetch(key))\n\n    def save(self):\n        write(1)\n';
    const x = await extractFile('pkg/store.py', source);
    assert.equal(x.parseErrorLine, 5);
    assert.deepEqual(x.symbols.map((s) => s.qualifiedName), ['Store', 'Store.load', 'Store.save']);
    assert.deepEqual(x.calls.map((c) => `${c.caller}->${c.callee}`), ['Store.save->write']);
    assert.deepEqual(x.imports.map((i) => i.specifier), ['os']);
  });

  it('reports the first error line and count of a file that only has a MISSING token', async function () {
    const x = await extractFile('a.ts', 'export function ok() { return 1; }\nconst v = f(1;\nexport function after() {}\n');
    assert.ok(x.parseErrors >= 1);
    assert.equal(x.parseErrorLine, 2);
    assert.deepEqual(x.symbols.map((s) => s.name), ['ok', 'after']);
  });
});

describe('TypeScript repair', function () {
  const cases: [string, string][] = [
    ['interface I<in T, out U, in out V> {}', 'interface I<   T,     U,        V> {}'],
    ['interface I<\n  /** c */\n  out T extends X = Y,\n> {}', 'interface I<\n  /** c */\n      T extends X = Y,\n> {}'],
    ['type K = keyof readonly string[];', 'type K = keyof          string[];'],
    ["export type * from './t';", "export      * from './t';"],
    ['class A { static accessor x = 1; private accessor y; }', 'class A { static          x = 1; private          y; }'],
    ["declare module 'm' {\n  global {\n  }\n}", "declare module 'm' {\n  ;      {\n  }\n}"],
    ["let a: import('@x/y').Box[];", `let a: import${'_'.repeat(8)}.Box[];`],
    ['interface I {\n  a?: N | undefined\n  in2?: N\n  in?: string\n}', 'interface I {\n  a?: N | undefined\n  i_2?: N\n  i_?: string\n}'],
    ["type B = import('./a').C['d'];", `type B = import${'_'.repeat(7)}.C['d'];`],
    ["export { _null as null, a as if, b };", 'export { _null as _ull, a as _f, b };'],
    ["import defer * as ns from './a';", "import       * as ns from './a';"],
    ['for (using x of xs) {}\nfor (await using y of ys) {}', 'for (      x of xs) {}\nfor (            y of ys) {}'],
    ['type S = import("m").Box<T, Map<K, V>>;', `type S = import("m").Box${' '.repeat(14)};`],
  ];
  for (const [input, output] of cases) {
    it(`rewrites ${JSON.stringify(input.split('\n')[0])} keeping every offset`, function () {
      assert.equal(repairTypeScript(input), output);
    });
  }

  it('leaves ordinary code alone: identifiers named like the keywords, comparisons, declare global', function () {
    const code = "const out = a < b, accessor = f(in1);\nif (x < out && y) {}\ndeclare global { interface W {} }\nconst t = type; export const all = '*';\n";
    assert.equal(repairTypeScript(code), code);
  });
});

describe('Python repair', function () {
  it('blanks comment-only lines and PEP 696 type parameter defaults, keeping every offset', function () {
    assert.equal(repairPython('class A:\n    @p\n# note\n    def f(self): ...\n'), 'class A:\n    @p\n      \n    def f(self): ...\n');
    assert.equal(
      repairPython('def f[T: int = int, *Ts = *tuple[int, str]](x: T = 3) -> T: ...\n'),
      'def f[T: int      , *Ts                   ](x: T = 3) -> T: ...\n',
    );
    const untouched = 'x = d[k == 1]\ndef f(a=1, b="#"): pass\n';
    assert.equal(repairPython(untouched), untouched);
  });

  it('parses Python 3.13 type parameter defaults with their symbols', async function () {
    const x = await extractFile('pkg/defaults.py', 'class Box[T = int]:\n    def get(self) -> T: ...\ntype Pair[T = str] = tuple[T, T]\n');
    assert.equal(x.parseErrors, 0);
    assert.deepEqual(x.symbols.map((s) => `${s.kind}:${s.qualifiedName}`), ['class:Box', 'method:Box.get', 'type:Pair']);
  });
});
