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

const LIB = {
  'pyproject.toml': '[project]\nname = "acmelib"\nversion = "1.0"\n',
  'acmelib/__init__.py': 'def helper():\n    return 1\n',
  'acmelib/server.py': 'class Server:\n    def run(self):\n        return 2\n',
  'acmelib/ws.py': 'class Server:\n    def run(self):\n        return 3\n',
};

async function federate(h: Harness, parent: string): Promise<any> {
  await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
  return (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: path.join(parent, 'lib') }], top_k: 50 })).json;
}

describe('federate: what the evidence of a cross-repository edge really names', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('reads the dependencies a pip requirements file lists (uvicorn declares httpx in requirements.txt alone)', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-req-')));
    write(path.join(parent, 'lib'), LIB);
    write(path.join(parent, 'app'), {
      'pyproject.toml': '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["click"]\n',
      'requirements.txt': '-e .[standard]\n\n# Testing\n--hash=sha256:00 acmelib\nacmelib==1.0  # pinned\n',
      'app/main.py': 'import acmelib\n\n\ndef main():\n    return acmelib.helper()\n',
    });
    h = await connect({ workspaceRoot: path.join(parent, 'app'), env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    const r = await federate(h, parent);
    const edges = r.edges.map((e: any) => `${e.source} -${e.relation}-> ${e.target} @${e.evidence}`).sort();
    assert.deepEqual(edges, [
      'app::function:app/main.py#main -calls-> lib::function:acmelib/__init__.py#helper @app::app/main.py:5',
      // The graph holds no node for requirements.txt or pyproject.toml: the repository's root module stands for it.
      'app::module:. -depends_on-> lib::module:. @app::requirements.txt:5',
    ]);
    // Every end of an edge the answer lists is a node of the federated view (lib::file:pyproject.toml was none).
    for (const e of r.edges) for (const id of [e.source, e.target]) assert.equal((await h.call('impact', { agent_id: 'a', node_id: id, max_depth: 1 })).json.node?.id, id);
  });

  it('`from lib.server import Server` names that module\'s Server alone, and binds no module `server`', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-sub-')));
    write(path.join(parent, 'lib'), LIB);
    write(path.join(parent, 'app'), {
      'pyproject.toml': '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["acmelib"]\n',
      'app/main.py': 'from acmelib.server import Server\n\n\nclass TestServer(Server):\n    pass\n\n\ndef serve(server: TestServer):\n    return server.run\n',
    });
    h = await connect({ workspaceRoot: path.join(parent, 'app'), env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    const r = await federate(h, parent);
    const edges = r.edges.filter((e: any) => e.relation !== 'depends_on').map((e: any) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::class:app/main.py#TestServer -inherits-> lib::class:acmelib/server.py#Server',
      'app::file:app/main.py -imports-> lib::class:acmelib/server.py#Server',
    ]);
  });

  it('a requirements file installing a sibling folder (`-e ../lib`) is an outside reference, a candidate and a dependency', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-req-')));
    write(path.join(parent, 'lib'), LIB);
    write(path.join(parent, 'app'), {
      'requirements-dev.txt': '-e ../lib\npytest==8.0\n',
      'app/main.py': 'import acmelib\n\n\ndef main():\n    return acmelib.helper()\n',
    });
    const app = path.join(parent, 'app');
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const ext = (await h.call('external_references', { agent_id: 'a' })).json;
    assert.deepEqual(ext.references.map((x: any) => `${x.kind} ${x.file}:${x.line} ${x.target}`), ['manifest requirements-dev.txt:1 ../lib']);
    const auto = (await h.call('federate_auto', { agent_id: 'a', current_repo_name: 'app' })).json;
    assert.deepEqual(auto.candidates.map((c: any) => [c.path, c.packages]), [['../lib', ['acmelib']]], JSON.stringify(auto).slice(0, 500));
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: '../lib' }], top_k: 50 })).json;
    assert.deepEqual(r.edges.map((e: any) => `${e.source} -${e.relation}-> ${e.target} @${e.evidence}`).sort(), [
      'app::function:app/main.py#main -calls-> lib::function:acmelib/__init__.py#helper @app::app/main.py:5',
      'app::module:. -depends_on-> lib::module:. @app::requirements-dev.txt:1',
    ]);
  });
});
