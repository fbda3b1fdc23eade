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

/** A TypeScript library published as @acme/lib, and an app beside it that imports it by that name (no relative path between them). */
function twoRepos(): { parent: string; lib: string; app: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedview-')));
  const lib = path.join(parent, 'lib');
  const app = path.join(parent, 'app');
  write(lib, {
    'package.json': JSON.stringify({ name: '@acme/lib', type: 'module', version: '1.0.0' }, null, 2),
    'src/index.ts': "export function parseLedger(s: string): string {\n  return normalise(s);\n}\n\nfunction normalise(s: string): string {\n  return s.trim();\n}\n",
  });
  write(app, {
    'package.json': JSON.stringify({ name: 'app', type: 'module', private: true, dependencies: { '@acme/lib': '^1.0.0' } }, null, 2),
    'src/main.ts': "import { parseLedger } from '@acme/lib';\n\nexport function importLedger(input: string): string {\n  return parseLedger(input);\n}\n",
    'src/cli.ts': "import { importLedger } from './main.ts';\n\nexport function run(): string {\n  return importLedger('x');\n}\n",
  });
  return { parent, lib, app };
}

describe('the federated view (graph verbs after federate)', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  let cache: string;
  beforeEach(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedview-cache-'));
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function federated(): Promise<{ lib: string; app: string }> {
    const { parent, lib, app } = twoRepos();
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent, M1ND_CACHE_DIR: cache } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }] })).json;
    assert.deepEqual(r.cross_edges, { depends_on: 1, imports: 1, calls: 1, inherits: 0, references: 0, http_route: 0, contract: 0, config_key: 0 }, JSON.stringify(r));
    return { lib, app };
  }

  it('impact reverse on the library function lists the app caller across the boundary, and its callers further on', async () => {
    await federated();
    const r = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:src/index.ts#parseLedger', direction: 'reverse' })).json;
    assert.equal(r.node.id, 'lib::function:src/index.ts#parseLedger');
    const direct = r.direct.map((d: any) => `${d.id} ${d.relation}`);
    assert.ok(direct.includes('app::function:src/main.ts#importLedger calls'), JSON.stringify(r.direct));
    assert.ok(r.transitive.entries.some((t: any) => t.id === 'app::function:src/cli.ts#run'), JSON.stringify(r.transitive));
    // A `<repo>::path#Name` argument is resolved by that repository.
    const byPath = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::src/index.ts#parseLedger' })).json;
    assert.equal(byPath.node.id, 'lib::function:src/index.ts#parseLedger');
  });

  it('seek finds symbols of both repositories; why walks the cross-repository call', async () => {
    await federated();
    const s = (await h!.call('seek', { agent_id: 'a', query: 'ledger', top_k: 10 })).json;
    const ids = s.results.map((x: any) => x.id);
    assert.ok(ids.includes('lib::function:src/index.ts#parseLedger'), JSON.stringify(ids));
    assert.ok(ids.includes('app::function:src/main.ts#importLedger'), JSON.stringify(ids));
    const w = (await h!.call('why', { agent_id: 'a', source: 'app::function:src/cli.ts#run', target: 'lib::function:src/index.ts#normalise' })).json;
    assert.ok(JSON.stringify(w).includes('lib::function:src/index.ts#parseLedger'), JSON.stringify(w));
  });

  it('is per agent: another agent and federation_view("workspace") answer from the workspace graph', async () => {
    await federated();
    const other = (await h!.call('seek', { agent_id: 'b', query: 'ledger', top_k: 10 })).json;
    assert.ok(other.results.length > 0);
    assert.ok(other.results.every((x: any) => !x.id.includes('::')), JSON.stringify(other.results));
    await h!.call('federation_view', { agent_id: 'a', view: 'workspace' });
    const back = (await h!.call('seek', { agent_id: 'a', query: 'ledger', top_k: 10 })).json;
    assert.ok(back.results.every((x: any) => !x.id.includes('::')), JSON.stringify(back.results));
    const on = (await h!.call('federation_view', { agent_id: 'b', view: 'federated' })).json;
    assert.deepEqual(on.cross_edges, { depends_on: 1, imports: 1, calls: 1, inherits: 0, references: 0 });
    const now = (await h!.call('seek', { agent_id: 'b', query: 'ledger', top_k: 10 })).json;
    assert.ok(now.results.some((x: any) => x.id.startsWith('lib::')), JSON.stringify(now.results));
  });

  it('reads a sibling file through its own root, and refuses climbing out of it', async () => {
    await federated();
    const v = (await h!.call('view', { agent_id: 'a', file_path: 'lib::src/index.ts' })).json;
    assert.equal(v.file_path, 'lib::src/index.ts');
    assert.match(v.content, /export function parseLedger/);
    assert.ok(v.symbols.some((s: any) => s.id === 'lib::function:src/index.ts#parseLedger'), JSON.stringify(v.symbols));
    const out = (await h!.call('view', { agent_id: 'a', file_path: 'lib::../app/src/main.ts' })).json;
    assert.equal(out.error.code, 'M1ND_ERR_PATH_ESCAPE', JSON.stringify(out));
    // A slip in the path: the files suggested are the view's (`<repo>::path`), so passing one back works.
    const slip = (await h!.call('view', { agent_id: 'a', file_path: 'lib::src/indx.ts' })).json;
    assert.equal(slip.error.code, 'M1ND_ERR_PATH_NOT_FOUND', JSON.stringify(slip));
    assert.match(slip.error.hint, /did you mean "lib::src\/index\.ts"/, JSON.stringify(slip));
    const own = (await h!.call('view', { agent_id: 'a', file_path: 'src/mian.ts' })).json;
    assert.match(own.error.hint, /did you mean "app::src\/main\.ts"/, JSON.stringify(own));
  });

  it('follows an edit of the app: the view is rebuilt and the cross edges recomputed', async () => {
    const { app } = await federated();
    fs.writeFileSync(path.join(app, 'src/main.ts'), "import { parseLedger } from '@acme/lib';\n\nexport function importLedger(input: string): string {\n  return input;\n}\n\nexport function auditLedger(input: string): string {\n  return parseLedger(input);\n}\n");
    await h!.call('ingest', { agent_id: 'a', path: app, incremental: true });
    const r = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:src/index.ts#parseLedger' })).json;
    const direct = r.direct.map((d: any) => d.id);
    assert.ok(direct.includes('app::function:src/main.ts#auditLedger'), JSON.stringify(direct));
    assert.ok(!direct.includes('app::function:src/main.ts#importLedger'), JSON.stringify(direct));
  });

  it('reopens the stored federation after a restart with federation_view', async () => {
    const { app } = await federated();
    const parent = path.dirname(app);
    await h!.close();
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent, M1ND_CACHE_DIR: cache } });
    const before = (await h.call('seek', { agent_id: 'a', query: 'ledger', top_k: 10 })).json;
    assert.ok(before.results.every((x: any) => !x.id.includes('::')));
    const on = (await h.call('federation_view', { agent_id: 'a', view: 'federated' })).json;
    assert.equal(on.restored, true);
    const r = (await h.call('impact', { agent_id: 'a', node_id: 'lib::function:src/index.ts#parseLedger' })).json;
    assert.ok(r.direct.some((d: any) => d.id === 'app::function:src/main.ts#importLedger'), JSON.stringify(r.direct));
  });
});
