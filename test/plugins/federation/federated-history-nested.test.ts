import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from '../history/git-fixture.ts';

/** The nested package (`ws/lib`): format.ts and util.ts change together with no import between them. */
const LIB = {
  'package.json': JSON.stringify({ name: '@ws/lib', type: 'module', version: '1.0.0' }),
  'src/index.ts': "import { normaliseLedger } from './util.ts';\n\nexport function parseLedger(s: string): string {\n  return normaliseLedger(s);\n}\n",
  'src/util.ts': 'export function normaliseLedger(s: string): string {\n  return s.trim();\n}\n',
  'src/format.ts': 'export function formatLedger(s: string): string {\n  return `[${s}]`;\n}\n',
};

const OUTER = {
  'package.json': JSON.stringify({ name: 'ws', type: 'module', private: true }),
  'src/app.ts': "import { parseLedger } from '../lib/src/index.ts';\n\nexport function importLedger(input: string): string {\n  return parseLedger(input);\n}\n",
  'src/cli.ts': 'export function printLedger(input: string): string {\n  return input;\n}\n',
};

const prefixed = (files: Record<string, string>, dir: string) => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${dir}/${k}`, v]));

/**
 * `ws` holding the package at `ws/lib`. `oneRepo`: one git repository for both (a monorepo); else
 * lib is its own git repository, recorded in ws as an embedded repository (a gitlink).
 */
function nestedRepos(oneRepo: boolean): { parent: string; ws: string; lib: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedhist-nested-')));
  const ws = path.join(parent, 'ws');
  const lib = path.join(ws, 'lib');
  write(ws, { ...OUTER, ...prefixed(LIB, 'lib') });
  if (!oneRepo) {
    git(lib, ['init', '-q', '-b', 'main']);
    git(lib, ['add', '-A']);
    git(lib, ['commit', '-q', '-m', 'lib: initial']);
  }
  git(ws, ['init', '-q', '-b', 'main']);
  git(ws, ['-c', 'advice.addEmbeddedRepo=false', 'add', '-A']);
  git(ws, ['commit', '-q', '-m', 'initial']);
  const inLib = oneRepo ? ws : lib;
  const at = (f: string) => (oneRepo ? `lib/${f}` : f);
  touch(inLib, [at('src/util.ts'), at('src/format.ts')], 2, 'lib: trim and format');
  touch(inLib, [at('src/util.ts'), at('src/format.ts')], 4, 'lib: brackets');
  if (oneRepo) touch(ws, ['src/app.ts', 'lib/src/index.ts'], 5, 'app and lib together');
  else touch(lib, ['src/index.ts'], 5, 'lib: parse');
  touch(ws, ['src/cli.ts'], 6, 'cli');
  if (oneRepo) {
    // The cli moves into the package: its history follows it into the nested member.
    git(ws, ['mv', 'src/cli.ts', 'lib/src/cli.ts'], dayDate(7));
    git(ws, ['commit', '-q', '-m', 'move the cli into lib'], dayDate(7));
  }
  return { parent, ws, lib };
}

describe('the federated view: the history of a nested member', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function federate(oneRepo: boolean) {
    const { parent, ws } = nestedRepos(oneRepo);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent, M1ND_CACHE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fedhist-nested-cache-')) } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'ws', path: '.' }, { name: 'lib', path: 'lib' }] })).json;
    assert.equal(r.repos?.length, 2, JSON.stringify(r).slice(0, 400));
  }

  const call = async (verb: string, args: Record<string, unknown>) => (await h!.call(verb, { agent_id: 'a', ...args })).json;

  /** No answer names a nested file under the outer namespace. */
  const noOuterCopy = (r: unknown) => assert.ok(!JSON.stringify(r).includes('ws::lib/'), JSON.stringify(r));
  const partners = (r: any) => r.co_changes.map((c: any) => `${c.file} ${c.support}`);

  it("one git repository: a nested file's history is once, under the nested member, and each commit counted once", async () => {
    await federate(true);
    // Six commits in the repository: those touching lib/ are in both ws's log and lib's, and count once.
    const util = await call('timeline', { node: 'lib::src/util.ts', depth: 'all' });
    assert.equal(util.file, 'lib::src/util.ts', JSON.stringify(util));
    assert.equal(util.source.commits, 6, JSON.stringify(util.source));
    assert.equal(util.source.new_commits, 6, JSON.stringify(util.source));
    assert.equal(util.total_commits, 3);
    // The initial commit (all seven files) is sweeping, as in the workspace's own history.
    assert.deepEqual(partners(util), ['lib::src/format.ts 2'], JSON.stringify(util.co_changes));
    noOuterCopy(util);
    const own = (await h!.call('timeline', { agent_id: 'b', node: 'lib/src/util.ts', depth: 'all' })).json;
    assert.deepEqual([own.source.commits, own.total_commits, partners(own)], [6, 3, ['lib/src/format.ts 2']], JSON.stringify(own));
    assert.equal((await call('timeline', { node: 'ws::lib/src/util.ts', depth: 'all' })).file, 'lib::src/util.ts');
    // A commit touching both members is one commit: its files are partners across them.
    const app = await call('timeline', { node: 'ws::src/app.ts', depth: 'all' });
    assert.deepEqual(partners(app), ['lib::src/index.ts 1'], JSON.stringify(app.co_changes));
    assert.equal(app.co_changes[0].static_edge, true);
    assert.equal(app.co_changes[0].gone, undefined);
    const index = await call('timeline', { node: 'lib::src/index.ts', depth: 'all' });
    assert.deepEqual([index.total_commits, partners(index)], [2, ['ws::src/app.ts 1']], JSON.stringify(index));
    // A file moved into the package keeps its history, under its new name.
    const cli = await call('timeline', { node: 'lib::src/cli.ts', depth: 'all' });
    assert.deepEqual([cli.total_commits, cli.former_names], [3, ['ws::src/cli.ts']], JSON.stringify(cli));
    assert.deepEqual(cli.commits.map((c: any) => c.subject), ['move the cli into lib', 'cli', 'initial']);
    const ghosts = await call('ghost_edges', { depth: 'all', min_support: 1 });
    assert.deepEqual([ghosts.commits_counted, ghosts.sweeping_commits_skipped, ghosts.source.commits], [5, 1, 6], JSON.stringify(ghosts));
    assert.deepEqual(ghosts.ghost_edges.map((e: any) => `${e.a}|${e.b} ${e.support}`), ['lib::src/format.ts|lib::src/util.ts 2'], JSON.stringify(ghosts));
    const predict = await call('predict', { changed_node: 'lib::src/util.ts' });
    assert.equal(predict.changed.commits, 3);
    assert.deepEqual(predict.predictions.map((p: any) => `${p.file} ${p.support}`).sort(), ['lib::src/format.ts 2', 'lib::src/index.ts 0'], JSON.stringify(predict));
    for (const r of [app, index, cli, ghosts, predict]) noOuterCopy(r);
  });

  it('lib its own git repository inside ws: each repository\'s commits once, the nested files under lib', async () => {
    await federate(false);
    const util = await call('timeline', { node: 'lib::src/util.ts', depth: 'all' });
    // ws: initial and cli (each recording lib's head as a gitlink); lib: its own four.
    assert.equal(util.source.commits, 6, JSON.stringify(util.source));
    assert.equal(util.total_commits, 3);
    assert.equal(util.co_changes[0].file, 'lib::src/format.ts', JSON.stringify(util.co_changes));
    assert.equal(util.co_changes[0].support, 3);
    // ws's cli commit recorded lib's new head: the gitlink is a partner on disk (lib's folder), not a deleted file.
    const cli = await call('timeline', { node: 'ws::src/cli.ts', depth: 'all' });
    const link = cli.co_changes.find((c: any) => c.file === 'ws::lib');
    assert.deepEqual([link?.gone, link?.in_graph], [undefined, false], JSON.stringify(cli.co_changes));
    const ghosts = await call('ghost_edges', { depth: 'all', min_support: 1 });
    assert.equal(ghosts.commits_counted, 6, JSON.stringify(ghosts));
    for (const r of [util, ghosts]) noOuterCopy(r);
  });
});
