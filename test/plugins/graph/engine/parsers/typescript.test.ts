import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { declarations } from './symbol-shape.ts';

const TS_SOURCE = `import { readFile } from 'node:fs/promises';
import type { Graph } from './graph.ts';
import * as path from 'node:path';
import Parser, { Query as Q } from 'web-tree-sitter';
export { helper } from './helper.ts';
export * from './types.ts';

/** Something that can be indexed. */
export interface Indexable extends Named {
  index(graph: Graph): Promise<void>;
}

export type NodeId = string | Symbol2;

export enum Kind { File, Symbol }

/**
 * Builds the index.
 *
 * @param root where to start
 */
export class Indexer extends Base implements Indexable {
  private cache = new Map<string, Entry>();

  constructor(private readonly root: string) {
    super();
  }

  // Indexes one graph.
  async index(graph: Graph): Promise<void> {
    const text = await readFile(path.join(this.root, 'a'), 'utf8');
    this.cache.set(text, toEntry(text));
    graph?.add(new Node(text));
  }

  private reset(): void {}
}

export const toEntry = (text: string): Entry => ({ text });

function local(): void {
  const load = () => require('./lazy.js');
  void import('./dynamic.ts');
}

export { local };
`;

describe('TypeScript extractor', function () {
  let x: FileExtraction;

  before(async function () {
    x = (await extractorFor('typescript'))('src/indexer.ts', TS_SOURCE);
  });

  it('reports interfaces, types, enums, classes, methods and arrow functions with ranges, visibility and JSDoc', function () {
    assert.deepEqual(declarations(x.symbols), [
      { kind: 'interface', name: 'Indexable', qualifiedName: 'Indexable', startLine: 9, endLine: 11, doc: 'Something that can be indexed.', exported: true },
      { kind: 'method', name: 'index', qualifiedName: 'Indexable.index', startLine: 10, endLine: 10, parent: 'Indexable', exported: true },
      { kind: 'type', name: 'NodeId', qualifiedName: 'NodeId', startLine: 13, endLine: 13, exported: true },
      { kind: 'type', name: 'Kind', qualifiedName: 'Kind', startLine: 15, endLine: 15, exported: true },
      { kind: 'class', name: 'Indexer', qualifiedName: 'Indexer', startLine: 22, endLine: 37, doc: 'Builds the index.', exported: true },
      { kind: 'method', name: 'constructor', qualifiedName: 'Indexer.constructor', startLine: 25, endLine: 27, parent: 'Indexer', exported: true },
      { kind: 'method', name: 'index', qualifiedName: 'Indexer.index', startLine: 30, endLine: 34, parent: 'Indexer', doc: 'Indexes one graph.', exported: true },
      { kind: 'method', name: 'reset', qualifiedName: 'Indexer.reset', startLine: 36, endLine: 36, parent: 'Indexer', exported: false },
      { kind: 'function', name: 'toEntry', qualifiedName: 'toEntry', startLine: 39, endLine: 39, exported: true },
      { kind: 'function', name: 'local', qualifiedName: 'local', startLine: 41, endLine: 44, exported: true },
      { kind: 'function', name: 'load', qualifiedName: 'local.load', startLine: 42, endLine: 42, parent: 'local', exported: false },
    ]);
  });

  it('reports imports, re-exports, require() and import() with their names', function () {
    assert.deepEqual(x.imports, [
      { specifier: 'node:fs/promises', line: 1, names: ['readFile'] },
      { specifier: './graph.ts', line: 2, names: ['Graph'], typeOnly: true },
      { specifier: 'node:path', line: 3, names: ['*'], alias: 'path' },
      { specifier: 'web-tree-sitter', line: 4, names: ['default as Parser', 'Query as Q'] },
      { specifier: './helper.ts', line: 5, names: ['helper'] },
      { specifier: './types.ts', line: 6, names: ['*'] },
      { specifier: './lazy.js', line: 42, names: [] },
      { specifier: './dynamic.ts', line: 43, names: [] },
    ]);
  });

  it('reports calls and constructions with caller, callee and receiver', function () {
    assert.deepEqual(x.calls, [
      { caller: 'Indexer', callee: 'Map', line: 23 },
      { caller: 'Indexer.index', callee: 'readFile', line: 31 },
      { caller: 'Indexer.index', callee: 'join', receiver: 'path', line: 31 },
      { caller: 'Indexer.index', callee: 'set', receiver: 'this.cache', line: 32 },
      { caller: 'Indexer.index', callee: 'toEntry', line: 32 },
      { caller: 'Indexer.index', callee: 'add', receiver: 'graph', line: 33 },
      { caller: 'Indexer.index', callee: 'Node', line: 33 },
      { caller: 'local.load', callee: 'require', line: 42 },
    ]);
  });

  it('reports extends and implements for classes and interfaces', function () {
    assert.deepEqual(x.inherits, [
      { child: 'Indexable', parent: 'Named', kind: 'extends' },
      { child: 'Indexer', parent: 'Base', kind: 'extends' },
      { child: 'Indexer', parent: 'Indexable', kind: 'implements' },
    ]);
  });

  it('reports type references from annotations without library types', function () {
    assert.deepEqual(x.references, [
      { from: 'Indexable', name: 'Named', line: 9 },
      { from: 'Indexable.index', name: 'Graph', line: 10 },
      { from: 'NodeId', name: 'Symbol2', line: 13 },
      { from: 'Indexer', name: 'Indexable', line: 22 },
      { from: 'Indexer', name: 'Entry', line: 23 },
      { from: 'Indexer.index', name: 'Graph', line: 30 },
      { from: 'toEntry', name: 'Entry', line: 39 },
    ]);
    assert.equal(x.parseErrors, 0);
    assert.equal(x.loc, 46);
  });

  it('merges overload signatures into one symbol: the implementation, spanning them, with their text', async function () {
    const source = `export function parse(a: string): Tree;
export function parse(a: Buffer): Tree;
export function parse(a: any): Tree { return build(a); }
declare function ambient(): void;
export class Req {
  header(name: string): string;
  header(): Headers;
  header(name?: string): unknown {
    const inner = () => name;
    return inner();
  }
}
export interface Api {
  get(a: string): void;
  get(a: number): void;
}
`;
    const y = (await extractorFor('typescript'))('p.ts', source);
    assert.deepEqual(
      y.symbols.map((s) => [s.qualifiedName, s.startLine, s.endLine, s.exported, s.parent ?? null]),
      [
        ['parse', 1, 3, true, null],
        ['ambient', 4, 4, false, null],
        ['Req', 5, 12, true, null],
        ['Req.header', 6, 11, true, 'Req'],
        ['Req.header.inner', 9, 9, false, 'Req.header'],
        ['Api', 13, 16, true, null],
        ['Api.get', 14, 15, true, 'Api'],
      ],
    );
    assert.deepEqual(y.symbols[0].signatures, ['export function parse(a: string): Tree;', 'export function parse(a: Buffer): Tree;']);
    assert.deepEqual(y.symbols[3].signatures, ['header(name: string): string;', 'header(): Headers;']);
    assert.deepEqual(y.symbols[6].signatures, ['get(a: string): void;', 'get(a: number): void;'], 'a declare-only set keeps every signature');
    assert.deepEqual(y.calls.map((c) => [c.caller, c.callee]), [['parse', 'build'], ['Req.header', 'inner']]);
  });

  it('keeps same-named functions with bodies apart: methods of two object literals are no overload set', async function () {
    const source = `export const plugins = [
  { validate(v: unknown) { return !!v; } },
  { validate(v: unknown) { return v !== null; } },
]
export function pick(a: string): string
export function pick(a: number): number
export function pick(a: any) { return a }
`;
    const y = (await extractorFor('typescript'))('p.ts', source);
    assert.deepEqual(
      y.symbols.map((s) => [s.qualifiedName, s.startLine, s.endLine]),
      [
        ['validate', 2, 2],
        ['validate#2', 3, 3],
        ['pick', 5, 7],
      ],
    );
    assert.ok(y.symbols.every((s) => !('bodiless' in s)), 'the extraction-time mark is removed');
  });

  it('counts syntax errors', async function () {
    const y = (await extractorFor('typescript'))('bad.ts', 'const = ;\nfunction ok() {}\n');
    assert.ok(y.parseErrors > 0);
  });
});

describe('TSX extractor', function () {
  it('reports capitalised JSX elements as calls to components, not intrinsic elements', async function () {
    const source = `import React from 'react';
import { Button } from './button';

export function App({ title }: Props) {
  const onClick = () => track('click');
  return <Layout><Button onClick={onClick} /><ui.Icon /><div /></Layout>;
}
`;
    const x = (await extractorFor('tsx'))('app.tsx', source);
    assert.deepEqual(x.symbols, [
      { kind: 'function', name: 'App', qualifiedName: 'App', startLine: 4, endLine: 7, exported: true },
      { kind: 'function', name: 'onClick', qualifiedName: 'App.onClick', startLine: 5, endLine: 5, parent: 'App', exported: false },
    ]);
    assert.deepEqual(x.imports, [
      { specifier: 'react', line: 1, names: ['default as React'] },
      { specifier: './button', line: 2, names: ['Button'] },
    ]);
    assert.deepEqual(x.calls, [
      { caller: 'App.onClick', callee: 'track', line: 5 },
      { caller: 'App', callee: 'Layout', line: 6 },
      { caller: 'App', callee: 'Button', line: 6 },
      { caller: 'App', callee: 'Icon', receiver: 'ui', line: 6 },
    ]);
    assert.deepEqual(x.references, [{ from: 'App', name: 'Props', line: 4 }]);
    assert.equal(x.language, 'tsx');
  });
});

describe('JavaScript extractor', function () {
  it('reads CommonJS exports, class fields holding arrow functions, generators and JSDoc', async function () {
    const source = `'use strict';
const { join } = require('path');

/** A shape. */
class Shape extends mixins.Base {
  area = () => 0;
  describe() {
    return \`\${this.name}: \${this.area()}\`;
  }
}

function* ids() { yield join('a'); }

module.exports = { Shape, ids };
`;
    const x = (await extractorFor('javascript'))('shape.js', source);
    assert.deepEqual(x.symbols, [
      { kind: 'class', name: 'Shape', qualifiedName: 'Shape', startLine: 5, endLine: 10, doc: 'A shape.', exported: true },
      { kind: 'method', name: 'area', qualifiedName: 'Shape.area', startLine: 6, endLine: 6, parent: 'Shape', exported: true },
      { kind: 'method', name: 'describe', qualifiedName: 'Shape.describe', startLine: 7, endLine: 9, parent: 'Shape', exported: true },
      { kind: 'function', name: 'ids', qualifiedName: 'ids', startLine: 12, endLine: 12, exported: true },
    ]);
    assert.deepEqual(x.imports, [{ specifier: 'path', line: 2, names: ['join'] }]);
    assert.deepEqual(x.calls, [
      { caller: null, callee: 'require', line: 2 },
      { caller: 'Shape.describe', callee: 'area', receiver: 'this', line: 8 },
      { caller: 'ids', callee: 'join', line: 12 },
    ]);
    assert.deepEqual(x.inherits, [{ child: 'Shape', parent: 'Base', kind: 'extends', qualifier: 'mixins' }]);
    assert.deepEqual(x.references, []);
  });

  it('reads the methods of a prototype object literal and of a module.exports object', async function () {
    const source = `function Queue() {
  this.items = [];
}

Queue.prototype = {
  constructor: Queue,
  push: function (x) { this.items.push(x); },
  shift() { return this.items.shift(); },
  size: () => 0,
};

module.exports = {
  create: function () { return new Queue(); },
  drain(q) { while (q.shift()) {} },
  name: 'queue',
};
`;
    const x = (await extractorFor('javascript'))('queue.js', source);
    assert.deepEqual(
      x.symbols.map((s) => [s.kind, s.qualifiedName, s.startLine, s.exported]),
      [
        ['class', 'Queue', 1, false],
        ['method', 'Queue.push', 7, false],
        ['method', 'Queue.shift', 8, false],
        ['method', 'Queue.size', 9, false],
        ['function', 'create', 13, true],
        ['function', 'drain', 14, true],
      ],
    );
    assert.ok(x.calls.some((c) => c.caller === 'Queue.push' && c.callee === 'push' && c.receiver === 'this.items'));
  });

  it('reads methods declared by assignment, constructor functions as classes, and what a require binds', async function () {
    const source = `var util = require('./util');
var copy = require('./util').copy;
var { a, b: bee } = require('./ab');
var debug = require('debug')('x');

/** Makes a list. */
function List() {
  this.items = [];
}

List.prototype.add = function (x) {
  this.items.push(copy(x));
};

List.from = function from(xs) {
  return new List();
};

var app = exports = module.exports = {};

app.use = function use(fn) {
  return this.add(fn);
};

exports.make = () => new List();
module.exports.size = function (l) { return l.items.length; };
app.get = app.header = function header(name) { return name; };
List.prototype.on = List.prototype.addListener = function (fn) { this.add(fn); };
`;
    const x = (await extractorFor('javascript'))('list.js', source);
    assert.deepEqual(
      x.symbols.map((s) => [s.kind, s.qualifiedName, s.startLine, s.endLine, s.exported]),
      [
        ['class', 'List', 7, 9, false],
        ['method', 'List.add', 11, 13, false],
        ['method', 'List.from', 15, 17, false],
        ['method', 'app.use', 21, 23, false],
        ['function', 'make', 25, 25, true],
        ['function', 'size', 26, 26, true],
        ['method', 'app.header', 27, 27, false],
        ['method', 'List.addListener', 28, 28, false],
      ],
    );
    assert.equal(x.symbols[0].doc, 'Makes a list.');
    assert.deepEqual(x.imports, [
      { specifier: './util', line: 1, names: [], alias: 'util' },
      { specifier: './util', line: 2, names: ['copy'] },
      { specifier: './ab', line: 3, names: ['a', 'b as bee'] },
      { specifier: 'debug', line: 4, names: [] },
    ]);
    assert.ok(x.calls.some((c) => c.caller === 'List.add' && c.callee === 'copy'));
    assert.ok(x.calls.some((c) => c.caller === 'List.from' && c.callee === 'List'), 'new List() in List.from names the class');
    assert.ok(x.calls.some((c) => c.caller === 'app.use' && c.callee === 'add' && c.receiver === 'this'));
  });
});
