/**
 * The team store under load: two m1nd server processes on two clones of one repository sharing one
 * PostgreSQL, 8 agents each calling memorize / lock_create+lock_release / trail_save in a loop.
 * Prints throughput and p50/p99 per verb, then checks the database against the log of acknowledged
 * calls (every acknowledged claim and trail present exactly once, every released lock gone).
 * Then single-call latency on PostgreSQL (without and with the read cache) against the embedded
 * SQLite store, as ratios.
 *
 *   npm run bench team-store                       (30 s; M1ND_BENCH_SECONDS=10 for a short run)
 *   node --import tsx/esm bench/team-store.bench.ts --seconds 10
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { writeFixtureRepo } from '../test/helpers/fixture-repo.ts';
import { connect, tempDir } from '../test/helpers/mcp.ts';
import { testPgUrl } from '../test/helpers/pg.ts';
import { pct } from './bench-host.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/m1nd.js');
const AGENTS = 8;
const NODES = ['function:src/math.ts#add', 'function:src/math.ts#mul', 'function:src/cart.ts#total', 'class:src/cart.ts#Cart'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

function checkouts(): [string, string] {
  const root = tempDir('m1nd-bench-team-');
  const src = writeFixtureRepo(fs.mkdtempSync(path.join(root, 'src-')));
  git(src, 'init', '-q', '-b', 'main');
  git(src, '-c', 'user.email=b@b', '-c', 'user.name=b', 'add', '-A');
  git(src, '-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-qm', 'fixture');
  git(root, 'clone', '-q', '--bare', src, path.join(root, 'origin.git'));
  git(root, 'clone', '-q', path.join(root, 'origin.git'), path.join(root, 'a'));
  git(root, 'clone', '-q', path.join(root, 'origin.git'), path.join(root, 'b'));
  return [path.join(root, 'a'), path.join(root, 'b')];
}

async function server(workspace: string, url: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--workspace', workspace], env: { PATH: process.env.PATH ?? '', M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url, M1ND_FROM_SOURCE: '1' }, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
    const text = r.content?.[0]?.type === 'text' ? r.content[0].text : '';
    return { error: r.isError === true, json: JSON.parse(text) };
  };
  return { call, close: () => client.close() };
}

/** Six random words, so no two claims look alike to memorize's duplicate check. */
const words = () => Array.from({ length: 6 }, () => randomBytes(3).toString('hex')).join(' ');
const ms = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms`;

async function fresh(base: string, tag: string): Promise<string> {
  const name = `m1nd_bench_${tag}_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function load(base: string, seconds: number): Promise<void> {
  const url = await fresh(base, 'load');
  const [wa, wb] = checkouts();
  const servers = await Promise.all([server(wa, url), server(wb, url)]);
  await Promise.all(servers.map((s, i) => s.call('ingest', { agent_id: 'setup', path: i === 0 ? wa : wb })));
  const acked = { claims: new Set<string>(), trails: new Set<string>(), locks: 0, conflicts: 0, errors: 0 };
  const lat: Record<string, number[]> = { memorize: [], lock: [], trail_save: [] };
  const end = Date.now() + seconds * 1000;
  const timed = async (verb: string, fn: () => Promise<{ error: boolean; json: any }>) => {
    const t = performance.now();
    const r = await fn();
    lat[verb].push(performance.now() - t);
    return r;
  };
  const agent = async (s: (typeof servers)[number], id: string) => {
    for (let i = 0; Date.now() < end; i++) {
      const m = await timed('memorize', () => s.call('memorize', { agent_id: id, claims: [{ text: `${id} noted ${words()}`, evidence: [NODES[i % NODES.length]] }] }));
      if (m.error) acked.errors++;
      else for (const c of m.json.stored) acked.claims.add(c.id);
      const l = await timed('lock', () => s.call('lock_create', { agent_id: id, scope: 'node', root_nodes: [NODES[i % NODES.length]], exclusive: true }));
      if (!l.error) {
        const r = await s.call('lock_release', { agent_id: id, lock_id: l.json.lock_id });
        if (r.error) acked.errors++;
        else acked.locks++;
      } else if (l.json.error?.code === 'M1ND_ERR_STATE_CONFLICT') acked.conflicts++;
      else acked.errors++;
      const tr = await timed('trail_save', () => s.call('trail_save', { agent_id: id, label: `${id} run ${i}`, visited_nodes: [NODES[i % NODES.length]], conclusions: [`step ${i}`] }));
      if (tr.error) acked.errors++;
      else acked.trails.add(tr.json.trail_id);
    }
  };
  const started = performance.now();
  await Promise.all(servers.flatMap((s, si) => Array.from({ length: AGENTS }, (_, a) => agent(s, `s${si}a${a}`))));
  const elapsed = (performance.now() - started) / 1000;
  const calls = Object.values(lat).reduce((n, xs) => n + xs.length, 0) + acked.locks;
  console.log(`load: 2 servers x ${AGENTS} agents, ${seconds} s: ${calls} calls, ${(calls / elapsed).toFixed(1)} calls/s`);
  for (const [verb, xs] of Object.entries(lat)) console.log(`  ${verb}: ${xs.length} calls, ${ms(xs)}`);
  console.log(`  exclusive locks: ${acked.locks} taken and released, ${acked.conflicts} refused as held by another agent; other errors: ${acked.errors}`);

  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const claims = (await db.query("SELECT key, value->>'text' AS text FROM m1nd_state WHERE namespace = 'memory.claims'")).rows;
  const trails = (await db.query("SELECT key FROM m1nd_state WHERE namespace = 'trails'")).rows.map((r) => r.key as string);
  const locks = (await db.query("SELECT count(*)::int AS n FROM m1nd_state WHERE namespace IN ('locks', 'locks.nodes')")).rows[0].n as number;
  await db.end();
  const keys = new Set(claims.map((r) => r.key as string));
  const lostClaims = [...acked.claims].filter((id) => !keys.has(id)).length;
  const texts = claims.map((r) => r.text as string);
  const dupTexts = texts.length - new Set(texts).size;
  const lostTrails = [...acked.trails].filter((id) => !trails.includes(id)).length;
  console.log(`  check: ${acked.claims.size} acknowledged claims, ${claims.length} stored, lost ${lostClaims}, duplicated ${dupTexts + (claims.length - acked.claims.size)}; ${acked.trails.size} acknowledged trails, lost ${lostTrails}; locks left ${locks}`);
  await Promise.all(servers.map((s) => s.close()));
}

/**
 * Single-call latency: the embedded store, PostgreSQL with every read going to the database, and
 * PostgreSQL with the read cache — three hosts opened together and called in turn each round, so
 * the machine's load falls on all three alike.
 */
async function latency(base: string, n: number): Promise<void> {
  const url = await fresh(base, 'lat');
  const kinds = { sqlite: null, postgres_uncached: 0, postgres: undefined } as const;
  const verbs = ['memorize', 'orient', 'boot_memory_get', 'lock_create', 'trail_list'] as const;
  const hosts = await Promise.all(
    Object.entries(kinds).map(async ([kind, cacheRows]) => {
      const ws = writeFixtureRepo(tempDir());
      const h = await connect({
        workspaceRoot: ws,
        env: { M1ND_TOOL_TIER: 'full', ...(cacheRows !== null ? { M1ND_STORE_URL: url, M1ND_REPOSITORY_ID: kind } : {}) },
        ...(cacheRows === 0 ? { config: { options: { state: { readCacheRows: 0 } } } } : {}),
      });
      await h.call('ingest', { agent_id: 'a', path: ws });
      await h.call('boot_memory', { agent_id: 'a', action: 'set', key: 'k', value: 'v' });
      return { kind, h, times: Object.fromEntries(verbs.map((v) => [v, [] as number[]])) as Record<(typeof verbs)[number], number[]> };
    }),
  );
  const timed = async (xs: number[], keep: boolean, fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    if (keep) xs.push(performance.now() - t);
  };
  for (let i = 0; i < n + 5; i++) {
    const keep = i >= 5; // warm-up
    for (const { kind, h, times } of hosts) {
      await timed(times.memorize, keep, () => h.call('memorize', { agent_id: 'a', claims: [{ text: `latency probe ${kind} ${words()}`, evidence: [NODES[i % NODES.length]] }] }));
      await timed(times.orient, keep, () => h.call('orient', { agent_id: 'a', task: 'add numbers' }));
      await timed(times.boot_memory_get, keep, () => h.call('boot_memory', { agent_id: 'a', action: 'get', key: 'k' }));
      await timed(times.lock_create, keep, () => h.call('lock_create', { agent_id: `l${i}`, scope: 'node', root_nodes: [NODES[i % NODES.length]] }));
      await timed(times.trail_list, keep, () => h.call('trail_list', { agent_id: 'a' }));
    }
  }
  // The floor of any PostgreSQL call on this machine: one round trip of a bare query.
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  const rtt: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await probe.query('SELECT 1');
    rtt.push(performance.now() - t);
  }
  await probe.end();
  console.log(`PostgreSQL round trip (SELECT 1): ${ms(rtt)}`);
  const cache = (await hosts[2].h.call('health', { agent_id: 'a' })).json.team_store?.read_cache;
  console.log(`read cache: ${cache?.hits} reads from memory, ${cache?.misses} from the database (feed live: ${cache?.feed_live})`);
  await Promise.all(hosts.map(({ h }) => h.close()));
  const [sq, un, ca] = hosts.map((x) => x.times);
  console.log(`single-call latency, ${n} rounds after 5 warm-up (in-process hosts called in turn, PostgreSQL on loopback), p50:`);
  for (const verb of verbs) {
    const [s, u, p] = [pct(sq[verb], 50), pct(un[verb], 50), pct(ca[verb], 50)];
    console.log(`  ${verb}: sqlite ${s.toFixed(2)} ms; postgres uncached ${u.toFixed(2)} ms (${(u / s).toFixed(2)}x); postgres cached ${p.toFixed(2)} ms (${(p / s).toFixed(2)}x)`);
  }
}

export async function run(seconds = Number(process.env.M1ND_BENCH_SECONDS ?? 30)): Promise<void> {
  const base = await testPgUrl();
  if (!base) {
    console.log('team-store: no PostgreSQL (install postgresql or set M1ND_TEST_PG_URL); skipped');
    return;
  }
  if (process.env.M1ND_BENCH_PART !== 'load') await latency(base, Number(process.env.M1ND_BENCH_ROUNDS ?? 40));
  if (process.env.M1ND_BENCH_PART !== 'latency') await load(base, seconds);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--seconds');
  await run(i > 0 ? Number(process.argv[i + 1]) : undefined);
  process.exit(0);
}
