/**
 * Imports of the package as built, in a checkout nobody has built: tests that import
 * `../dist/index.js` (the tsconfig compiles `src` into `dist`) reach the sources, through the checker
 * and through the name-resolved graph alike, so their calls and `tests` edges are not lost.
 */
import assert from 'node:assert/strict';
import { sortOutputs, sourceOfOutput } from '../../../../plugins/graph/engine/build-outputs.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  // rootDir in the base, outDir in the config that extends it (each relative to its own file).
  'tsconfig-base.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'node16', moduleResolution: 'node16', rootDir: './src' } }),
  'tsconfig.json': JSON.stringify({ extends: './tsconfig-base.json', include: ['src/**/*'], compilerOptions: { outDir: 'dist' } }),
  'package.json': JSON.stringify({ name: 'shelf', type: 'module', main: 'dist/index.js' }),
  'src/index.ts': `export { Store } from './store.js';\nexport { openStore } from './open.js';\n`,
  'src/store.ts': `export class Store {
  private readonly items = new Map<string, number>();
  put(key: string, value: number): void {
    this.items.set(key, value);
  }
  get(key: string): number | undefined {
    return this.items.get(key);
  }
}
`,
  'src/open.ts': `import { Store } from './store.js';

export function openStore(): Store {
  return new Store();
}
`,
  // The tests import the build output, which is not there.
  'test/store.test.ts': `import { openStore } from '../dist/index.js';
import { Store } from '../dist/store.js';

export function testRoundTrip(): boolean {
  const store = openStore();
  store.put('a', 1);
  return store.get('a') === 1;
}

export function testFresh(): boolean {
  return new Store().get('b') === undefined;
}
`,
  // A built file with no source stays unresolved.
  'test/stray.test.ts': `import { nothing } from '../dist/generated.js';\n\nexport function testStray(): unknown {\n  return nothing();\n}\n`,
};

/** The same checkout built: declarations in `dist`, which the engine never ingests. */
const BUILT: Record<string, string> = {
  ...FILES,
  'dist/index.d.ts': `export { Store } from './store.js';\nexport { openStore } from './open.js';\n`,
  'dist/store.d.ts': 'export declare class Store {\n  private readonly items;\n  put(key: string, value: number): void;\n  get(key: string): number | undefined;\n}\n',
  'dist/open.d.ts': `import { Store } from './store.js';\nexport declare function openStore(): Store;\n`,
};

type Entry = { id: string; relation: string };

async function direct(h: Harness, id: string): Promise<Entry[]> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  return json.direct as Entry[];
}
const ids = (entries: Entry[], relation: string): string[] => entries.filter((e) => e.relation.split('+').includes(relation)).map((e) => e.id).sort();

describe('imports of the build output read as the sources it is built from', function () {
  this.timeout(120000);

  it('maps a path under an outDir to the same path under its rootDir, declarations to scripts', () => {
    const outputs = sortOutputs([
      { outDir: 'dist', rootDir: 'src' },
      { outDir: 'packages/a/lib', rootDir: 'packages/a/src' },
      { outDir: '', rootDir: 'src' }, // emitted beside the sources: nothing to map
      { outDir: 'out', rootDir: 'out' },
    ]);
    assert.deepEqual(outputs.map((o) => o.outDir), ['packages/a/lib', 'dist']);
    assert.equal(sourceOfOutput('dist/index.js', outputs), 'src/index.js');
    assert.equal(sourceOfOutput('dist', outputs), 'src');
    assert.equal(sourceOfOutput('dist/sub/a.d.ts', outputs), 'src/sub/a.js');
    assert.equal(sourceOfOutput('packages/a/lib/x.mjs', outputs), 'packages/a/src/x.mjs');
    assert.equal(sourceOfOutput('distant/index.js', outputs), null);
    assert.equal(sourceOfOutput('out/x.js', outputs), null);
  });

  const cases = [
    { name: 'with the checker pass', typeCheck: true, files: FILES },
    { name: 'with the checker pass, the package built (its declarations are no graph nodes)', typeCheck: true, files: BUILT },
    { name: 'name-resolved (typeCheck: false)', typeCheck: false, files: FILES },
  ];
  for (const { name, typeCheck, files } of cases) {
    describe(name, () => {
      let h: Harness;
      before(async () => {
        const ws = writeFixtureRepo(tempDir('m1nd-build-outputs-'), files);
        h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck } } } });
        const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
        if (typeCheck) assert.equal(json.type_checked.failed, 0, JSON.stringify(json.type_checked));
      });
      after(() => h?.close());

      it("links the tests' calls to the source functions and methods", async () => {
        assert.deepEqual(ids(await direct(h, 'function:src/open.ts#openStore'), 'calls'), ['function:test/store.test.ts#testRoundTrip']);
        assert.deepEqual(ids(await direct(h, 'method:src/store.ts#Store.get'), 'calls'), ['function:test/store.test.ts#testFresh', 'function:test/store.test.ts#testRoundTrip']);
      });

      it('lists the test file as testing the source files it reaches', async () => {
        assert.deepEqual(ids(await direct(h, 'method:src/store.ts#Store.put'), 'tests'), ['file:test/store.test.ts']);
        assert.deepEqual(ids(await direct(h, 'file:src/store.ts'), 'imports'), ['file:src/index.ts', 'file:src/open.ts', 'file:test/store.test.ts']);
      });
    });
  }
});
