/**
 * The team store across machines: two m1nd server processes, each on its own checkout (clone) of
 * one repository, sharing one PostgreSQL database — locks, claims, notifications, privacy, and the
 * database going away and coming back.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { tempDir } from '../../helpers/mcp.ts';
import { ownsCluster, pgOrSkip, startTestPg, stopTestPg } from '../../helpers/pg.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/m1nd.js');
const ADD = 'function:src/math.ts#add';
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** One repository pushed to a bare origin, cloned twice (two "machines"). */
function twoCheckouts(): [string, string] {
  const root = tempDir('m1nd-team-');
  const src = writeFixtureRepo(fs.mkdtempSync(path.join(root, 'src-')));
  git(src, 'init', '-q', '-b', 'main');
  git(src, '-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A');
  git(src, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'fixture');
  const origin = path.join(root, 'origin.git');
  git(root, 'clone', '-q', '--bare', src, origin);
  const a = path.join(root, 'machine-a');
  const b = path.join(root, 'machine-b');
  git(root, 'clone', '-q', origin, a);
  git(root, 'clone', '-q', origin, b);
  return [a, b];
}

interface Server {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; json: any }>;
  close(): Promise<void>;
}

async function serve(workspace: string, url: string): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--workspace', workspace],
    env: { PATH: process.env.PATH ?? '', M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url, M1ND_FROM_SOURCE: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'team-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
      const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
      return { result, json: JSON.parse(text) };
    },
    close: () => client.close(),
  };
}

describe('the team store shared by two servers on two checkouts', function () {
  this.timeout(240_000);
  let url: string;
  let a: Server;
  let b: Server;
  let db: pg.Client;

  before(async function () {
    const base = await pgOrSkip(this);
    // A database of its own, so the rows seen are this test's only.
    const name = `m1nd_team_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base! });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(base!);
    u.pathname = `/${name}`;
    url = u.toString();
    const [wa, wb] = twoCheckouts();
    [a, b] = await Promise.all([serve(wa, url), serve(wb, url)]);
    await Promise.all([a.call('ingest', { agent_id: 'a', path: wa }), b.call('ingest', { agent_id: 'b', path: wb })]);
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close(), db?.end()]);
  });

  it('reports the PostgreSQL store, its schema version and a round trip in health, both checkouts under one repository identity', async () => {
    const [ha, hb] = [(await a.call('health', { agent_id: 'a' })).json.team_store, (await b.call('health', { agent_id: 'b' })).json.team_store];
    assert.equal(ha.kind, 'postgres');
    assert.equal(ha.connected, true);
    assert.equal(ha.schema_version, ha.known_schema_version);
    assert.ok(ha.round_trip_ms >= 0);
    assert.match(ha.repository, /^git:[0-9a-f]{40}@/);
    assert.equal(ha.repository, hb.repository);
    assert.ok(!JSON.stringify(ha).includes('postgres@'), 'no user name or credential in the report');
    const finding = (await a.call('doctor', { agent_id: 'a' })).json.findings.find((f: any) => f.check === 'team_store');
    assert.equal(finding.ok, true);
    assert.match(finding.detail, /^postgres store postgres:\/\/127\.0\.0\.1:\d+\/m1nd_team_\w+, schema version 2, round trip [\d.]+ ms$/);
  });

  it('refuses an exclusive lock on B that overlaps an exclusive lock held on A, until A releases it', async () => {
    const la = (await a.call('lock_create', { agent_id: 'ann', scope: 'node', root_nodes: [ADD], exclusive: true })).json;
    assert.equal(la.exclusive, true, JSON.stringify(la));
    const lb = await b.call('lock_create', { agent_id: 'bob', scope: 'subgraph', root_nodes: ['function:src/math.ts#mul'], radius: 1, exclusive: true });
    assert.equal(lb.result.isError, true);
    assert.equal(lb.json.error.code, 'M1ND_ERR_STATE_CONFLICT');
    assert.deepEqual(lb.json.error.detail.holder, { lock_id: la.lock_id, agent_id: 'ann' });
    // A shared lock is still allowed and sees the exclusive one as an overlap.
    const shared = (await b.call('lock_create', { agent_id: 'bob', scope: 'node', root_nodes: [ADD] })).json;
    assert.deepEqual(shared.overlaps.map((o: any) => [o.lock_id, o.agent_id, o.exclusive]), [[la.lock_id, 'ann', true]]);
    await a.call('lock_release', { agent_id: 'ann', lock_id: la.lock_id });
    const again = (await b.call('lock_create', { agent_id: 'bob', scope: 'node', root_nodes: [ADD], exclusive: true })).json;
    assert.equal(again.exclusive, true, JSON.stringify(again));
    const held = await db.query("SELECT key FROM m1nd_state WHERE namespace = 'locks.nodes'");
    assert.deepEqual(held.rows.map((r) => r.key), [ADD], 'one holder row per node; the released lock left none');
  });

  it('lets only one of two servers racing for the same region hold it', async () => {
    const race = await Promise.all([
      a.call('lock_create', { agent_id: 'ann', scope: 'node', root_nodes: ['function:src/cart.ts#total'], exclusive: true }),
      b.call('lock_create', { agent_id: 'bob', scope: 'node', root_nodes: ['function:src/cart.ts#total'], exclusive: true }),
    ]);
    assert.deepEqual(race.map((r) => r.result.isError === true).sort(), [false, true]);
  });

  it("shows a claim memorized and promoted on A in B's orient, pushes the change to B's subscribed client, and keeps private claims off the team store", async () => {
    const updated: string[] = [];
    b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await b.client.subscribeResource({ uri: 'm1nd://team/memory.claims' });
    const text = 'add() returns the plain sum of its two arguments';
    const stored = (await a.call('memorize', { agent_id: 'ann', claims: [{ text, evidence: [ADD] }] })).json.stored[0];
    const promoted = (await a.call('promote', { agent_id: 'ann', brain: 'team', claim: stored.id, reason: 'verified on machine A' })).json;
    assert.ok(promoted.promoted, JSON.stringify(promoted));
    const seen = (await b.call('orient', { agent_id: 'bob', task: 'how does add sum numbers' })).json.claims;
    const team = seen.find((c: any) => c.id === promoted.promoted);
    assert.ok(team, `B sees the promoted claim: ${JSON.stringify(seen)}`);
    assert.equal(team.scope, 'team');
    assert.equal(team.origin.promoted_by, 'ann');
    for (let i = 0; i < 50 && !updated.includes('m1nd://team/memory.claims'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(updated.includes('m1nd://team/memory.claims'), 'B was told the namespace changed');

    const secret = 'a private note only ann on machine A may read';
    const mine = (await a.call('memorize', { agent_id: 'ann', scope: 'agent', claims: [{ text: secret, evidence: [ADD] }] })).json.stored[0];
    assert.ok(mine.id);
    const rows = await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE value::text LIKE '%private note only ann%'");
    assert.equal(rows.rows[0].n, 0, 'the private claim never reached the team store');
    const onB = (await b.call('orient', { agent_id: 'ann', task: 'private note add' })).json.claims ?? [];
    assert.ok(!onB.some((c: any) => c.text === secret), 'not even the same agent id on another machine reads it');
  });

  it("shares team feedback: learn on A re-ranks B's next activate, concurrent learns on both lose no increment, agent feedback stays local", async () => {
    const query = 'multiply numbers';
    const before = (await b.call('activate', { agent_id: 'bob', query, top_k: 20 })).json.results;
    const top = before[0].id;
    const learned = (await a.call('learn', { agent_id: 'ann', query, feedback: 'wrong', node_ids: [top], scope: 'team' })).json;
    assert.equal(learned.persisted.namespace, 'learned', JSON.stringify(learned));
    const after = (await b.call('activate', { agent_id: 'bob', query, top_k: 20 })).json.results;
    const moved = after.find((r: any) => r.id === top);
    assert.ok(after[0].id !== top, `B ranks ${top} lower after A's feedback: ${after.map((r: any) => r.id).join(', ')}`);
    assert.match(moved?.why ?? '', /learned ×0\.\d+/);

    // Four learns from each server at once on one node: the team store serialises them, every count arrives.
    const learns = [a, b].flatMap((s, i) => Array.from({ length: 4 }, () => s.call('learn', { agent_id: `agent-${i}`, query: 'sum of two', feedback: 'correct', node_ids: [ADD], scope: 'team', strength: 0.1 })));
    const results = await Promise.all(learns);
    assert.ok(results.every((r) => r.result.isError === undefined), JSON.stringify(results.map((r) => r.json).filter((j) => j.error)));
    const row = await db.query("SELECT value FROM m1nd_state WHERE namespace = 'learned' AND key = $1", [`node:${ADD}`]);
    assert.equal(row.rows[0].value.correct, 8, 'no learn lost another one');
    const revisions = results.map((r) => r.json.persisted.revision).sort((x, y) => x - y);
    assert.equal(new Set(revisions).size, 8, `each learn got its own revision: ${revisions}`);

    await a.call('learn', { agent_id: 'ann', query: 'private hunch', feedback: 'correct', node_ids: [ADD] });
    const mine = await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace LIKE 'learned@%' OR value::text LIKE '%private hunch%'");
    assert.equal(mine.rows[0].n, 0, 'agent-scope feedback never reached the team store');
  });

  it('fails team verbs with a coded retry error while the database is down, keeps local verbs working, and loses nothing once it is back', async function () {
    if (!ownsCluster()) this.skip(); // an external M1ND_TEST_PG_URL is not ours to stop
    const before = (await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace = 'memory.claims'")).rows[0].n;
    await db.end();
    stopTestPg();
    try {
      const down = await a.call('memorize', { agent_id: 'ann', claims: [{ text: 'mul multiplies by repeated addition of a', evidence: ['function:src/math.ts#mul'] }] });
      assert.equal(down.result.isError, true);
      assert.equal(down.json.error.code, 'M1ND_ERR_STORE_UNAVAILABLE');
      assert.match(down.json.error.hint, /retry this call in \d+s/);
      assert.ok(!JSON.stringify(down.json).includes('postgres@'), 'no credentials in the error');
      const lock = await b.call('lock_create', { agent_id: 'bob', scope: 'node', root_nodes: ['function:src/math.ts#mul'] });
      assert.equal(lock.json.error.code, 'M1ND_ERR_STORE_UNAVAILABLE');
      const local = await a.call('seek', { agent_id: 'ann', query: 'multiply numbers' });
      assert.equal(local.result.isError, undefined, 'graph verbs answer from the local store');
      const health = (await a.call('health', { agent_id: 'ann' })).json.team_store;
      assert.equal(health.connected, false);
    } finally {
      startTestPg();
    }
    let up: { result: CallToolResult; json: any } | undefined;
    for (let i = 0; i < 40; i++) {
      up = await a.call('memorize', { agent_id: 'ann', claims: [{ text: 'mul multiplies by repeated addition of a', evidence: ['function:src/math.ts#mul'] }] });
      if (!up.result.isError) break;
      assert.equal(up.json.error.code, 'M1ND_ERR_STORE_UNAVAILABLE');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(up!.result.isError, undefined, `reconnected: ${JSON.stringify(up!.json)}`);
    db = new pg.Client({ connectionString: url });
    await db.connect();
    const after = (await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace = 'memory.claims'")).rows[0].n;
    assert.equal(after, before + 1, 'every claim written before the outage is there, plus the one written after; the refused one was not half-written');
    // B reconnects on its own schedule (its error named a retry delay): asked again until it has.
    let onB: { result: CallToolResult; json: any } | undefined;
    for (let i = 0; i < 40; i++) {
      onB = await b.call('orient', { agent_id: 'bob', task: 'mul multiplies repeated addition' });
      if (!onB.result.isError) break;
      assert.equal(onB.json.error.code, 'M1ND_ERR_STORE_UNAVAILABLE');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(onB!.result.isError, undefined, `B reconnected: ${JSON.stringify(onB!.json)}`);
    assert.ok(onB!.json.claims.some((c: any) => c.text === 'mul multiplies by repeated addition of a'), 'B reads it too');
  });
});
