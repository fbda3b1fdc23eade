import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { git, touch, write } from '../history/git-fixture.ts';

/** A Python library and a TypeScript app beside it, each its own git repository with a scripted history. */
function twoGitRepos(): { parent: string; lib: string; app: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedsearch-')));
  const lib = path.join(parent, 'lib');
  const app = path.join(parent, 'app');
  write(lib, {
    'pyproject.toml': '[project]\nname = "ledgerlib"\nversion = "1.0.0"\n',
    'ledgerlib/parse.py': 'def parse_ledger(text):\n    """Reads the quarterly ledger format."""\n    return text.split("|")\n',
    'ledgerlib/audit.py': 'from ledgerlib.parse import parse_ledger\n\ndef audit(text):\n    # reconcile the zebra accounts\n    return len(parse_ledger(text))\n',
    'ledgerlib/unrelated.py': 'def other():\n    return 1\n',
  });
  write(app, {
    'package.json': JSON.stringify({ name: 'app', private: true }, null, 2),
    'src/main.ts': 'export function main(): number {\n  return 1;\n}\n',
    'src/util.ts': 'export function helper(): number {\n  return 2;\n}\n',
  });
  for (const dir of [lib, app]) {
    git(dir, ['init', '-q', '-b', 'main']);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'initial']);
  }
  // parse.py and audit.py change together three times in the library; the app has its own history.
  touch(lib, ['ledgerlib/parse.py', 'ledgerlib/audit.py'], 2, 'pipe separated ledgers');
  touch(lib, ['ledgerlib/parse.py', 'ledgerlib/audit.py'], 4, 'quoted fields');
  touch(lib, ['ledgerlib/parse.py', 'ledgerlib/audit.py'], 6, 'escape pipes');
  touch(lib, ['ledgerlib/unrelated.py'], 7, 'other');
  touch(app, ['src/main.ts', 'src/util.ts'], 3, 'app change');
  return { parent, lib, app };
}

describe('the federated view: search, passages and history across repositories', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  let cache: string;
  let lib: string;
  let app: string;
  before(async () => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedsearch-cache-'));
    let parent: string;
    ({ parent, lib, app } = twoGitRepos());
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent, M1ND_CACHE_DIR: cache } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }] })).json;
    assert.equal(r.repos.length, 2, JSON.stringify(r));
  });
  after(async () => {
    await h?.close();
  });

  it('search finds text in the sibling repository, with a <repo>::path', async () => {
    const r = (await h!.call('search', { agent_id: 'a', query: 'zebra accounts' })).json;
    assert.deepEqual(r.matches.map((m: any) => `${m.path}:${m.line}`), ['lib::ledgerlib/audit.py:4'], JSON.stringify(r));
    assert.equal(r.total_matches, 1);
    // Another agent (not federated) searches the workspace only.
    const other = (await h!.call('search', { agent_id: 'b', query: 'zebra accounts' })).json;
    assert.equal(other.total_matches, 0, JSON.stringify(other));
  });

  it('search scopes to one repository, counts per <repo>::path, and regex works across both', async () => {
    const scoped = (await h!.call('search', { agent_id: 'a', query: 'def |function ', mode: 'regex', scope: 'lib::ledgerlib' })).json;
    assert.ok(scoped.matches.length >= 3 && scoped.matches.every((m: any) => m.path.startsWith('lib::ledgerlib/')), JSON.stringify(scoped.matches));
    // A bare repository name is that repository whole (the workspace has no folder by that name).
    for (const scope of ['lib', 'lib/', 'lib::']) {
      const whole = (await h!.call('search', { agent_id: 'a', query: 'def |function ', mode: 'regex', scope })).json;
      assert.ok(whole.matches.length >= 3 && whole.matches.every((m: any) => m.path.startsWith('lib::')), `${scope}: ${JSON.stringify(whole).slice(0, 400)}`);
    }
    const seek = (await h!.call('seek', { agent_id: 'a', query: 'parse ledger', scope: 'lib' })).json;
    assert.ok(seek.results.length > 0 && seek.results.every((r: any) => r.id.startsWith('lib::')), JSON.stringify(seek).slice(0, 400));
    const both = (await h!.call('search', { agent_id: 'a', query: 'def |function ', mode: 'regex', count_only: true })).json;
    const paths = both.counts.map((c: any) => c.path).sort();
    assert.ok(paths.includes('app::src/main.ts') && paths.includes('lib::ledgerlib/parse.py'), JSON.stringify(both));
  });

  it('refuses a search scope that climbs out of a sibling', async () => {
    const r = (await h!.call('search', { agent_id: 'a', query: 'x', scope: 'lib::../app' })).json;
    assert.equal(r.error.code, 'M1ND_ERR_PATH_ESCAPE', JSON.stringify(r));
  });

  it('semantic search returns a passage of the sibling, read through its own root', async () => {
    const r = (await h!.call('search', { agent_id: 'a', query: 'quarterly ledger format', mode: 'semantic' })).json;
    const top = r.results.find((p: any) => p.path === 'lib::ledgerlib/parse.py');
    assert.ok(top, JSON.stringify(r.results));
    assert.match(top.text, /quarterly ledger format/);
  });

  it('timeline answers for a sibling file from that repository\'s own git: commits, churn, co-change partner', async () => {
    const r = (await h!.call('timeline', { agent_id: 'a', node: 'lib::ledgerlib/parse.py', depth: 'all' })).json;
    assert.equal(r.file, 'lib::ledgerlib/parse.py', JSON.stringify(r));
    assert.equal(r.total_commits, 4, JSON.stringify(r));
    assert.ok(r.churn.lines >= 3, JSON.stringify(r.churn));
    assert.equal(r.co_changes[0].file, 'lib::ledgerlib/audit.py', JSON.stringify(r.co_changes));
    assert.equal(r.co_changes[0].support, 4); // the initial commit and the three together
    // No commit touches both repositories, so no app file is a partner of a library file.
    assert.ok(r.co_changes.every((c: any) => c.file.startsWith('lib::')), JSON.stringify(r.co_changes));
    // The sibling's mined log lives in this workspace's store, never inside the sibling.
    assert.deepEqual(fs.readdirSync(lib).sort(), ['.git', 'ledgerlib', 'pyproject.toml']);
    const appSide = (await h!.call('timeline', { agent_id: 'a', node: 'app::src/main.ts', depth: 'all' })).json;
    assert.equal(appSide.total_commits, 2, JSON.stringify(appSide));
    assert.equal(appSide.co_changes[0].file, 'app::src/util.ts', JSON.stringify(appSide.co_changes));
    assert.equal(appSide.co_changes[0].support, 2);
  });

  it('predict and ghost_edges read the merged history too', async () => {
    const p = (await h!.call('predict', { agent_id: 'a', changed_node: 'lib::ledgerlib/parse.py' })).json;
    assert.equal(p.predictions[0].file, 'lib::ledgerlib/audit.py', JSON.stringify(p));
    const g = (await h!.call('ghost_edges', { agent_id: 'a', depth: 'all', min_support: 1 })).json;
    const pairs = g.ghost_edges.map((e: any) => `${e.a}|${e.b}`);
    assert.ok(pairs.includes('app::src/main.ts|app::src/util.ts'), JSON.stringify(g));
  });

  it('the workspace-only history verbs answer an id of the own repository and refuse a sibling\'s, naming the next move', async () => {
    const own = (await h!.call('heuristics_surface', { agent_id: 'a', node_id: 'app::function:src/main.ts#main' })).json;
    assert.equal(own.error, undefined, JSON.stringify(own));
    assert.equal(own.node.id, 'function:src/main.ts#main');
    const refusals = [
      ['heuristics_surface', { node_id: 'lib::function:ledgerlib/parse.py#parse_ledger' }],
      ['epidemic', { infected_nodes: ['lib::ledgerlib/parse.py'] }],
      ['differential', { snapshot_a: 'current', snapshot_b: 'current', focus_nodes: ['lib::ledgerlib/parse.py'] }],
      ['tremor', { node_filter: 'lib::ledgerlib/' }],
      ['trust', { node_filter: 'lib::ledgerlib/' }],
      ['panoramic', { scope: 'lib::ledgerlib' }],
    ] as const;
    for (const [verb, args] of refusals) {
      const r = (await h!.call(verb, { agent_id: 'a', ...args })).json;
      assert.equal(r.error?.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM', `${verb}: ${JSON.stringify(r)}`);
      assert.match(r.error.message, /federated repository lib/);
      assert.match(r.error.hint, /timeline, predict and ghost_edges/);
      assert.ok(r.error.hint.includes(lib), r.error.hint);
    }
    const epidemic = (await h!.call('epidemic', { agent_id: 'a', infected_nodes: ['app::src/main.ts'] })).json;
    assert.equal(epidemic.error, undefined, JSON.stringify(epidemic));
    assert.deepEqual(epidemic.seeds.map((x: any) => x.file), ['src/main.ts']);
    const trust = (await h!.call('trust', { agent_id: 'a', node_filter: 'app::src/', min_history: 1 })).json;
    assert.equal(trust.error, undefined, JSON.stringify(trust));
    assert.ok(trust.files.every((f: any) => String(f.file ?? f.path).startsWith('src/')), JSON.stringify(trust.files));
  });
});
