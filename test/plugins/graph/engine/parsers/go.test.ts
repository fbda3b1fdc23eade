import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { declarations } from './symbol-shape.ts';

const SOURCE = `// Package store keeps nodes.
package store

import (
	"fmt"
	str "strings"
	. "math"
	_ "embed"
)

// Store keeps nodes
// in memory.
type Store struct {
	sync.Mutex
	nodes map[string]*Node
	count int
}

// Reader reads nodes.
type Reader interface {
	io.Closer
	Read(id string) (*Node, error)
}

type (
	ID    string
	// visitor walks.
	visitor func(n *Node) bool
)

// Add stores a node.
func (s *Store) Add(n *Node) error {
	s.Lock()
	defer s.Unlock()
	s.nodes[n.ID] = n
	return fmt.Errorf("added %s", str.ToUpper(n.Name))
}

func (s Store) count() int { return len(s.nodes) }

func NewStore[T any](seed T) *Store {
	return &Store{nodes: make(map[string]*Node)}
}
`;

describe('Go extractor', function () {
  let x: FileExtraction;

  before(async function () {
    x = (await extractorFor('go'))('store/store.go', SOURCE);
  });

  it('reports named types, interfaces, receiver methods and functions with capitalised names exported', function () {
    assert.deepEqual(declarations(x.symbols), [
      { kind: 'type', name: 'Store', qualifiedName: 'Store', startLine: 13, endLine: 17, doc: 'Store keeps nodes in memory.', exported: true },
      { kind: 'interface', name: 'Reader', qualifiedName: 'Reader', startLine: 20, endLine: 23, doc: 'Reader reads nodes.', exported: true },
      { kind: 'type', name: 'ID', qualifiedName: 'ID', startLine: 26, endLine: 26, exported: true },
      { kind: 'type', name: 'visitor', qualifiedName: 'visitor', startLine: 28, endLine: 28, doc: 'visitor walks.', exported: false },
      { kind: 'method', name: 'Add', qualifiedName: 'Store.Add', startLine: 32, endLine: 37, parent: 'Store', doc: 'Add stores a node.', exported: true },
      { kind: 'method', name: 'count', qualifiedName: 'Store.count', startLine: 39, endLine: 39, parent: 'Store', exported: false },
      { kind: 'function', name: 'NewStore', qualifiedName: 'NewStore', startLine: 41, endLine: 43, exported: true },
    ]);
  });

  it('reports import paths with aliases and dot imports', function () {
    assert.deepEqual(x.imports, [
      { specifier: 'fmt', line: 5, names: [] },
      { specifier: 'strings', line: 6, names: [], alias: 'str' },
      { specifier: 'math', line: 7, names: ['*'] },
      { specifier: 'embed', line: 8, names: [] },
    ]);
  });

  it('reports calls with package and value receivers', function () {
    assert.deepEqual(x.calls, [
      { caller: 'Store.Add', callee: 'Lock', receiver: 's', line: 33 },
      { caller: 'Store.Add', callee: 'Unlock', receiver: 's', line: 34 },
      { caller: 'Store.Add', callee: 'Errorf', receiver: 'fmt', line: 36 },
      { caller: 'Store.Add', callee: 'ToUpper', receiver: 'str', line: 36 },
      { caller: 'Store.count', callee: 'len', line: 39 },
      { caller: 'NewStore', callee: 'make', line: 42 },
    ]);
  });

  it('reports embedded structs and interfaces as extends', function () {
    assert.deepEqual(x.inherits, [
      { child: 'Store', parent: 'Mutex', kind: 'extends', qualifier: 'sync' },
      { child: 'Reader', parent: 'Closer', kind: 'extends', qualifier: 'io' },
    ]);
  });

  it('reports type references without predeclared types and type parameters', function () {
    assert.deepEqual(x.references, [
      { from: 'Store', name: 'Mutex', line: 14 },
      { from: 'Store', name: 'Node', line: 15 },
      { from: 'Reader', name: 'Closer', line: 21 },
      { from: 'Reader', name: 'Node', line: 22 },
      { from: 'visitor', name: 'Node', line: 28 },
      { from: 'Store.Add', name: 'Store', line: 32 },
      { from: 'Store.Add', name: 'Node', line: 32 },
      { from: 'Store.count', name: 'Store', line: 39 },
      { from: 'NewStore', name: 'Store', line: 41 },
      { from: 'NewStore', name: 'Store', line: 42 },
      { from: 'NewStore', name: 'Node', line: 42 },
    ]);
    assert.equal(x.parseErrors, 0);
    assert.equal(x.loc, 43);
  });
});
