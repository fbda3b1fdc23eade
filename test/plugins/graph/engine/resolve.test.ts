import { strict as assert } from 'node:assert';
import { posix } from 'node:path';
import type { Language } from '../../../../plugins/graph/engine/extraction.ts';
import { ResolveCache, resolveImport, type PathIndex, type ResolverConfig } from '../../../../plugins/graph/engine/resolve.ts';

function index(paths: string[]): PathIndex {
  const set = new Set(paths);
  const dir = (p: string): string => (posix.dirname(p) === '.' ? '' : posix.dirname(p));
  return {
    has: (p) => set.has(p),
    filesInDir: (d) => paths.filter((p) => dir(p) === d).sort(),
    filesNamed: (b) => paths.filter((p) => posix.basename(p) === b),
    directories: () => new Set(paths.map(dir)),
  };
}

function resolve(files: string[], from: string, language: Language, specifier: string, names: string[] = [], config: ResolverConfig = { goModules: [] }) {
  return resolveImport({ specifier, line: 1, names }, from, language, index(files), config, new ResolveCache());
}

describe('resolveImport', () => {
  describe('TypeScript / JavaScript', () => {
    const files = ['src/a.ts', 'src/b.ts', 'src/util/index.ts', 'src/c.tsx', 'src/d.mjs', 'src/e.js', 'lib/x.ts'];
    it('probes extensions, index files, and `.js` written for a `.ts` source', () => {
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', './b').targets, ['src/b.ts']);
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', './b.js').targets, ['src/b.ts']);
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', './util').targets, ['src/util/index.ts']);
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', './c').targets, ['src/c.tsx']);
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', './d.mjs').targets, ['src/d.mjs']);
      assert.deepEqual(resolve(files, 'src/util/index.ts', 'typescript', '../e').targets, ['src/e.js']);
    });
    it("resolves a folder named by '.' or '..' to its index, the workspace root's too (express's tests: require('..'))", () => {
      const withRoot = ['index.js', 'lib/express.js', 'test/app.js', 'examples/hello/index.js', 'lib/router/index.js', 'lib/router/route.js'];
      assert.deepEqual(resolve(withRoot, 'test/app.js', 'javascript', '..').targets, ['index.js']);
      assert.deepEqual(resolve(withRoot, 'examples/hello/index.js', 'javascript', '../..').targets, ['index.js']);
      assert.deepEqual(resolve(withRoot, 'lib/router/route.js', 'javascript', '.').targets, ['lib/router/index.js']);
      assert.deepEqual(resolve(withRoot, 'lib/express.js', 'javascript', './router').targets, ['lib/router/index.js']);
    });
    it('marks bare packages external and missing relative files not_found', () => {
      assert.equal(resolve(files, 'src/a.ts', 'typescript', 'react').unresolved, 'external');
      assert.equal(resolve(files, 'src/a.ts', 'typescript', './nope').unresolved, 'not_found');
      assert.equal(resolve(files, 'src/a.ts', 'typescript', '../../outside').unresolved, 'not_found');
    });
    it('applies tsconfig paths and baseUrl', () => {
      const config: ResolverConfig = { goModules: [], tsPaths: { baseDir: '', paths: { '@lib/*': ['lib/*'] } }, tsBaseUrl: 'src' };
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', '@lib/x', [], config).targets, ['lib/x.ts']);
      assert.deepEqual(resolve(files, 'src/a.ts', 'typescript', 'util', [], config).targets, ['src/util/index.ts']);
    });
  });

  describe('Python', () => {
    const files = ['pkg/__init__.py', 'pkg/a.py', 'pkg/sub/__init__.py', 'pkg/sub/b.py', 'src/app/__init__.py', 'src/app/main.py', 'Lib/json/__init__.py', 'top.py'];
    it('resolves absolute modules from the root, src/ and Lib/, as files or packages', () => {
      assert.deepEqual(resolve(files, 'pkg/a.py', 'python', 'pkg.sub.b').targets, ['pkg/sub/b.py']);
      assert.deepEqual(resolve(files, 'pkg/a.py', 'python', 'pkg.sub').targets, ['pkg/sub/__init__.py']);
      assert.deepEqual(resolve(files, 'pkg/a.py', 'python', 'app.main').targets, ['src/app/main.py']);
      assert.deepEqual(resolve(files, 'pkg/a.py', 'python', 'json').targets, ['Lib/json/__init__.py']);
      assert.deepEqual(resolve(files, 'pkg/a.py', 'python', 'top').targets, ['top.py']);
      assert.equal(resolve(files, 'pkg/a.py', 'python', 'numpy').unresolved, 'external');
    });
    it('resolves relative imports and names that are submodules', () => {
      assert.deepEqual(resolve(files, 'pkg/sub/b.py', 'python', '..a').targets, ['pkg/a.py']);
      assert.deepEqual(resolve(files, 'pkg/sub/b.py', 'python', '.', ['b']).targets, ['pkg/sub/__init__.py', 'pkg/sub/b.py']);
      const r = resolve(files, 'pkg/a.py', 'python', '.sub', ['b', 'thing']);
      assert.deepEqual(r.targets, ['pkg/sub/__init__.py', 'pkg/sub/b.py']);
      assert.deepEqual([...(r.submodules ?? [])], [['b', 'pkg/sub/b.py']]);
      assert.equal(resolve(files, 'pkg/a.py', 'python', '.nothere').unresolved, 'not_found');
    });
  });

  describe('Rust', () => {
    const files = ['src/lib.rs', 'src/graph/mod.rs', 'src/graph/node.rs', 'src/util.rs', 'src/util/fmt.rs', 'crates/c/src/main.rs', 'crates/c/src/x.rs'];
    it('resolves crate::, self::, super:: and mod declarations to module files', () => {
      assert.deepEqual(resolve(files, 'src/util.rs', 'rust', 'crate::graph::node', ['Node']).targets, ['src/graph/node.rs']);
      assert.deepEqual(resolve(files, 'src/graph/node.rs', 'rust', 'super').targets, ['src/graph/mod.rs']);
      assert.deepEqual(resolve(files, 'src/graph/node.rs', 'rust', 'crate::util::fmt::Writer').targets, ['src/util/fmt.rs']);
      assert.deepEqual(resolve(files, 'src/graph/mod.rs', 'rust', 'self::node').targets, ['src/graph/node.rs']);
      assert.deepEqual(resolve(files, 'src/lib.rs', 'rust', 'self::graph').targets, ['src/graph/mod.rs']);
      assert.deepEqual(resolve(files, 'src/util.rs', 'rust', 'self::fmt').targets, ['src/util/fmt.rs']);
      assert.deepEqual(resolve(files, 'crates/c/src/main.rs', 'rust', 'crate::x').targets, ['crates/c/src/x.rs']);
      assert.equal(resolve(files, 'src/lib.rs', 'rust', 'serde', ['Serialize']).unresolved, 'external');
    });
    it('reports names that are submodules', () => {
      const r = resolve(files, 'src/lib.rs', 'rust', 'crate::graph', ['node', 'Thing']);
      assert.deepEqual([...(r.submodules ?? [])], [['node', 'src/graph/node.rs']]);
    });
  });

  describe('Go', () => {
    const files = ['go.mod', 'cmd/app/main.go', 'internal/store/store.go', 'internal/store/db.go', 'internal/store/store_test.go'];
    const config: ResolverConfig = { goModules: [{ dir: '', module: 'example.com/app' }] };
    it('maps an import path under the go.mod module to the package files (tests excluded)', () => {
      assert.deepEqual(resolve(files, 'cmd/app/main.go', 'go', 'example.com/app/internal/store', [], config).targets, ['internal/store/db.go', 'internal/store/store.go']);
      assert.equal(resolve(files, 'cmd/app/main.go', 'go', 'fmt', [], config).unresolved, 'external');
      assert.equal(resolve(files, 'cmd/app/main.go', 'go', 'example.com/app/missing', [], config).unresolved, 'not_found');
    });
  });

  describe('Java', () => {
    const files = ['src/main/java/com/acme/App.java', 'src/main/java/com/acme/util/Strings.java', 'src/main/java/com/acme/util/Lists.java'];
    it('maps a.b.C to a/b/C.java under any source root, and wildcards to the package', () => {
      assert.deepEqual(resolve(files, 'src/main/java/com/acme/App.java', 'java', 'com.acme.util.Strings', ['Strings']).targets, ['src/main/java/com/acme/util/Strings.java']);
      assert.deepEqual(resolve(files, 'src/main/java/com/acme/App.java', 'java', 'com.acme.util', ['*']).targets, ['src/main/java/com/acme/util/Lists.java', 'src/main/java/com/acme/util/Strings.java']);
      assert.deepEqual(resolve(files, 'src/main/java/com/acme/App.java', 'java', 'com.acme.util.Strings', ['join']).targets, ['src/main/java/com/acme/util/Strings.java']);
      assert.equal(resolve(files, 'src/main/java/com/acme/App.java', 'java', 'java.util.List', ['List']).unresolved, 'external');
    });
  });
});
