import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

const LIB_PY = `class Base:
    def hook(self):
        return 1


class Model:
    @property
    def size(self):
        return 2

    def run(self):
        return 3


def helper():
    return 4
`;

const APP_PY = `import acmelib
from acmelib import Model


class Sub(acmelib.Base):
    pass


class Own(Model):
    pass


def use(m: acmelib.Model) -> acmelib.Model:
    acmelib.helper()
    return m


def typed():
    m = Model()
    m.run()
    return m.size


def bound():
    m = Model()
    return m.run


def deep(t: acmelib.sub.Thing) -> None:
    return None
`;

describe('federate: the kind of a cross-repository edge', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a base class is inherited, an annotation referenced (through a submodule too); only calls and property reads are calls (Python)', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-kinds-')));
    write(path.join(parent, 'lib'), { 'pyproject.toml': '[project]\nname = "acmelib"\nversion = "1.0"\n', 'acmelib/__init__.py': LIB_PY, 'acmelib/sub.py': 'class Thing:\n    pass\n' });
    write(path.join(parent, 'app'), { 'pyproject.toml': '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["acmelib"]\n', 'app/main.py': APP_PY });
    const app = path.join(parent, 'app');
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: path.join(parent, 'lib') }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation !== 'depends_on' && e.relation !== 'imports').map((e: any) => `${e.source} -${e.relation}-> ${e.target} @${e.evidence.split(':').pop()}`).sort();
    assert.deepEqual(edges, [
      'app::class:app/main.py#Own -inherits-> lib::class:acmelib/__init__.py#Model @9',
      'app::class:app/main.py#Sub -inherits-> lib::class:acmelib/__init__.py#Base @5',
      'app::function:app/main.py#bound -calls-> lib::class:acmelib/__init__.py#Model @25',
      'app::function:app/main.py#deep -references-> lib::class:acmelib/sub.py#Thing @29',
      'app::function:app/main.py#typed -calls-> lib::class:acmelib/__init__.py#Model @19',
      'app::function:app/main.py#typed -calls-> lib::method:acmelib/__init__.py#Model.run @20',
      'app::function:app/main.py#typed -calls-> lib::method:acmelib/__init__.py#Model.size @21',
      'app::function:app/main.py#use -calls-> lib::function:acmelib/__init__.py#helper @14',
      'app::function:app/main.py#use -references-> lib::class:acmelib/__init__.py#Model @13',
    ]);
    assert.deepEqual(r.cross_edges, { depends_on: 1, imports: 1, calls: 5, inherits: 2, references: 2, http_route: 0, contract: 0, config_key: 0 });
    // The federated view says what ties the two classes.
    const why = (await h.call('why', { agent_id: 'a', source: 'app::class:app/main.py#Sub', target: 'lib::class:acmelib/__init__.py#Base' })).json;
    assert.equal(why.paths[0].steps[0].relation, 'inherits');
    const view = (await h.call('federation_view', { agent_id: 'a', view: 'federated' })).json;
    assert.deepEqual(view.cross_edges, { depends_on: 1, imports: 1, calls: 5, inherits: 2, references: 2 });
  });

  it('a class extending or implementing an imported type is inherited (TypeScript)', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-kinds-')));
    write(path.join(parent, 'lib'), {
      'package.json': JSON.stringify({ name: '@acme/lib', type: 'module', version: '1.0.0' }),
      'src/index.ts': 'export class Base {\n  hook(): number {\n    return 1;\n  }\n}\n\nexport interface Shape {\n  area(): number;\n}\n',
    });
    write(path.join(parent, 'app'), {
      'package.json': JSON.stringify({ name: 'app', type: 'module', private: true, dependencies: { '@acme/lib': '^1.0.0' } }),
      'src/main.ts': "import { Base, type Shape } from '@acme/lib';\n\nexport class Sub extends Base implements Shape {\n  area(): number {\n    return 2;\n  }\n}\n",
    });
    const app = path.join(parent, 'app');
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: path.join(parent, 'lib') }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation === 'inherits' || e.relation === 'calls').map((e: any) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, ['app::class:src/main.ts#Sub -inherits-> lib::class:src/index.ts#Base', 'app::class:src/main.ts#Sub -inherits-> lib::interface:src/index.ts#Shape']);
  });

  it("a typed receiver reaches a member its class inherits, a package's name its sources, not its tests (kysely), and `import { X } from '@acme/db'` binds no `db`", async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-kinds-')));
    write(path.join(parent, 'lib'), {
      'package.json': JSON.stringify({ name: '@acme/db', type: 'module', version: '1.0.0' }),
      'src/query-creator.ts': 'export class QueryCreator {\n  selectFrom(table: string): string {\n    return table;\n  }\n}\n',
      'src/kysely.ts': "import { QueryCreator } from './query-creator.ts';\n\nexport class Kysely extends QueryCreator {\n  destroy(): void {}\n}\n",
      'src/util.ts': 'export type Generated<T> = T;\n',
      'test/huge-db.test.ts': 'export type Generated = number;\n',
    });
    write(path.join(parent, 'app'), {
      'package.json': JSON.stringify({ name: 'app', type: 'module', private: true, dependencies: { '@acme/db': '^1.0.0' } }),
      'src/repo.ts': "import { Kysely, type Generated } from '@acme/db';\n\nexport type Id = Generated<number>;\n\nexport function find(db: Kysely): string {\n  return db.selectFrom('user');\n}\n\nexport function close(db: { destroy(): void }): void {\n  db.destroy();\n}\n",
    });
    const app = path.join(parent, 'app');
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: path.join(parent, 'lib') }], top_k: 50 })).json;
    const edges = r.edges.filter((e: any) => e.relation !== 'depends_on').map((e: any) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::file:src/repo.ts -imports-> lib::class:src/kysely.ts#Kysely',
      'app::file:src/repo.ts -imports-> lib::type:src/util.ts#Generated',
      'app::function:src/repo.ts#find -calls-> lib::method:src/query-creator.ts#QueryCreator.selectFrom',
    ]);
  });
});
