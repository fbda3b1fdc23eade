/**
 * What the dashboard's browser tests run against: the built UI (dist/ui, rebuilt when a source under
 * ui/ is newer), a real `m1nd serve --http` child process over a fixture workspace with bearer
 * tokens, and two agents as MCP SDK clients who leave a known state behind: an ingested graph,
 * calls, claims (one made stale by an edit, one whose text is HTML), missions, overlapping locks
 * and a stale-claim alert.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/mcp.ts';
import { FIXTURE_FILES, writeFixtureRepo } from '../helpers/fixture-repo.ts';
import { openSession, type HttpSession } from '../helpers/http-session.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.M1ND_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SHOTS = path.join(ROOT, 'test-output/dashboard');

/** Tokens of the fixture server: two writing agents and a read-only viewer (≥ 16 characters each). */
export const TOKENS = {
  alice: 'alice-token-0123456789abcdef',
  bob: 'bob-token-0123456789abcdef',
  viewer: 'viewer-token-0123456789abcdef',
} as const;

export const XSS_TEXT = '<img src=x onerror=alert(1)>';
export const FRESH_TEXT = 'total adds the cart prices through add';
export const STALE_TEXT = 'add returns the plain sum of its two arguments';

/** Builds dist/ui when it is missing or older than a file under ui/. */
export function ensureUiBuilt(): void {
  const index = path.join(ROOT, 'dist/ui/index.html');
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  const newer = (dir: string): boolean =>
    fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newer(p) : fs.statSync(p).mtimeMs > built;
    });
  if (built && !newer(path.join(ROOT, 'ui'))) return;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'ui/vite.config.ts'], { cwd: ROOT, stdio: 'pipe' });
}

export interface Served {
  base: string;
  mcp: string;
  workspace: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `m1nd serve --http` on a free port over `workspace`, from the sources. */
export async function serve(workspace: string, env: Record<string, string> = {}): Promise<Served> {
  const cache = tempDir('m1nd-dash-cache-');
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/m1nd.js'), 'serve', '--http', '--port', '0', '--workspace', workspace], {
    cwd: workspace,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', M1ND_FROM_SOURCE: '1', M1ND_CACHE_DIR: cache, M1ND_TOOL_TIER: 'full', ...env },
  });
  let err = '';
  const mcp = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`m1nd serve did not start in 60 s:\n${err}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+) · workspace/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`m1nd serve exited (${code}):\n${err}`));
    });
  });
  return {
    base: mcp.replace(/\/mcp$/, '/'),
    mcp,
    workspace,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** A tool result's JSON, failing the test on an error result. */
export async function ok(session: HttpSession, verb: string, args: Record<string, unknown>): Promise<any> {
  const r = (await session.client.callTool({ name: verb, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
  const text = r.content[0]?.type === 'text' ? (r.content[0].text ?? '') : '';
  assert.ok(!r.isError, `${verb} failed: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export interface Scenario {
  served: Served;
  alice: HttpSession;
  bob: HttpSession;
  staleClaimId: string;
  freshClaimId: string;
  locks: string[];
  close(): Promise<void>;
}

/** The fixture workspace, the server and what the two agents did. */
export async function scenario(): Promise<Scenario> {
  const workspace = writeFixtureRepo(tempDir('m1nd-dash-ws-'), FIXTURE_FILES);
  // The TypeScript checker's edge upgrade costs most of a cold ingest and nothing here depends on it.
  fs.writeFileSync(path.join(workspace, 'm1nd.config.mjs'), 'export default { options: { graph: { typeCheck: false } } };\n');
  const served = await serve(workspace, { M1ND_HTTP_TOKENS: JSON.stringify({ [TOKENS.alice]: { agents: ['alice'], role: 'write' }, [TOKENS.bob]: { agents: ['bob'], role: 'write' }, [TOKENS.viewer]: { agents: ['viewer'], role: 'read' } }) });
  let alice: HttpSession | undefined;
  let bob: HttpSession | undefined;
  try {
    alice = await openSession(served.mcp, TOKENS.alice);
    bob = await openSession(served.mcp, TOKENS.bob);
    await ok(alice, 'ingest', { agent_id: 'alice', path: workspace });
    await ok(bob, 'seek', { agent_id: 'bob', query: 'cart total' });
    const fresh = (await ok(alice, 'memorize', { agent_id: 'alice', claims: [{ text: FRESH_TEXT, evidence: ['src/cart.ts:4-6'] }] })).stored[0];
    const stale = (await ok(bob, 'memorize', { agent_id: 'bob', claims: [{ text: STALE_TEXT, evidence: ['function:src/math.ts#add'] }] })).stored[0];
    await ok(bob, 'memorize', { agent_id: 'bob', claims: [{ text: XSS_TEXT }] });
    const mission = await ok(alice, 'mission_start', { agent_id: 'alice', repo: 'fixture', task: 'review the cart checkout', budget: 'short' });
    await ok(alice, 'mission_event', { agent_id: 'alice', mission_id: mission.mission_id, event: 'read', payload: { path: 'src/cart.ts' }, outcome: 'success' });
    const lockA = await ok(alice, 'lock_create', { agent_id: 'alice', scope: 'subgraph', root_nodes: ['file:src/math.ts'], radius: 1 });
    const lockB = await ok(bob, 'lock_create', { agent_id: 'bob', scope: 'node', root_nodes: ['function:src/math.ts#add'] });
    // The edit that makes bob's claim stale; the daemon's tick raises the claim_stale alert.
    await ok(alice, 'daemon_start', { agent_id: 'alice', poll_interval_ms: 60_000 });
    const file = path.join(workspace, 'src/math.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('return a + b;', 'return b + a;'));
    await ok(alice, 'daemon_tick', { agent_id: 'alice' });
    return {
      served,
      alice,
      bob,
      staleClaimId: stale.id,
      freshClaimId: fresh.id,
      locks: [lockA.lock_id, lockB.lock_id],
      async close() {
        await Promise.allSettled([alice!.close(), bob!.close()]);
        await served.stop();
      },
    };
  } catch (error) {
    await Promise.allSettled([alice?.close(), bob?.close()]);
    await served.stop();
    throw error;
  }
}
