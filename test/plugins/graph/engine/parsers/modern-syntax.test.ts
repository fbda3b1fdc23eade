import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractFile } from '../../../../../plugins/graph/engine/parsers/index.ts';

/** Qualified names with kind initials (`f:name`), in source order. */
function symbols(x: FileExtraction): string[] {
  return x.symbols.map((s) => `${s.kind}:${s.qualifiedName}`);
}

async function clean(path: string, source: string): Promise<FileExtraction> {
  const x = await extractFile(path, source);
  assert.equal(x.parseErrors, 0, `${path} parses without errors (first at line ${x.parseErrorLine})`);
  assert.equal(x.parseErrorLine, undefined);
  return x;
}

const TS_MODERN = `import fs = require('fs');
export type * from './types';
export type * as shapes from './shapes';
import data from './d.json' with { type: 'json' };

export interface Box<in I, out O, in out X> { put(v: I): O }
export type Keys = keyof readonly string[];
export type Getter<K extends string> = \`get\${Capitalize<K>}\`;
type Ctor = abstract new (...args: any[]) => object;
export type Store = import("./store").Store<string, number>;

declare module 'plugin' {
  global {
    interface Window { plugin: Plugin }
  }
  export function register(): void;
}

@Component({ selector: 'app' })
export class Widget<const T extends readonly unknown[]> {
  static accessor count = 0;
  private accessor label: string = '';
  @Input() accessor size = 1;
  constructor(@Inject(TOKEN) private readonly t: T) {}
  @Memo get value(): number { return 1; }
  override render(): void {
    using handle = open();
    const cfg = { a: 1 } satisfies Config;
    assertString(cfg);
  }
}

export function assertString(x: unknown): asserts x is string {}
export async function load() {
  await using res = acquire();
}
export const enum Mode { Fast = 1, Slow = Fast << 1 }
`;

describe('modern syntax parses cleanly and yields its symbols', function () {
  it('TypeScript 5.x: satisfies, decorators, accessor, const and variance type parameters, using, nested global, export type *', async function () {
    const x = await clean('src/modern.ts', TS_MODERN);
    assert.deepEqual(symbols(x), [
      'interface:Box',
      'method:Box.put',
      'type:Keys',
      'type:Getter',
      'type:Ctor',
      'type:Store',
      'interface:Window',
      'function:register',
      'class:Widget',
      'method:Widget.constructor',
      'method:Widget.value',
      'method:Widget.render',
      'function:assertString',
      'function:load',
      'type:Mode',
    ]);
    assert.deepEqual(
      x.imports.map((i) => [i.specifier, i.line]),
      [['fs', 1], ['./types', 2], ['./shapes', 3], ['./d.json', 4], ['./store', 10]],
    );
    assert.ok(x.calls.some((c) => c.callee === 'assertString' && c.caller === 'Widget.render' && c.line === 29));
  });

  it('TSX: arrow generics and satisfies next to JSX', async function () {
    const x = await clean('src/view.tsx', 'export const id = <T,>(x: T) => x;\nexport const View = <T extends object>(p: P<T>) => <Item x={p} />;\nconst c = { a: 1 } satisfies R;\n');
    assert.deepEqual(symbols(x), ['function:id', 'function:View']);
    assert.deepEqual(x.calls.map((c) => [c.caller, c.callee]), [['View', 'Item']]);
  });

  it('JavaScript: decorators with accessor, using, private in, static blocks', async function () {
    const x = await clean('src/mod.js', '@dec class A {\n  @dec m() {}\n  @dec static accessor x = 1;\n  static { init(); }\n  static is(o) { return #x in o; }\n  #x;\n}\nasync function g() { await using r = f(); }\n');
    assert.deepEqual(symbols(x), ['class:A', 'method:A.m', 'method:A.is', 'function:g']);
  });

  it('Python 3.12: type statements, PEP 695 generics, match, walrus, nested f-strings, except*', async function () {
    const source = [
      'type Point = tuple[float, float]',
      'type Pair[T] = tuple[T, T]',
      'def first[T: (int, str), *Ts, **P](xs: list[T]) -> T:',
      '    if (n := len(xs)) > 0:',
      '        return xs[0]',
      '    s = f"{", ".join(f\'{x!r:>{n}}\' for x in xs)}"',
      'class Stack[T](Base[T]):',
      '    def push(self, item: T) -> Point:',
      '        match item:',
      '            case [x, *rest] if x:',
      '                pass',
      '            case {"k": v, **kw}:',
      '                pass',
      '            case _:',
      '                pass',
      'try:',
      '    pass',
      'except* ValueError as e:',
      '    pass',
      '',
    ].join('\n');
    const x = await clean('pkg/modern.py', source);
    assert.deepEqual(symbols(x), ['type:Point', 'type:Pair', 'function:first', 'class:Stack', 'method:Stack.push']);
    // Type parameters are not references to workspace types; `Point` is.
    assert.deepEqual(x.references.map((r) => `${r.from}->${r.name}`), ['Stack.push->Point']);
  });

  it('Python: a comment line at column 0 between a decorator and its def (valid for CPython)', async function () {
    const source = 'class Child(Parent):\n    @property\n# a note at column 0\n    def attr(self) -> str:\n        return "x"\n\n    def other(self):\n        pass\n';
    const x = await clean('pkg/child.py', source);
    assert.deepEqual(symbols(x), ['class:Child', 'method:Child.attr', 'method:Child.other']);
    assert.deepEqual(x.symbols.map((s) => [s.startLine, s.endLine]), [[1, 8], [4, 5], [7, 8]]);
  });

  it('Go generics, Java records, sealed types and switch patterns, Rust let-else and async closures', async function () {
    const go = await clean('m.go', 'package m\nfunc Map[T, U any](s []T, f func(T) U) []U { return nil }\ntype List[T comparable] struct{ v []T }\nfunc (l *List[T]) Push(v T) {}\nfunc f() { for i := range 10 { _ = i } }\n');
    assert.deepEqual(symbols(go), ['function:Map', 'type:List', 'method:List.Push', 'function:f']);
    const java = await clean(
      'A.java',
      'sealed interface Shape permits Circle {}\nrecord Circle(int r) implements Shape {}\nclass A { int f(Object o) { return switch (o) { case Circle(int r) when r > 0 -> r; case null, default -> 0; }; }\n String s = """\n  hi\n  """; }\n',
    );
    assert.deepEqual(symbols(java), ['interface:Shape', 'type:Circle', 'class:A', 'method:A.f']);
    const rust = await clean('m.rs', 'fn f(o: Option<i32>) { let Some(x) = o else { return; }; let c = async |y: i32| y + x; }\n');
    assert.deepEqual(symbols(rust), ['function:f']);
  });
});
