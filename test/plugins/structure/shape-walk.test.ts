import assert from 'node:assert/strict';
import '../../../plugins/structure/grammars.ts';
import { parseCode } from '../../../plugins/structure/code-trees.ts';
import { definitionShapes } from '../../../plugins/structure/definition-shapes.ts';

const PY = `"""Module docstring."""
import os
TABLE = {i: (i * 2, str(i), [j for j in range(i)]) for i in range(10)}
handler = lambda x: x + 1


def top(a, b):
    def inner(c):
        return c * 2
    return inner(a) + b


if os.name == "nt":
    def platform_only(x):
        return x
else:
    try:
        class Fallback:
            def method(self, y):
                for k in range(y):
                    yield k
    except ImportError:
        def missing():
            raise
    finally:
        pass

with open(__file__) as f:
    def in_with(z):
        return z

@decorator(arg=lambda: 1)
class Decorated:
    @property
    def value(self):
        return 1

match TABLE:
    case {}:
        def in_case():
            return None

while False:
    def in_loop():
        pass
`;

describe('the Python shape walk', () => {
  it('gives every definition the shape the walk over every node gives, module-level code skipped', async () => {
    const parsed = (await parseCode('python', PY))!;
    try {
      const all = definitionShapes(parsed.tree.rootNode);
      const skipping = definitionShapes(parsed.tree.rootNode, 'python');
      // top, inner, platform_only, Fallback, method, missing, in_with, Decorated, value, in_case, in_loop
      assert.equal(all.length, 11);
      assert.deepEqual(skipping, all);
    } finally {
      parsed.done();
    }
  });
});
