import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import '../../../plugins/structure/grammars.ts';
import { parseCode, type Tree } from '../../../plugins/structure/code-trees.ts';
import { walkTree } from '../../../plugins/structure/tree-walk.ts';
import { treeSitterModule, type Language } from '../../../plugins/graph/api.ts';

/** Every node in walk order: type id, type name, start and end rows (read at every node: a row read must leave the cursor where it was). */
function visit(tree: Tree, publicCursor: boolean): { kind: string; nodes: string[] } {
  const walk = walkTree(tree.rootNode, publicCursor);
  const nodes: string[] = [];
  try {
    for (;;) {
      const id = walk.typeId();
      nodes.push(`${id}:${walk.typeName(id)}:${walk.startRow()}-${walk.endRow()}`);
      if (walk.gotoFirstChild()) continue;
      let up = false;
      while (!walk.gotoNextSibling()) {
        if (!walk.gotoParent()) {
          up = true;
          break;
        }
      }
      if (up) break;
    }
  } finally {
    walk.done();
  }
  return { kind: walk.kind, nodes };
}

const DEEP = `def f():\n    return ${'('.repeat(3000)}1${')'.repeat(3000)}\n`;
const sources: [Language, string][] = [
  ['typescript', readFileSync(new URL('../../../plugins/structure/file-facts.ts', import.meta.url), 'utf8')],
  ['python', 'class A:\n    def m(self, x):\n        return [y for y in x if y] or f"{x!r:>{10}}"\n\n\ndef broken(:\n    pass\n'],
  ['python', DEEP],
  ['go', 'package p\n\nfunc F(a int) int {\n\tif a > 0 {\n\t\treturn a\n\t}\n\treturn -a\n}\n'],
];

describe('the syntax-tree walk', () => {
  it('visits the same nodes with the same types and rows through the runtime\'s cursor functions as through the public cursor', async () => {
    for (const [language, text] of sources) {
      const parsed = (await parseCode(language, text))!;
      try {
        const raw = visit(parsed.tree, false);
        const pub = visit(parsed.tree, true);
        assert.equal(raw.kind, 'raw', 'the server thread started its runtime with a module object');
        assert.equal(pub.kind, 'public');
        assert.ok(raw.nodes.length > 20, `${language}: ${raw.nodes.length} nodes`);
        assert.deepEqual(raw.nodes, pub.nodes, language);
      } finally {
        parsed.done();
      }
    }
  });

  it('leaves the runtime usable by the public API between and after walks (a cursor stack 3,000 deep included)', async () => {
    const parsed = (await parseCode('python', DEEP))!;
    try {
      const before = parsed.tree.rootNode.descendantCount;
      const deepest = visit(parsed.tree, false).nodes.length;
      assert.equal(deepest, before, 'every node visited once');
      const cursor = parsed.tree.rootNode.walk();
      assert.ok(cursor.gotoFirstChild());
      assert.equal(cursor.nodeType, 'function_definition');
      cursor.delete();
      assert.equal(parsed.tree.rootNode.descendantCount, before);
      assert.equal(visit(parsed.tree, false).nodes.length, before);
    } finally {
      parsed.done();
    }
  });

  it('finds the runtime from a second copy of the engine\'s loader (a hot reload loads its modules again)', async () => {
    const url = new URL('../../../plugins/graph/engine/parsers/tree-sitter.ts', import.meta.url).href;
    const copy = (await import(`${url}?copy=${Date.now()}`)) as { treeSitterModule(): object; wasmMemoryBytes(): number };
    assert.notEqual(copy.treeSitterModule, treeSitterModule, 'a second module instance');
    assert.equal(copy.treeSitterModule(), treeSitterModule(), 'one module object per thread');
    assert.ok(copy.wasmMemoryBytes() > 0, 'the copy sees the started runtime\'s memory');
  });
});
