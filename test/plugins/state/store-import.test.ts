/**
 * store_import: a workspace that used the embedded store moves its shared state to a team store —
 * claims, boot memory, missions, team trails and team feedback arrive once (re-running copies
 * nothing), private claims and trails stay local, and the counts say so. Also through the CLI.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { freshDatabase, pgOrSkip } from '../../helpers/pg.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/m1nd.js');
const ADD = 'function:src/math.ts#add';
const MUL = 'function:src/math.ts#mul';

describe('store_import: from the embedded store to the team store', function () {
  this.timeout(240_000);
  let url: string;
  let ws: string;
  let team: Harness;
  let db: pg.Client;
  const ids: Record<string, string> = {};

  before(async function () {
    url = await freshDatabase(await pgOrSkip(this), 'import');
    ws = writeFixtureRepo(tempDir('m1nd-import-'));
    // A workspace's life on the embedded store: shared and private state of every kind.
    const local = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await local.call('ingest', { agent_id: 'ann', path: ws });
    ids.claim = (await local.call('memorize', { agent_id: 'ann', claims: [{ text: 'add returns the plain sum of both arguments', evidence: [ADD] }] })).json.stored[0].id;
    ids.secret = (await local.call('memorize', { agent_id: 'ann', scope: 'agent', claims: [{ text: 'private hunch that mul overflows', evidence: [MUL] }] })).json.stored[0].id;
    await local.call('boot_memory', { agent_id: 'ann', action: 'set', key: 'test_cmd', value: 'npm test' });
    ids.mission = (await local.call('mission_start', { agent_id: 'ann', repo: 'fixture', task: 'why can a cart total be wrong', mode: 'bug_hunt' })).json.mission_id;
    ids.trail = (await local.call('trail_save', { agent_id: 'ann', label: 'math walk', visited_nodes: [ADD] })).json.trail_id;
    ids.privateTrail = (await local.call('trail_save', { agent_id: 'ann', label: 'my own walk', visited_nodes: [MUL], visibility: 'private' })).json.trail_id;
    await local.call('learn', { agent_id: 'ann', query: 'sum two numbers', feedback: 'correct', node_ids: [ADD], scope: 'team' });
    await local.call('learn', { agent_id: 'ann', query: 'secret ranking', feedback: 'correct', node_ids: [MUL] });
    await local.close();
    team = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url } });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await Promise.all([team?.close(), db?.end()]);
  });

  it('counts what it would copy on a dry run and writes nothing', async () => {
    const dry = (await team.call('store_import', { agent_id: 'ann', dry_run: true })).json;
    assert.equal(dry.dry_run, true);
    assert.deepEqual(dry.counts.claims, { found: 1, imported: 1, present: 0, private: 1 });
    assert.equal(dry.counts.boot_memory.imported, 1);
    assert.equal(dry.counts.missions.imported, 1);
    assert.deepEqual(dry.counts.trails, { found: 1, imported: 1, present: 0, private: 1 });
    assert.ok(dry.counts.learned.imported >= 3, 'node, term and event rows of the team feedback');
    assert.match(dry.to, /^postgres:\/\/127\.0\.0\.1:\d+\//);
    const rows = (await db.query('SELECT to_regclass($1) AS t', ['m1nd_state'])).rows[0].t ? (await db.query('SELECT count(*)::int AS n FROM m1nd_state')).rows[0].n : 0;
    assert.equal(rows, 0);
  });

  it('copies the shared state once: the team server then reads it, and private claims and trails stay local', async () => {
    const orientBefore = (await team.call('orient', { agent_id: 'bob', task: 'how does add sum numbers' })).json.claims ?? [];
    assert.ok(!orientBefore.some((c: any) => c.id === ids.claim), 'not in the team store before the import');
    const report = (await team.call('store_import', { agent_id: 'ann' })).json;
    assert.equal(report.dry_run, false);
    assert.deepEqual(report.counts.claims, { found: 1, imported: 1, present: 0, private: 1 });
    assert.equal(report.imported, Object.values(report.counts).reduce((n: number, c: any) => n + c.imported, 0));

    const claims = (await team.call('orient', { agent_id: 'bob', task: 'how does add sum numbers' })).json.claims;
    assert.equal(claims.filter((c: any) => c.id === ids.claim).length, 1, 'the project claim, once');
    assert.deepEqual((await team.call('boot_memory', { agent_id: 'bob', action: 'get', key: 'test_cmd' })).json.entries.map((e: any) => e.value), ['npm test']);
    assert.equal((await team.call('mission_next', { agent_id: 'ann', mission_id: ids.mission })).json.mission_id, ids.mission);
    const trails = (await team.call('trail_list', { agent_id: 'ann' })).json.trails.map((t: any) => t.trail_id).sort();
    assert.deepEqual(trails, [ids.trail, ids.privateTrail].sort(), 'the team trail once (not also from the local store), the private one still there for its owner');
    const learned = await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace = 'learned' AND key = $1", [`node:${ADD}`]);
    assert.equal(learned.rows[0].n, 1, 'the team feedback arrived');
    const ranked = (await team.call('activate', { agent_id: 'bob', query: 'sum two numbers', top_k: 10 })).json.results;
    assert.match(ranked.find((r: any) => r.id === ADD)?.why ?? '', /learned ×/, 'and ranks on the team server');

    const leaked = await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE value::text LIKE '%private hunch%' OR value::text LIKE '%my own walk%' OR value::text LIKE '%secret ranking%' OR namespace LIKE 'learned@%'");
    assert.equal(leaked.rows[0].n, 0, 'nothing private reached the team store');
    assert.equal((await team.call('orient', { agent_id: 'ann', task: 'mul overflows hunch' })).json.claims.filter((c: any) => c.id === ids.secret).length, 1, 'the private claim is still read locally');
    const marker = await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace = 'state.imports'");
    assert.equal(marker.rows[0].n, 1, 'the import is recorded');
  });

  it('copies nothing a second time (here through `m1nd call store_import`), and keeps what the team changed since', async () => {
    const changed = await db.query("UPDATE m1nd_state SET value = jsonb_set(value, '{value}', '\"npm run test:all\"') WHERE namespace = 'memory.boot' AND key = 'project/test_cmd'");
    assert.equal(changed.rowCount, 1, 'the team changed the imported entry since');
    const before = (await db.query('SELECT count(*)::int AS n FROM m1nd_state')).rows[0].n;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [BIN, 'call', 'store_import', '{}', '--workspace', ws, '--json'], { env: { PATH: process.env.PATH ?? '', M1ND_STORE_URL: url, M1ND_FROM_SOURCE: '1', M1ND_TOOL_TIER: 'full' }, timeout: 120_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const again = JSON.parse(out);
    assert.equal(again.imported, 0, out);
    for (const c of Object.values(again.counts) as any[]) assert.equal(c.present, c.found);
    assert.equal((await db.query('SELECT count(*)::int AS n FROM m1nd_state')).rows[0].n, before, 'no row added, not even an import record');
    assert.deepEqual((await team.call('boot_memory', { agent_id: 'bob', action: 'get', key: 'test_cmd' })).json.entries.map((e: any) => e.value), ['npm run test:all']);
  });
});
