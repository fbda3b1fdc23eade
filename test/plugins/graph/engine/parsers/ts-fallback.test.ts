import assert from 'node:assert/strict';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { extractWithTypeScript } from '../../../../../plugins/graph/engine/parsers/ts-fallback.ts';
import { parseTsImport } from '../../../../../plugins/graph/engine/parsers/typescript.ts';

const CLEAN = `import { a } from './a';
import * as ns from './ns';

/** Parses things. */
export function parse(x: string): string {
  const inner = (y: string) => a(y);
  return inner(x);
}

export interface Shape {
  area(): number;
}

export type Id = string;
enum Color { Red }

export class Circle implements Shape {
  private radius = 1;
  onClick = () => ns.log('click');
  constructor(r: number) {
    this.radius = r;
  }
  area(): number {
    return helper(this.radius);
  }
  private static make(): Circle {
    return new Circle(1);
  }
}

namespace Util {
  export function twice(n: number) {
    return n * 2;
  }
}

function helper(r: number): number {
  return r * r;
}
export { helper };
`;

const shape = (symbols: { kind: string; qualifiedName: string; startLine: number; exported?: boolean; parent?: string }[]) =>
  symbols.map((s) => [s.kind, s.qualifiedName, s.startLine, s.exported, s.parent ?? null]);

describe('TS/JS symbols from the TypeScript parser', function () {
  it('names, kinds, lines, parents and visibility agree with the tree-sitter extractor on a clean file', async function () {
    const ts = (await extractorFor('typescript'))('m.ts', CLEAN);
    assert.equal(ts.parseErrors, 0);
    const fallback = extractWithTypeScript({ ...ts, parseErrors: 1 }, CLEAN, parseTsImport)!;
    assert.deepEqual(shape(fallback.symbols), shape(ts.symbols));
    assert.deepEqual(fallback.imports, ts.imports);
    assert.deepEqual(fallback.inherits, ts.inherits);
    assert.deepEqual(
      fallback.calls.map((c) => [c.caller, c.callee, c.line]),
      ts.calls.map((c) => [c.caller, c.callee, c.line]),
    );
  });

  it('keeps the tree-sitter extraction when the TypeScript parser finds as many errors', async function () {
    const src = 'const = ;\nfunction ok() {}\n';
    const ts = (await extractorFor('typescript'))('bad.ts', src);
    assert.equal(extractWithTypeScript({ ...ts, parseErrors: 1 }, src, parseTsImport), null);
  });

  it('reads valid modern TypeScript the grammar stumbles on without errors and with every symbol', async function () {
    const src = `export abstract class Model {
  declare readonly [key: string]: unknown;
  protected abstract accessor id: number;
  save(): void {}
}

export function load(): Model | null {
  return null;
}
`;
    const y = (await extractorFor('typescript'))('model.ts', src);
    assert.equal(y.parseErrors, 0, 'valid TypeScript is not reported as broken');
    assert.deepEqual(shape(y.symbols), [
      ['class', 'Model', 1, true, null],
      ['method', 'Model.save', 4, true, 'Model'],
      ['function', 'load', 7, true, null],
    ]);
  });
});
