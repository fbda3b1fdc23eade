import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { declarations } from './symbol-shape.ts';

const SOURCE = `"""Module docstring."""
import os.path
import numpy as np
from ..pkg.mod import (Reader as R,  # trailing comment
    Writer)
from . import sibling
from .sub import *

class Base:
    pass


class Store(Base, abc.Mapping, metaclass=Meta):
    """Keeps items.

    Longer description.
    """

    limit: int = 10

    def __init__(self, path: str, reader: "Reader") -> None:
        self.path = os.path.join(path, "db")
        self._load(reader)

    def _load(self, reader: Reader | None) -> list[Item]:
        def parse(line: str) -> Item:
            return Item.parse(line)
        return [parse(l) for l in reader.lines()]

    @property
    def size(self) -> int:
        return len(self.items)

    @size.setter
    def size(self, value: int) -> None:
        raise AttributeError("read-only")


def _helper():
    '''Private helper.'''
    return Store("x", None)

main = _helper()
`;

// A decorator `@size.setter` reads `size.setter` too (its receiver resolves to nothing).
const ACCESSES = ['Store abc.Mapping 13', 'Store.__init__ self.path 22', 'Store.__init__ os.path 22', 'Store.size self.items 32', 'Store size.setter 34'];

describe('Python extractor', function () {
  let x: FileExtraction;
  let extract: Awaited<ReturnType<typeof extractorFor>>;

  before(async function () {
    extract = await extractorFor('python');
    x = extract('pkg/store.py', SOURCE);
  });

  it('reports classes, methods and nested functions with ranges, parents, visibility and docstrings', function () {
    assert.deepEqual(declarations(x.symbols), [
      { kind: 'class', name: 'Base', qualifiedName: 'Base', startLine: 9, endLine: 10, exported: true },
      { kind: 'class', name: 'Store', qualifiedName: 'Store', startLine: 13, endLine: 36, doc: 'Keeps items.', exported: true },
      { kind: 'method', name: '__init__', qualifiedName: 'Store.__init__', startLine: 21, endLine: 23, parent: 'Store', exported: true },
      { kind: 'method', name: '_load', qualifiedName: 'Store._load', startLine: 25, endLine: 28, parent: 'Store', exported: false },
      { kind: 'function', name: 'parse', qualifiedName: 'Store._load.parse', startLine: 26, endLine: 27, parent: 'Store._load', exported: false },
      // The setter is merged into the property: one symbol from the getter to the setter's end.
      { kind: 'method', name: 'size', qualifiedName: 'Store.size', startLine: 31, endLine: 36, parent: 'Store', exported: true, property: true, accessors: [35] },
      { kind: 'function', name: '_helper', qualifiedName: '_helper', startLine: 39, endLine: 41, doc: 'Private helper.', exported: false },
    ]);
  });

  it('keeps relative dots in from-import specifiers and lists imported names and aliases', function () {
    assert.deepEqual(x.imports, [
      { specifier: 'os.path', line: 2, names: [] },
      { specifier: 'numpy', line: 3, names: [], alias: 'np' },
      { specifier: '..pkg.mod', line: 4, names: ['Reader as R', 'Writer'] },
      { specifier: '.', line: 6, names: ['sibling'] },
      { specifier: '.sub', line: 7, names: ['*'] },
    ]);
  });

  it('reports every call with its caller, callee and receiver', function () {
    assert.deepEqual(x.calls.filter((c) => !c.access), [
      { caller: 'Store.__init__', callee: 'join', receiver: 'os.path', line: 22 },
      { caller: 'Store.__init__', callee: '_load', receiver: 'self', line: 23 },
      { caller: 'Store._load.parse', callee: 'parse', receiver: 'Item', line: 27 },
      { caller: 'Store._load', callee: 'parse', line: 28 },
      { caller: 'Store._load', callee: 'lines', receiver: 'reader', line: 28 },
      { caller: 'Store.size', callee: 'len', line: 32 },
      { caller: 'Store.size', callee: 'AttributeError', line: 36 },
      { caller: '_helper', callee: 'Store', line: 41 },
      { caller: null, callee: '_helper', line: 43 },
    ]);
  });

  it('reports attribute reads and writes that are not calls, once per caller, receiver and name, without dunders', function () {
    assert.deepEqual(
      x.calls.filter((c) => c.access).map((c) => `${c.caller} ${c.receiver}.${c.callee} ${c.line}`),
      ACCESSES,
    );
    const small = extract('pkg/small.py', 'def f(x):\n    x.a = 1\n    print(x.a, x.__class__)\n    x.b()\n');
    assert.deepEqual(small.calls.map((c) => `${c.receiver ?? ''}.${c.callee} ${c.line} ${c.access === true}`), ['x.a 2 true', '.print 3 false', 'x.b 4 false']);
  });

  it('reports base classes but not keyword arguments such as metaclass', function () {
    assert.deepEqual(x.inherits, [
      { child: 'Store', parent: 'Base', kind: 'extends' },
      { child: 'Store', parent: 'Mapping', kind: 'extends', qualifier: 'abc' },
    ]);
  });

  it('reports annotation types, including string and union annotations, without builtins', function () {
    assert.deepEqual(x.references, [
      { from: 'Store.__init__', name: 'Reader', line: 21 },
      { from: 'Store._load', name: 'Reader', line: 25 },
      { from: 'Store._load', name: 'Item', line: 25 },
      { from: 'Store._load.parse', name: 'Item', line: 26 },
    ]);
  });

  it('counts lines and reports a clean parse', function () {
    assert.equal(x.loc, 43);
    assert.equal(x.parseErrors, 0);
    assert.equal(x.language, 'python');
    assert.equal(x.path, 'pkg/store.py');
    assert.deepEqual(x.docLinks, []);
  });
});
