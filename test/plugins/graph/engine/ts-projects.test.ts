/**
 * How the TS/JS checker pass builds its programs: a config whose `extends` target is missing takes
 * the config above it as its base, configs with equal options share one program, a warm-up's
 * programs are kept by the check that follows, and a file added later joins a program.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ProjectSet } from '../../../../plugins/graph/engine/ts-program/projects.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  // Generated output the engine does not ingest: no program takes it either.
  '.gitignore': 'gen/\n',
  'gen/out.js': 'export function generated() {}\n',
  // `core/*` resolves only through the root's paths.
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', noEmit: true, paths: { 'core/*': ['./src/*'] } },
    include: ['src'],
  }),
  'src/calc.ts': `export class Calc {
  add(a: number, b: number): number {
    return a + b;
  }
}

export class Tally {
  add(n: number): number {
    return n;
  }
}

export function makeCalc(): Calc {
  return new Calc();
}
`,
  // Generated bases, absent until a framework runs: the root's options are the closest guess.
  'examples/one/tsconfig.json': JSON.stringify({ extends: './.gen/tsconfig.json' }),
  'examples/one/main.ts': `import { makeCalc } from 'core/calc';

export function runOne(): number {
  return makeCalc().add(1, 2);
}
`,
  'examples/two/tsconfig.json': JSON.stringify({ extends: './.gen/tsconfig.json' }),
  'examples/two/main.ts': `import { makeCalc as make } from 'core/calc';

export function runTwo(): number {
  return make().add(3, 4);
}
`,
};

type Entry = { id: string; relation: string };

/** Direct callers of a node (relation `calls`), sorted. */
async function callers(h: Harness, id: string): Promise<string[]> {
  const { json } = await h.call('impact', { agent_id: 'q', node_id: id, direction: 'reverse', max_depth: 1, detail: 'full' });
  assert.ok(Array.isArray(json.direct), JSON.stringify(json).slice(0, 300));
  return (json.direct as Entry[])
    .filter((e) => e.relation.split('+').includes('calls'))
    .map((e) => e.id)
    .sort();
}

describe('TS checker programs: configs with missing bases, shared programs, warm-up, new files', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir('m1nd-tsprojects-'), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
  });
  after(() => h?.close());

  it('resolves imports of configs whose base is missing through the paths of the config above, in one shared program', async () => {
    const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
    assert.deepEqual({ precise: json.type_checked.precise, failed: json.type_checked.failed }, { precise: 3, failed: 0 });
    // Root, examples/one and examples/two end up with equal options: one program.
    assert.equal(json.type_checked.last_pass.programs, 1);
    assert.deepEqual(await callers(h, 'method:src/calc.ts#Calc.add'), ['function:examples/one/main.ts#runOne', 'function:examples/two/main.ts#runTwo']);
    assert.deepEqual(await callers(h, 'method:src/calc.ts#Tally.add'), []);
  });

  it('checks a file added after the pass with the program its config owns', async () => {
    fs.writeFileSync(path.join(ws, 'src/extra.ts'), `import { makeCalc } from './calc';\n\nexport function extra(): number {\n  return makeCalc().add(5, 6);\n}\n`);
    const { json } = await h.call('ingest', { agent_id: 'setup', path: ws, incremental: true });
    assert.deepEqual({ precise: json.type_checked.precise, failed: json.type_checked.failed, pending: json.type_checked.pending }, { precise: 4, failed: 0, pending: 0 });
    assert.ok((await callers(h, 'method:src/calc.ts#Calc.add')).includes('function:src/extra.ts#extra'));
  });

  it('keeps the programs a warm-up built when the check sends the same files and hashes', () => {
    const set = new ProjectSet(ws);
    set.warm('fp');
    const files = ['src/calc.ts', 'src/extra.ts', 'examples/one/main.ts'];
    const before = files.map((f) => set.serviceOf(f));
    assert.ok(before.every((s) => s !== undefined));
    assert.equal(set.serviceOf('gen/out.js'), undefined, 'gitignored files are not warmed');
    const hashed = files.map((f) => ({ path: f, hash: set.hashRead(f)! }));
    set.update(hashed, 'fp');
    assert.deepEqual(
      files.map((f) => set.serviceOf(f)),
      before,
      'same services',
    );
    // Changed configs (another fingerprint) rebuild them.
    set.update(hashed, 'other');
    assert.notEqual(set.serviceOf('src/calc.ts'), before[0]);
    set.releaseRetired();
  });
});
