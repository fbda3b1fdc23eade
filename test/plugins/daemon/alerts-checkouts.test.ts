/**
 * Alerts shared by two checkouts (two machines on one team store): a condition one checkout sees
 * (a file it deleted, a claim its edit made stale) is not resolved by another checkout where it does
 * not hold — the alert would flip open and resolved at every tick of each, pushed again each time.
 * It resolves once every checkout that reported it sees it clear.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import type { Host } from '../../../core/index.ts';
import { clientSink, createLogger } from '../../../core/log.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { freshDatabase, pgOrSkip } from '../../helpers/pg.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** One repository cloned twice (two "machines"). */
function twoCheckouts(): [string, string] {
  const root = tempDir('m1nd-alerts-checkouts-');
  const src = writeFixtureRepo(fs.mkdtempSync(path.join(root, 'src-')));
  git(src, 'init', '-q', '-b', 'main');
  git(src, '-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A');
  git(src, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'fixture');
  git(root, 'clone', '-q', '--bare', src, 'origin.git');
  git(root, 'clone', '-q', 'origin.git', 'a');
  git(root, 'clone', '-q', 'origin.git', 'b');
  return [path.join(root, 'a'), path.join(root, 'b')];
}

async function serve(ws: string, url: string): Promise<Harness> {
  let host: Host | undefined;
  const log = createLogger(clientSink('warn', (level, logger, data, fallback, audience) => host?.broadcastLog(level, logger, data, fallback, audience)));
  const h = await connect({ workspaceRoot: ws, log, env: { M1ND_TOOL_TIER: 'full', M1ND_STORE_URL: url, M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
  host = h.host;
  return h;
}

describe('alerts of two checkouts sharing a team store', function () {
  this.timeout(120_000);
  let a: Harness | undefined;
  let b: Harness | undefined;
  afterEach(async () => {
    await a?.close();
    await b?.close();
    a = b = undefined;
  });

  it('keeps open what one checkout sees though the other does not, and resolves it when the first sees it clear', async function () {
    const url = await freshDatabase(await pgOrSkip(this), 'checkouts');
    const [wa, wb] = twoCheckouts();
    a = await serve(wa, url);
    b = await serve(wb, url);
    await a.call('ingest', { agent_id: 'ann', path: wa });
    await b.call('ingest', { agent_id: 'bob', path: wb });
    await a.call('memorize', { agent_id: 'ann', claims: [{ text: 'the cart totals with add', evidence: ['src/cart.ts'] }] });
    const pushedToB: any[] = [];
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void pushedToB.push(n.params));
    await b.call('health', { agent_id: 'bob' });

    const cart = fs.readFileSync(path.join(wa, 'src/cart.ts'), 'utf8');
    const server = fs.readFileSync(path.join(wa, 'go/server.go'), 'utf8');
    fs.appendFileSync(path.join(wa, 'src/cart.ts'), 'export const y = 2;\n');
    fs.rmSync(path.join(wa, 'go/server.go'));
    const first = (await a.call('daemon_tick', { agent_id: 'ann' })).json;
    assert.deepEqual(first.alerts_raised.map((x: any) => x.kind).sort(), ['claim_stale', 'file_deleted']);
    // B's checkout still has both as they were, and B edits go/server.go: neither alert is B's to resolve.
    fs.appendFileSync(path.join(wb, 'go/server.go'), '// edited on b\n');
    for (let i = 0; i < 2; i++) {
      const tb: any = (await b.call('daemon_tick', { agent_id: 'bob' })).json;
      assert.equal(tb.alerts_resolved, 0, JSON.stringify(tb));
      const ta: any = (await a.call('daemon_tick', { agent_id: 'ann' })).json;
      assert.deepEqual(ta.alerts_raised, [], JSON.stringify(ta));
    }
    const open = (await b.call('alerts_list', { agent_id: 'bob' })).json.alerts;
    assert.deepEqual(open.map((x: any) => [x.kind, x.path, x.status]).sort(), [['claim_stale', 'src/cart.ts', 'open'], ['file_deleted', 'go/server.go', 'open']]);
    assert.ok(open.every((x: any) => x.raised_at === open.find((y: any) => y.id === x.id).raised_at));
    await new Promise((r) => setTimeout(r, 500));
    const pushes = (kind: string) => pushedToB.filter((p) => p.data?.data?.kind === kind).length;
    assert.deepEqual([pushes('claim_stale'), pushes('file_deleted')], [1, 1], 'each pushed once');

    // Clear on A again: A's tick resolves both.
    fs.writeFileSync(path.join(wa, 'src/cart.ts'), cart);
    fs.writeFileSync(path.join(wa, 'go/server.go'), server);
    const back = (await a.call('daemon_tick', { agent_id: 'ann' })).json;
    assert.equal(back.alerts_resolved, 2, JSON.stringify(back));
    assert.equal((await b.call('alerts_list', { agent_id: 'bob' })).json.total, 0);
  });

  it('resolves a condition both checkouts reported only once both see it clear', async function () {
    const url = await freshDatabase(await pgOrSkip(this), 'checkouts');
    const [wa, wb] = twoCheckouts();
    a = await serve(wa, url);
    b = await serve(wb, url);
    await a.call('ingest', { agent_id: 'ann', path: wa });
    await b.call('ingest', { agent_id: 'bob', path: wb });
    const pushedToA: any[] = [];
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void pushedToA.push(n.params));
    await a.call('health', { agent_id: 'ann' });
    for (const ws of [wa, wb]) fs.rmSync(path.join(ws, 'go/server.go'));
    const ra = (await a.call('daemon_tick', { agent_id: 'ann' })).json;
    const rb = (await b.call('daemon_tick', { agent_id: 'bob' })).json;
    assert.deepEqual([ra.deleted, rb.deleted], [['go/server.go'], ['go/server.go']]);
    assert.deepEqual(rb.alerts_raised, [], 'one condition, one alert');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(pushedToA.filter((p) => p.data?.data?.kind === 'file_deleted').length, 1, 'B confirming it pushes nothing again');
    fs.writeFileSync(path.join(wa, 'go/server.go'), 'package main\n');
    assert.equal((await a.call('daemon_tick', { agent_id: 'ann' })).json.alerts_resolved, 0, 'B still sees it deleted');
    assert.equal((await a.call('alerts_list', { agent_id: 'ann' })).json.total, 1);
    fs.writeFileSync(path.join(wb, 'go/server.go'), 'package main\n');
    assert.equal((await b.call('daemon_tick', { agent_id: 'bob' })).json.alerts_resolved, 1);
    assert.equal((await a.call('alerts_list', { agent_id: 'ann' })).json.total, 0);
  });

  it('knows a checkout again after a restart under another path (a container, a moved folder), so its part clears', async function () {
    const url = await freshDatabase(await pgOrSkip(this), 'checkouts');
    const [wa, wb] = twoCheckouts();
    a = await serve(wa, url);
    b = await serve(wb, url);
    await a.call('ingest', { agent_id: 'ann', path: wa });
    await b.call('ingest', { agent_id: 'bob', path: wb });
    for (const ws of [wa, wb]) fs.rmSync(path.join(ws, 'go/server.go'));
    await a.call('daemon_tick', { agent_id: 'ann' });
    await b.call('daemon_tick', { agent_id: 'bob' });
    await a.close();
    const moved = `${wa}-moved`;
    fs.renameSync(wa, moved);
    a = await serve(moved, url);
    await a.call('ingest', { agent_id: 'ann', path: moved });
    fs.writeFileSync(path.join(moved, 'go/server.go'), 'package main\n');
    await a.call('daemon_tick', { agent_id: 'ann' });
    fs.writeFileSync(path.join(wb, 'go/server.go'), 'package main\n');
    assert.equal((await b.call('daemon_tick', { agent_id: 'bob' })).json.alerts_resolved, 1, 'the last checkout that reported it resolves it');
    assert.equal((await a.call('alerts_list', { agent_id: 'ann' })).json.total, 0);
  });
});
