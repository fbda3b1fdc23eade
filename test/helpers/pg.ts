/**
 * A real PostgreSQL for the team-store tests: M1ND_TEST_PG_URL when set, otherwise a throw-away
 * cluster started once per test process (initdb --no-sync into a temp dir, pg_ctl on a free
 * loopback port, as user `postgres` when running as root) and stopped when the process exits.
 * When no PostgreSQL binaries exist, `testPgUrl()` answers null and the PG suites skip, saying how to
 * install them (CI installs them itself, see .ci/run).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const PG_MISSING = 'PostgreSQL binaries not found: team-store suites skipped. Install them (Debian: apt-get install -y postgresql) or set M1ND_TEST_PG_URL=postgres://…';

interface Cluster {
  url: string;
  bin: string;
  data: string;
  log: string;
  port: number;
  sock: string;
}

let cluster: Promise<Cluster | null> | null = null;
let started: Cluster | null = null;

/** The directory holding initdb and pg_ctl, or null. */
function binDir(): string | null {
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // no pg_config on the PATH
  }
  const base = '/usr/lib/postgresql';
  if (fs.existsSync(base)) {
    for (const v of fs.readdirSync(base).sort((a, b) => Number(b) - Number(a))) candidates.push(path.join(base, v, 'bin'));
  }
  return candidates.find((d) => fs.existsSync(path.join(d, 'initdb')) && fs.existsSync(path.join(d, 'pg_ctl'))) ?? null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary, as `postgres` when this process is root (initdb refuses root). */
function run(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} failed (${r.status}): ${r.stderr || r.stdout}`);
}

function startCluster(c: Cluster): void {
  run(path.join(c.bin, 'pg_ctl'), ['-D', c.data, '-l', c.log, '-w', '-t', '30', '-o', `-p ${c.port} -k ${c.sock} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);
}

async function boot(): Promise<Cluster | null> {
  const bin = binDir();
  if (!bin) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-pg-'));
  const c: Cluster = { url: '', bin, data: path.join(dir, 'data'), log: path.join(dir, 'pg.log'), port: await freePort(), sock: dir };
  c.url = `postgres://postgres@127.0.0.1:${c.port}/postgres`;
  fs.chmodSync(dir, 0o777);
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  run(path.join(bin, 'initdb'), ['-D', c.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  startCluster(c);
  started = c;
  process.once('exit', () => {
    spawnSync(asRoot ? 'runuser' : path.join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), '-D', c.data, '-m', 'immediate', '-w', 'stop'] : ['-D', c.data, '-m', 'immediate', '-w', 'stop'], { timeout: 20_000 });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return c;
}

/** A PostgreSQL URL for tests, or null when none can be had (then skip with PG_MISSING). */
export async function testPgUrl(): Promise<string | null> {
  if (process.env.M1ND_TEST_PG_URL) return process.env.M1ND_TEST_PG_URL;
  cluster ??= boot();
  return (await cluster)?.url ?? null;
}

/** True when the tests started the cluster themselves (so they may stop and restart it). */
export function ownsCluster(): boolean {
  return started !== null;
}

/** Stops the test cluster at once (clients see their connections dropped). */
export function stopTestPg(): void {
  if (!started) throw new Error('the test cluster was not started by this process');
  run(path.join(started.bin, 'pg_ctl'), ['-D', started.data, '-m', 'immediate', '-w', 'stop']);
}

/** Starts the test cluster again on the same port. */
export function startTestPg(): void {
  if (!started) throw new Error('the test cluster was not started by this process');
  startCluster(started);
}

/** The test URL, or skips the suite saying how to install PostgreSQL — except on CI (CI=true), where a missing PostgreSQL fails. */
export async function pgOrSkip(suite: Mocha.Context): Promise<string> {
  const url = await testPgUrl();
  if (url) return url;
  if (process.env.CI === 'true') throw new Error(`${PG_MISSING} (CI must run them: .ci/run installs PostgreSQL)`);
  console.log(`      ${PG_MISSING}`);
  suite.skip();
}

/** A database of its own on the test cluster at `base` (named `m1nd_<label>_…`), so the rows a test sees are its own; its URL. */
export async function freshDatabase(base: string, label: string): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `m1nd_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}
