import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { declarations } from './symbol-shape.ts';
import { parseRustImport } from '../../../../../plugins/graph/engine/parsers/rust.ts';

const SOURCE = `//! Crate docs.
use std::collections::{HashMap, hash_map::{Entry, Iter}};
use crate::graph::Node as GraphNode;
use super::*;
mod parser;

/// A node store.
#[derive(Debug, Default)]
pub struct Store<T> {
    nodes: HashMap<u32, Node>,
    extra: T,
}

pub(crate) enum Change { Added(Node), Removed(u32) }

type Index = HashMap<String, Vec<Id>>;

/// Things that can be named.
pub trait Named: Display {
    fn name(&self) -> String;
    fn label(&self) -> String { self.name() }
}

impl<T> Store<T> {
    /// Makes an empty store.
    pub fn new() -> Self {
        Self::with_capacity(8)
    }

    fn insert(&mut self, node: Node) -> Option<Id> {
        self.nodes.insert(node.id, node);
        helpers::log(&node);
        None
    }
}

impl<T> Named for Store<T> {
    fn name(&self) -> String { format!("store") }
}

fn main() {
    let s = Store::<u8>::new();
    s.insert(Node::default()).unwrap();
}

#[cfg(test)]
mod tests {
    fn builds() {}
}
`;

describe('Rust extractor', function () {
  let x: FileExtraction;

  before(async function () {
    x = (await extractorFor('rust'))('src/store.rs', SOURCE);
  });

  it('reports structs, enums, aliases, traits and impl methods qualified by their type', function () {
    assert.deepEqual(declarations(x.symbols), [
      { kind: 'type', name: 'Store', qualifiedName: 'Store', startLine: 9, endLine: 12, doc: 'A node store.', exported: true },
      { kind: 'type', name: 'Change', qualifiedName: 'Change', startLine: 14, endLine: 14, exported: true },
      { kind: 'type', name: 'Index', qualifiedName: 'Index', startLine: 16, endLine: 16, exported: false },
      { kind: 'interface', name: 'Named', qualifiedName: 'Named', startLine: 19, endLine: 22, doc: 'Things that can be named.', exported: true },
      { kind: 'method', name: 'name', qualifiedName: 'Named.name', startLine: 20, endLine: 20, parent: 'Named', exported: true },
      { kind: 'method', name: 'label', qualifiedName: 'Named.label', startLine: 21, endLine: 21, parent: 'Named', exported: true },
      { kind: 'method', name: 'new', qualifiedName: 'Store.new', startLine: 26, endLine: 28, parent: 'Store', doc: 'Makes an empty store.', exported: true },
      { kind: 'method', name: 'insert', qualifiedName: 'Store.insert', startLine: 30, endLine: 34, parent: 'Store', exported: false },
      { kind: 'method', name: 'name', qualifiedName: 'Store.name', startLine: 38, endLine: 38, parent: 'Store', exported: true },
      { kind: 'function', name: 'main', qualifiedName: 'main', startLine: 41, endLine: 44, exported: false },
      { kind: 'function', name: 'builds', qualifiedName: 'tests.builds', startLine: 48, endLine: 48, exported: false, test: true },
    ]);
  });

  it('splits use trees into one import per path prefix and maps mod declarations to self::', function () {
    assert.deepEqual(x.imports, [
      { specifier: 'std::collections', line: 2, names: ['HashMap'] },
      { specifier: 'std::collections::hash_map', line: 2, names: ['Entry', 'Iter'] },
      { specifier: 'crate::graph', line: 3, names: ['Node'] },
      { specifier: 'super', line: 4, names: ['*'] },
      { specifier: 'self::parser', line: 5, names: [] },
    ]);
  });

  it('parses single-segment and grouped self imports', function () {
    const out: Parameters<typeof parseRustImport>[2] = [];
    parseRustImport('serde', 1, out);
    parseRustImport('std::io::{self, Read as R}', 2, out);
    parseRustImport('pub(crate) mod graph;', 3, out);
    assert.deepEqual(out, [
      { specifier: 'serde', line: 1, names: [] },
      { specifier: 'std::io', line: 2, names: ['self', 'Read'] },
      { specifier: 'self::graph', line: 3, names: [] },
    ]);
  });

  it('reports method and path calls with receivers, without macros', function () {
    assert.deepEqual(x.calls, [
      { caller: 'Named.label', callee: 'name', receiver: 'self', line: 21 },
      { caller: 'Store.new', callee: 'with_capacity', receiver: 'Self', line: 27 },
      { caller: 'Store.insert', callee: 'insert', receiver: 'self.nodes', line: 31 },
      { caller: 'Store.insert', callee: 'log', receiver: 'helpers', line: 32 },
      { caller: 'main', callee: 'new', receiver: 'Store', line: 42 },
      { caller: 'main', callee: 'insert', receiver: 's', line: 43 },
      { caller: 'main', callee: 'default', receiver: 'Node', line: 43 },
      { caller: 'main', callee: 'unwrap', receiver: 's.insert(Node::default())', line: 43 },
    ]);
  });

  it('marks unit tests living in a source file: #[test]-like functions and the items of a #[cfg(test)] module, nothing else', async function () {
    const y = (await extractorFor('rust'))('src/lib.rs', `#[inline]
pub fn parse_version(b: &[u8]) -> u8 { b[0] }

#[test]
fn top_level_test() { parse_version(b"1"); }

#[tokio::test]
async fn async_test() {}

#[cfg(all(test, feature = "std"))]
mod std_tests {
    fn helper() -> u8 { 1 }
    #[test]
    fn uses_helper() { helper(); }
}

mod inner {
    pub fn not_a_test() {}
}
`);
    const tests = y.symbols.filter((s) => s.test).map((s) => s.qualifiedName);
    assert.deepEqual(tests, ['top_level_test', 'async_test', 'std_tests.helper', 'std_tests.uses_helper']);
  });

  it('names an impl on a slice ([u8], [MaybeUninit<u8>] without its path), so its fns are methods, not top-level functions', async function () {
    const y = (await extractorFor('rust'))('src/buf.rs', `pub trait Buf { fn remaining(&self) -> usize; }
impl Buf for &[u8] { fn remaining(&self) -> usize { self.len() } }
impl Buf for &mut [u16] { fn remaining(&self) -> usize { self.len() } }
impl Buf for &mut [core::mem::MaybeUninit< u8 >] { fn remaining(&self) -> usize { self.len() } }
`);
    assert.deepEqual(y.symbols.map((s) => [s.kind, s.qualifiedName, s.parent]), [
      ['interface', 'Buf', undefined],
      ['method', 'Buf.remaining', 'Buf'],
      ['method', '[u8].remaining', '[u8]'],
      ['method', '[u16].remaining', '[u16]'],
      ['method', '[MaybeUninit<u8>].remaining', '[MaybeUninit<u8>]'],
    ]);
    assert.deepEqual(y.inherits, [
      { child: '[u8]', parent: 'Buf', kind: 'implements' },
      { child: '[u16]', parent: 'Buf', kind: 'implements' },
      { child: '[MaybeUninit<u8>]', parent: 'Buf', kind: 'implements' },
    ]);
  });

  it('reports supertraits as extends and trait impls as implements', function () {
    assert.deepEqual(x.inherits, [
      { child: 'Named', parent: 'Display', kind: 'extends' },
      { child: 'Store', parent: 'Named', kind: 'implements' },
    ]);
  });

  it('reports type references in fields, signatures and impl headers, skipping prelude types and type parameters', function () {
    assert.deepEqual(x.references, [
      { from: 'Store', name: 'Node', line: 10 },
      { from: 'Change', name: 'Node', line: 14 },
      { from: 'Index', name: 'Id', line: 16 },
      { from: 'Named', name: 'Display', line: 19 },
      { from: 'Store.insert', name: 'Node', line: 30 },
      { from: 'Store.insert', name: 'Id', line: 30 },
      { from: 'Store', name: 'Named', line: 37 },
      { from: 'main', name: 'Store', line: 42 },
    ]);
    assert.equal(x.parseErrors, 0);
    assert.equal(x.loc, 49);
  });
});
