import assert from 'node:assert/strict';
import type { FileExtraction } from '../../../../../plugins/graph/engine/extraction.ts';
import { extractorFor } from '../../../../../plugins/graph/engine/parsers/index.ts';
import { declarations } from './symbol-shape.ts';

const SOURCE = `package com.example.store;

import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;
import static org.junit.Assert.*;

/**
 * Keeps nodes.
 * @since 1.0
 */
@Service
public class Store<T> extends AbstractStore<T> implements Named, java.io.Closeable {
    private final List<Node> nodes = new ArrayList<>();

    public Store(Config config) {
        super(config);
    }

    /** Adds a node. */
    @Override
    public boolean add(Node node) {
        requireNonNull(node);
        return this.nodes.add(node);
    }

    // not javadoc
    void add(Node node, int index) {
        nodes.add(index, node);
    }

    public interface Listener {
        void changed(Node node);
    }

    static class Cursor implements Iterator<Node> {}
}

interface Named extends Comparable<Named> {
    String name();
}

enum Kind implements Labelled { FILE, SYMBOL; String label() { return name(); } }

record Pair(Node left, Node right) {}
`;

describe('Java extractor', function () {
  let x: FileExtraction;

  before(async function () {
    x = (await extractorFor('java'))('src/main/java/com/example/store/Store.java', SOURCE);
  });

  it('reports classes, interfaces, enums, records, constructors and overloaded methods with Javadoc and public visibility', function () {
    assert.deepEqual(declarations(x.symbols), [
      { kind: 'class', name: 'Store', qualifiedName: 'Store', startLine: 12, endLine: 37, doc: 'Keeps nodes.', exported: true },
      { kind: 'method', name: 'Store', qualifiedName: 'Store.Store', startLine: 16, endLine: 18, parent: 'Store', exported: true, params: ['Config'] },
      { kind: 'method', name: 'add', qualifiedName: 'Store.add', startLine: 21, endLine: 25, parent: 'Store', doc: 'Adds a node.', exported: true, params: ['Node'] },
      { kind: 'method', name: 'add', qualifiedName: 'Store.add#2', startLine: 28, endLine: 30, parent: 'Store', exported: false, params: ['Node', 'int'] },
      { kind: 'interface', name: 'Listener', qualifiedName: 'Store.Listener', startLine: 32, endLine: 34, parent: 'Store', exported: true },
      { kind: 'method', name: 'changed', qualifiedName: 'Store.Listener.changed', startLine: 33, endLine: 33, parent: 'Store.Listener', exported: true, params: ['Node'] },
      { kind: 'class', name: 'Cursor', qualifiedName: 'Store.Cursor', startLine: 36, endLine: 36, parent: 'Store', exported: false },
      { kind: 'interface', name: 'Named', qualifiedName: 'Named', startLine: 39, endLine: 41, exported: false },
      { kind: 'method', name: 'name', qualifiedName: 'Named.name', startLine: 40, endLine: 40, parent: 'Named', exported: false, params: [] },
      { kind: 'type', name: 'Kind', qualifiedName: 'Kind', startLine: 43, endLine: 43, exported: false },
      { kind: 'method', name: 'label', qualifiedName: 'Kind.label', startLine: 43, endLine: 43, parent: 'Kind', exported: false, params: [] },
      { kind: 'type', name: 'Pair', qualifiedName: 'Pair', startLine: 45, endLine: 45, exported: false },
    ]);
  });

  it('reports class, wildcard and static imports', function () {
    assert.deepEqual(x.imports, [
      { specifier: 'java.util.List', line: 3, names: ['List'] },
      { specifier: 'java.util.concurrent', line: 4, names: ['*'] },
      { specifier: 'java.util.Objects', line: 5, names: ['requireNonNull'] },
      { specifier: 'org.junit.Assert', line: 6, names: ['*'] },
    ]);
  });

  it('reports method invocations, object creations and super(...) with receivers and argument shapes', function () {
    assert.deepEqual(x.calls, [
      { caller: 'Store', callee: 'ArrayList', line: 14, args: [] },
      { caller: 'Store.Store', callee: 'super', line: 17, args: ['config'] },
      { caller: 'Store.add', callee: 'requireNonNull', line: 23, args: ['node'] },
      { caller: 'Store.add', callee: 'add', receiver: 'this.nodes', line: 24, args: ['node'] },
      { caller: 'Store.add#2', callee: 'add', receiver: 'nodes', line: 29, args: ['index', 'node'] },
      { caller: 'Kind.label', callee: 'name', line: 43, args: [] },
    ]);
  });

  it('gives literal, new and cast arguments their static type and varargs parameters a trailing ...', function () {
    const src = 'class A {\n  void f(int n, String... rest) { g("s", 1, 2L, 1.5, \'c\', true, new java.util.ArrayList<String>(), (Foo) o, n + 1, null); }\n}\n';
    const y = extractorFor('java').then((e) => e('A.java', src));
    return y.then((e) => {
      assert.deepEqual(e.symbols.find((s) => s.name === 'f')?.params, ['int', 'String...']);
      assert.deepEqual(e.calls[0].args, [':String', ':int', ':long', ':double', ':char', ':boolean', ':ArrayList', ':Foo', '', '']);
    });
  });

  it('reports extends and implements, qualified parents by their last name', function () {
    assert.deepEqual(x.inherits, [
      { child: 'Store', parent: 'AbstractStore', kind: 'extends' },
      { child: 'Store', parent: 'Named', kind: 'implements' },
      { child: 'Store', parent: 'Closeable', kind: 'implements', qualifier: 'java.io' },
      { child: 'Store.Cursor', parent: 'Iterator', kind: 'implements' },
      { child: 'Named', parent: 'Comparable', kind: 'extends' },
      { child: 'Kind', parent: 'Labelled', kind: 'implements' },
    ]);
  });

  it('reports type references in fields, signatures and headers, skipping type parameters, package qualifiers and java.lang types', function () {
    assert.deepEqual(x.references, [
      { from: 'Store', name: 'AbstractStore', line: 13 },
      { from: 'Store', name: 'Named', line: 13 },
      { from: 'Store', name: 'Closeable', line: 13 },
      { from: 'Store', name: 'List', line: 14 },
      { from: 'Store', name: 'Node', line: 14 },
      { from: 'Store', name: 'ArrayList', line: 14 },
      { from: 'Store.Store', name: 'Config', line: 16 },
      { from: 'Store.add', name: 'Node', line: 22 },
      { from: 'Store.add#2', name: 'Node', line: 28 },
      { from: 'Store.Listener.changed', name: 'Node', line: 33 },
      { from: 'Store.Cursor', name: 'Iterator', line: 36 },
      { from: 'Store.Cursor', name: 'Node', line: 36 },
      { from: 'Named', name: 'Comparable', line: 39 },
      { from: 'Named', name: 'Named', line: 39 },
      { from: 'Kind', name: 'Labelled', line: 43 },
      { from: 'Pair', name: 'Node', line: 45 },
    ]);
    assert.equal(x.parseErrors, 0);
    assert.equal(x.loc, 45);
  });

  // gson: api_surface called JsonAdapter undocumented: a `// Note` line sits under its Javadoc.
  it('reads a Javadoc above plain line comments, not one a blank line detaches', async function () {
    const source = [
      'package p;',
      '',
      '/**',
      ' * Chooses the adapter.',
      ' */',
      '// Note that the annotation is read at run time.',
      '// See the guide.',
      '@Retention(RetentionPolicy.RUNTIME)',
      'public @interface JsonAdapter {}',
      '',
      'class Prim {',
      '  /**',
      '   * @param c the character',
      '   */',
      '  public Prim(Character c) {}',
      '',
      '  /** Old. */',
      '',
      '  // detached: the blank line above ends the doc',
      '  void m() {}',
      '}',
    ].join('\n');
    const y = (await extractorFor('java'))('p/JsonAdapter.java', source);
    assert.deepEqual(
      y.symbols.map((sym) => [sym.qualifiedName, sym.doc]),
      [
        ['JsonAdapter', 'Chooses the adapter.'],
        ['Prim', undefined],
        ['Prim.Prim', undefined], // tags alone: no summary
        ['Prim.m', undefined],
      ],
    );
  });
});
