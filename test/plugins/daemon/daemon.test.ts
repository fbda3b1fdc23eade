import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Host } from '../../../core/index.ts';
import { clientSink, createLogger } from '../../../core/log.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { dropWatcherEvents } from '../../helpers/watching.ts';
import { until } from '../../helpers/until.ts';

const GUIDE = '# Guide\n\nThe cart adds prices with [math](../src/math.ts) and `add`.\n';

function workspace(): string {
  const ws = writeFixtureRepo(tempDir('m1nd-daemon-'));
  fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'docs/guide.md'), GUIDE);
  // A repository's files are older than the server (the daemon's poll re-checks recently modified files).
  const old = new Date(Date.now() - 3600_000);
  for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
  return ws;
}

/** A server on the workspace: full tier, the graph's own watcher off (so only the daemon re-ingests), caches in a temp folder. */
async function serve(ws: string, env: Record<string, string> = {}): Promise<Harness> {
  // The server's log reaches clients as the CLI wires it (notifications/message, default threshold warn).
  let host: Host | undefined;
  const log = createLogger(clientSink('warn', (level, logger, data, fallback, audience) => host?.broadcastLog(level, logger, data, fallback, audience)));
  const h = await connect({ workspaceRoot: ws, log, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: path.join(ws, '..', `${path.basename(ws)}-cache`), ...env }, config: { options: { graph: { watch: false, typeCheck: false } } } });
  host = h.host;
  return h;
}

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon: the persisted monitor and its alerts', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  let h2: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    await h2?.close();
    h = h2 = undefined;
  });

  it('raises an alert when a watched file is deleted, pushes it, and survives a restart (alert kept, daemon resumed and watching)', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const logs: any[] = [];
    h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    const updated: string[] = [];
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await h.client.subscribeResource({ uri: 'm1nd://alerts' });

    const started = ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src', 'docs'], poll_interval_ms: 100 }));
    assert.deepEqual(started.watch_paths, ['docs', 'src']);
    assert.equal(started.active, true);

    fs.rmSync(path.join(ws, 'src/math.ts'));
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.deleted, ["src/math.ts"], JSON.stringify(tick));
    const kinds = tick.alerts_raised.map((a: any) => `${a.kind} ${a.subject}`);
    assert.ok(kinds.includes('file_deleted src/math.ts'), kinds.join(', '));
    assert.ok(kinds.includes('binding_broken docs/guide.md'), `the guide linked to math.ts: ${kinds.join(', ')}`);

    const list = ok(await h.call('alerts_list', { agent_id: 'a' }));
    const deleted = list.alerts.find((a: any) => a.kind === 'file_deleted');
    assert.equal(deleted.path, 'src/math.ts');
    assert.equal(deleted.severity, 'warning');
    assert.equal(deleted.source, 'daemon');
    // Pushed: an MCP log line naming the alert, and a resources/updated on the alerts resource.
    await until(async () => logs.some((l) => l.data?.data?.alert_id === deleted.id), 3000, 'the alert log line');
    await until(async () => updated.includes('m1nd://alerts'), 3000, 'resources/updated');
    const resource = await h.client.readResource({ uri: 'm1nd://alerts' });
    assert.ok(JSON.parse((resource.contents[0] as { text: string }).text).alerts.some((a: any) => a.id === deleted.id));

    // The same condition seen again raises nothing new.
    const again = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(again.alerts_raised, []);

    await h.close();
    h = undefined;
    h2 = await serve(ws);
    const kept = ok(await h2.call('alerts_list', { agent_id: 'a' }));
    assert.ok(kept.alerts.some((a: any) => a.id === deleted.id), 'the alert survived the restart');
    const status = await until(async () => {
      const s = ok(await h2!.call('daemon_status', { agent_id: 'a' }));
      return s.watching ? s : undefined;
    }, 30000, 'the daemon to resume');
    assert.equal(status.active, true);
    assert.deepEqual(status.watch_paths, ['docs', 'src']);

    // Resumed for real: a deletion is noticed by the watcher, with no tick call.
    fs.rmSync(path.join(ws, 'src/cart.ts'));
    await until(async () => (ok(await h2!.call('alerts_list', { agent_id: 'a' })).alerts as any[]).find((a) => a.kind === 'file_deleted' && a.path === 'src/cart.ts'), 30000, 'the background cycle');

    const stopped = ok(await h2.call('daemon_stop', { agent_id: 'a' }));
    assert.equal(stopped.active, false);
    assert.equal(ok(await h2.call('daemon_status', { agent_id: 'a' })).watching, false);
  });

  it('resolves the broken links of a deleted file when the file comes back with what they named', async () => {
    const ws = workspace();
    const math = fs.readFileSync(path.join(ws, 'src/math.ts'), 'utf8');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    fs.rmSync(path.join(ws, 'src/math.ts'));
    const gone = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    const broken = gone.alerts_raised.filter((a: any) => a.kind === 'binding_broken');
    assert.ok(broken.length >= 1, JSON.stringify(gone.alerts_raised));
    const deletion = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts.find((a: any) => a.kind === 'file_deleted');
    assert.equal(deletion.details.broken_links.length, broken.length, 'the deletion lists the links it broke');
    fs.writeFileSync(path.join(ws, 'src/math.ts'), math);
    const back = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(back.reingested, ['src/math.ts']);
    assert.equal(back.alerts_resolved, 1 + broken.length, JSON.stringify(back));
    const open = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts;
    assert.deepEqual(open.map((a: any) => a.kind), [], JSON.stringify(open));
  });

  it('catches up after a restart: files added, changed and deleted while the server was down are re-ingested or raised', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: [], poll_interval_ms: 100 }));
    await h.close();
    h = undefined;

    // While no server runs: one file added (in a new folder), one changed, one deleted; an ignored one added.
    fs.mkdirSync(path.join(ws, 'src/extra'));
    fs.writeFileSync(path.join(ws, 'src/extra/zebra.ts'), 'export function zebraCatchUp(n: number): number {\n  return n * 7;\n}\n');
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function quokkaChanged(a: number): number {\n  return a - 1;\n}\n');
    fs.rmSync(path.join(ws, 'src/cart.ts'));
    fs.writeFileSync(path.join(ws, '.gitignore'), 'scratch/\n');
    fs.mkdirSync(path.join(ws, 'scratch'));
    fs.writeFileSync(path.join(ws, 'scratch/ignored.ts'), 'export function ignoredByGit(): void {}\n');

    h2 = await serve(ws);
    const resumed = await until(async () => {
      const s = ok(await h2!.call('daemon_status', { agent_id: 'a' }));
      return s.last_cycle?.trigger === 'resume' ? s : undefined;
    }, 30000, 'the resume cycle');
    assert.equal(resumed.active, true);
    assert.equal(resumed.counters.reingested, 2, 'the added and the changed file, nothing else');
    assert.equal(resumed.counters.deleted, 1);
    const alerts = ok(await h2.call('alerts_list', { agent_id: 'a' })).alerts as any[];
    assert.ok(alerts.some((a) => a.kind === 'file_deleted' && a.path === 'src/cart.ts'), JSON.stringify(alerts.map((a) => `${a.kind} ${a.path}`)));
    const added = ok(await h2.call('seek', { agent_id: 'a', query: 'zebraCatchUp' }));
    assert.equal(added.results[0]?.id, 'function:src/extra/zebra.ts#zebraCatchUp', 'the added file is in the graph');
    const changed = ok(await h2.call('seek', { agent_id: 'a', query: 'quokkaChanged' }));
    assert.equal(changed.results[0]?.id, 'function:src/math.ts#quokkaChanged', 'the changed file was re-ingested');
    const ignored = ok(await h2.call('seek', { agent_id: 'a', query: 'ignoredByGit' }));
    assert.ok(!JSON.stringify(ignored.results).includes('scratch/'), 'a git-ignored file stays out');
    const gone = ok(await h2.call('seek', { agent_id: 'a', query: 'Cart' }));
    assert.ok(!JSON.stringify(gone.results).includes('src/cart.ts'), 'the deleted file left the graph');
  });

  it('reports a renamed file as moved (same content), with one file_moved alert and no file_deleted', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 60000 }));
    fs.renameSync(path.join(ws, 'src/cart.ts'), path.join(ws, 'src/basket.ts'));
    // Both events queued by the watcher (the long interval keeps the background cycle away).
    await until(async () => ok(await h!.call('daemon_status', { agent_id: 'a' })).queue >= 2, 8000, 'the rename events');
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.moved, [{ from: 'src/cart.ts', to: 'src/basket.ts' }]);
    assert.deepEqual(tick.deleted, []);
    assert.ok(tick.reingested.includes('src/basket.ts'));
    const alerts = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts;
    const moved = alerts.find((a: any) => a.kind === 'file_moved');
    assert.equal(moved.details.to, 'src/basket.ts');
    assert.equal(alerts.some((a: any) => a.kind === 'file_deleted'), false);
    const found = ok(await h.call('seek', { agent_id: 'a', query: 'total' }));
    assert.ok(JSON.stringify(found).includes('function:src/basket.ts#total'), 'the moved file is in the graph under its new path');
  });

  it('re-ingests a changed file in a tick, with the graph watcher off', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function subtractPrices(a: number, b: number): number {\n  return a - b;\n}\n');
    const before = ok(await h.call('seek', { agent_id: 'a', query: 'subtractPrices' }));
    assert.ok(!JSON.stringify(before).includes('#subtractPrices'), 'not in the graph before the tick');
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.reingested, ['src/math.ts']);
    assert.equal(typeof tick.generation, 'number');
    const after = ok(await h.call('seek', { agent_id: 'a', query: 'subtractPrices' }));
    assert.ok(JSON.stringify(after).includes('function:src/math.ts#subtractPrices'), JSON.stringify(after).slice(0, 400));
    const status = ok(await h.call('daemon_status', { agent_id: 'a' }));
    assert.ok(status.counters.reingested >= 1);
    assert.ok(status.ticks >= 1);
  });

  it('takes in a change whose watcher event was dropped, by the reconciliation after the burst (found_by_poll counted)', async () => {
    // Only the reconciliation can see src/dropped.ts: every event for it is lost.
    const restore = dropWatcherEvents('dropped.ts');
    try {
      const ws = workspace();
      // A file the ingest skips (generated): present from the start, no stored row — not a missed event.
      fs.writeFileSync(path.join(ws, 'src/gen.ts'), '// @generated by a tool. DO NOT EDIT.\nexport const table = [1, 2, 3];\n');
      const old = new Date(Date.now() - 3600_000);
      fs.utimesSync(path.join(ws, 'src/gen.ts'), old, old);
      h = await serve(ws);
      ok(await h.call('ingest', { agent_id: 'a', path: ws }));
      ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 50 }));
      fs.writeFileSync(path.join(ws, 'src/dropped.ts'), 'export function droppedEventFn(): number {\n  return 1;\n}\n');
      fs.appendFileSync(path.join(ws, 'src/math.ts'), '\nexport function seenEventFn(): number {\n  return 2;\n}\n');
      const inGraph = async (name: string) => JSON.stringify(ok(await h!.call('seek', { agent_id: 'a', query: name }))).includes(`#${name}`);
      await until(() => inGraph('seenEventFn'), 8000, 'the event-driven re-ingest of src/math.ts');
      assert.equal(await inGraph('droppedEventFn'), false, 'no event reported src/dropped.ts');
      // The reconciliation runs once the tree has been quiet a while (≥ 3 s) after the drain.
      await until(() => inGraph('droppedEventFn'), 15000, 'the reconciliation to take in src/dropped.ts');
      const status = ok(await h.call('daemon_status', { agent_id: 'a' }));
      assert.equal(status.counters.found_by_poll, 1, JSON.stringify(status));
      assert.equal(status.last_cycle.trigger, 'reconcile');
      assert.ok(status.counters.reingested >= 2, JSON.stringify(status.counters));
      // Nothing left to find: a tick's poll now finds no change no event reported.
      const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
      assert.equal(tick.found_by_poll, 0);
      assert.deepEqual(tick.reingested, []);
    } finally {
      restore();
    }
  });

  it('counts what the incremental walk of a burst took in without an event under its watch paths: a lost change re-ingested, a lost deletion raised', async () => {
    // A burst of more than 32 files goes through the engine's incremental walk, which also takes in
    // files whose events were lost: src/dropped.ts (changed) and src/doomed.ts (deleted).
    const restore = dropWatcherEvents('dropped.ts', 'doomed.ts');
    try {
      const ws = workspace();
      fs.writeFileSync(path.join(ws, 'src/doomed.ts'), 'export function doomedFn(): number {\n  return 0;\n}\n');
      // And one the walk leaves out once .gitignore names it: it leaves the graph, not the disk (no deletion raised).
      fs.writeFileSync(path.join(ws, 'src/hidden.ts'), 'export function hiddenFn(): number {\n  return 5;\n}\n');
      const old = new Date(Date.now() - 3600_000);
      for (const f of ['src/doomed.ts', 'src/hidden.ts']) fs.utimesSync(path.join(ws, f), old, old);
      h = await serve(ws);
      ok(await h.call('ingest', { agent_id: 'a', path: ws }));
      // The queue drains once the burst has been quiet 500 ms.
      ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 500 }));
      const burst = 40;
      fs.appendFileSync(path.join(ws, '.gitignore'), '\nsrc/hidden.ts\n');
      for (let i = 0; i < burst; i++) fs.writeFileSync(path.join(ws, `src/burst${i}.ts`), `export function burstFn${i}(): number {\n  return ${i};\n}\n`);
      fs.writeFileSync(path.join(ws, 'src/dropped.ts'), 'export function droppedEventFn(): number {\n  return 1;\n}\n');
      fs.rmSync(path.join(ws, 'src/doomed.ts'));
      // Outside the watch paths (src): the burst's ingest is scoped to src, so the daemon neither takes
      // these in nor counts them nor raises the deletion (burst-scope.test.ts checks the graph).
      fs.appendFileSync(path.join(ws, 'py/retry.py'), '\n\ndef outside_watch_fn():\n    return 2\n');
      fs.rmSync(path.join(ws, 'docs/guide.md'));
      // Usually one drain takes the whole burst through the incremental walk (the path under test); a burst
      // the watcher splits into by-path batches reaches the same counters through the reconciliation.
      const status = await until(async () => {
        const s = ok(await h!.call('daemon_status', { agent_id: 'a' }));
        return s.counters.reingested >= burst + 1 && s;
      }, 20000, 'the background drain of the burst');
      assert.equal(status.counters.reingested, burst + 1, JSON.stringify(status));
      assert.equal(status.counters.found_by_poll, 3, JSON.stringify(status));
      assert.equal(status.counters.deleted, 1, JSON.stringify(status));
      const alerts = ok(await h.call('alerts_list', { agent_id: 'a' }));
      assert.deepEqual(alerts.alerts.filter((a: any) => a.kind === 'file_deleted').map((a: any) => a.path), ['src/doomed.ts'], JSON.stringify(alerts).slice(0, 600));
      const hidden = JSON.stringify(ok(await h.call('seek', { agent_id: 'a', query: 'hiddenFn' })));
      assert.ok(!hidden.includes('#hiddenFn'), 'the ignored file left the graph');
      const seek = JSON.stringify(ok(await h.call('seek', { agent_id: 'a', query: 'droppedEventFn' })));
      assert.ok(seek.includes('#droppedEventFn'), seek.slice(0, 400));
      // The counters above were read before any tick: they stayed at the watch paths' files (a burst the
      // watcher splits into by-path batches never reads the outside ones, nor does the scoped poll).
      assert.ok(!alerts.alerts.some((a: any) => a.path === 'docs/guide.md'), 'no alert for a deletion outside the watch paths');
      // A poll compares the watch paths' files only.
      const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
      const underSrc = fs.readdirSync(path.join(ws, 'src')).filter((f) => f !== 'hidden.ts').length;
      assert.equal(tick.polled, underSrc, 'the poll compared the files under src, not the workspace');
      assert.ok(!tick.reingested.some((p: string) => !p.startsWith('src/')), JSON.stringify(tick.reingested));
    } finally {
      restore();
    }
  });

  it('raises a stale-claim alert when cited code changes, and resolves it when the code is back', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const claim = ok(await h.call('memorize', { agent_id: 'a', claims: [{ text: 'add returns the plain sum', evidence: ['function:src/math.ts#add'] }] })).stored[0];
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    const file = path.join(ws, 'src/math.ts');
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, original.replace('return a + b;', 'return a + b + 0;'));
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.ok(tick.claims_checked >= 1);
    const stale = ok(await h.call('alerts_list', { agent_id: 'b' })).alerts.find((a: any) => a.kind === 'claim_stale');
    assert.ok(stale, 'a claim_stale alert');
    assert.equal(stale.details.claim_id, claim.id);
    assert.equal(stale.details.changed[0].what, 'content_changed');

    fs.writeFileSync(file, original);
    const back = ok(await h.call('daemon_tick', { agent_id: 'a' }));
    assert.ok(back.alerts_resolved >= 1);
    assert.equal(ok(await h.call('alerts_list', { agent_id: 'b' })).alerts.filter((a: any) => a.kind === 'claim_stale').length, 0);
    const resolved = ok(await h.call('alerts_list', { agent_id: 'b', include_resolved: true })).alerts.find((a: any) => a.id === stale.id);
    assert.equal(resolved.status, 'resolved');
  });

  it("pushes a private claim's stale alert only to the sessions that have called as its author", async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    // A second client session on the same server, calling as another agent.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await h.host.connect(serverSide);
    const other = new Client({ name: 'other', version: '0.0.0' });
    await other.connect(clientSide);
    try {
      const mine: any[] = [];
      const theirs: any[] = [];
      h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void mine.push(n.params));
      other.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void theirs.push(n.params));
      await other.callTool({ name: 'health', arguments: { agent_id: 'x' } });
      const claim = ok(await h.call('memorize', { agent_id: 'secret', scope: 'agent', claims: [{ text: 'add returns the plain sum', evidence: ['function:src/math.ts#add'] }] })).stored[0];
      const shared = ok(await h.call('memorize', { agent_id: 'secret', claims: [{ text: 'add is pure', evidence: ['function:src/math.ts#add'] }] })).stored[0];
      ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
      const file = path.join(ws, 'src/math.ts');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('return a + b;', 'return a + b + 0;'));
      // The tick runs in the other session: the alerts are pushed from outside any call all the same.
      await other.callTool({ name: 'daemon_tick', arguments: { agent_id: 'x' } });
      const about = (logs: any[], id: string) => logs.some((l) => l.data?.data?.kind === 'claim_stale' && String(l.data?.message).includes(id));
      await until(async () => about(mine, claim.id) && about(mine, shared.id) && about(theirs, shared.id), 3000, "the author's pushes and the shared claim's push to the other session");
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(about(theirs, claim.id), false, `the private claim's alert reached a session that never called as its author: ${JSON.stringify(theirs)}`);
    } finally {
      await other.close();
    }
  });

  it('acknowledges alerts per agent: hidden for the one who acked, still listed for the others', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    fs.rmSync(path.join(ws, 'py/retry.py'));
    ok(await h.call('daemon_tick', { agent_id: 'a' }));
    const alert = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts.find((a: any) => a.path === 'py/retry.py');
    assert.ok(alert);
    const acked = ok(await h.call('alerts_ack', { agent_id: 'a', alert_ids: [alert.id, 'al_nope'] }));
    assert.deepEqual(acked.acked, [alert.id]);
    assert.deepEqual(acked.unknown, ['al_nope']);
    assert.equal(ok(await h.call('alerts_list', { agent_id: 'a' })).alerts.some((a: any) => a.id === alert.id), false);
    const mine = ok(await h.call('alerts_list', { agent_id: 'a', include_acked: true })).alerts.find((a: any) => a.id === alert.id);
    assert.equal(mine.acked, true);
    assert.deepEqual(mine.acked_by, ['a']);
    const theirs = ok(await h.call('alerts_list', { agent_id: 'b' })).alerts.find((a: any) => a.id === alert.id);
    assert.equal(theirs.acked, false);
  });

  it('refuses what persists on a read-only server and still reads', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    fs.rmSync(path.join(ws, 'py/retry.py'));
    ok(await h.call('daemon_tick', { agent_id: 'a' }));
    const id = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts[0].id;
    await h.close();
    h = undefined;
    h2 = await serve(ws, { M1ND_READ_ONLY: '1' });
    for (const [verb, args] of [
      ['daemon_start', {}],
      ['auto_ingest_start', { roots: ['docs'] }],
      ['daemon_tick', {}],
      ['auto_ingest_tick', {}],
      ['alerts_ack', { alert_ids: [id] }],
    ] as const) {
      const r = await h2.call(verb, { agent_id: 'a', ...args });
      assert.equal(r.result.isError, true, `${verb} is refused`);
      assert.match(JSON.stringify(r.json), /READ_ONLY|read-only/i, verb);
    }
    assert.equal(ok(await h2.call('daemon_status', { agent_id: 'a' })).active, false);
    assert.equal(ok(await h2.call('alerts_list', { agent_id: 'a' })).alerts[0].id, id);
    assert.equal(ok(await h2.call('alerts_list', { agent_id: 'a' })).alerts[0].acked, false);
  });

  it('tells a daemon_stop on a read-only server that the stored daemon was not stopped, and where to stop it', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    await h.close();
    h = undefined;
    h2 = await serve(ws, { M1ND_READ_ONLY: '1' });
    const r = ok(await h2.call('daemon_stop', { agent_id: 'a' }));
    assert.equal(r.active, true);
    assert.match(r.note, /nothing was stopped.*writable server/);
  });
});

describe('auto_ingest: document roots kept ingested', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('counts a document the watcher queued in `queued` once, though the rescan finds it waiting', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 }));
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    fs.writeFileSync(path.join(ws, 'docs/late.md'), '# Late\n\nWritten after the start.\n');
    // The watcher's event queues it (the long debounce keeps the background drain away).
    await until(async () => ok(await h!.call('auto_ingest_status', { agent_id: 'a' })).queue === 1, 10000, 'the watcher event');
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.ingested, ['docs/late.md']);
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).counters.queued, 2, 'the guide by the bootstrap scan, the late document by its event');
  });

  it('picks up a new Markdown document and prunes a deleted one, with a manifest', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const started = ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 }));
    assert.deepEqual(started.roots, ['docs']);
    assert.equal(started.bootstrap_queued, 1, 'the existing guide is queued by the bootstrap scan');
    const first = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(first.ingested, ['docs/guide.md']);
    // The tick's rescan found the guide still waiting: queued once, not twice.
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).counters.queued, 1);

    fs.writeFileSync(path.join(ws, '.gitignore'), 'docs/private/\n');
    fs.mkdirSync(path.join(ws, 'docs/private'));
    fs.writeFileSync(path.join(ws, 'docs/private/secret.md'), '# Ignored by git\n');
    fs.mkdirSync(path.join(ws, 'docs/node_modules/pkg'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/node_modules/pkg/README.md'), '# A dependency\n');
    fs.writeFileSync(path.join(ws, 'docs/deploy.md'), '# Zebraquartz deployment\n\nRun the release script.\n');
    fs.writeFileSync(path.join(ws, 'docs/notes.txt'), 'plain notes\n');
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    // The text document enters the graph through the documents plugin (document + section nodes).
    assert.deepEqual([...tick.ingested].sort(), ['docs/deploy.md', 'docs/notes.txt'], 'git-ignored and skip-listed folders are left out');
    assert.deepEqual(tick.converted, []);
    const found = ok(await h.call('seek', { agent_id: 'a', query: 'Zebraquartz deployment' }));
    assert.ok(JSON.stringify(found).includes('docs/deploy.md'), 'the new document is in the graph');
    const resolved = ok(await h.call('document_resolve', { agent_id: 'a', path: 'docs/notes.txt' }));
    assert.equal(resolved.reused, true, 'the text document was converted by auto-ingest');

    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.manifest.entries, 3);
    assert.ok(status.counters.ingested >= 2);

    fs.rmSync(path.join(ws, 'docs/deploy.md'));
    const pruned = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(pruned.pruned, ['docs/deploy.md']);
    const gone = ok(await h.call('seek', { agent_id: 'a', query: 'Zebraquartz deployment' }));
    assert.ok(!JSON.stringify(gone).includes('docs/deploy.md'), 'its nodes left the graph');
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).manifest.entries, 2);

    // Nothing changed, so nothing is done. A watcher event that arrives late (a second `change`
    // for a file written before the earlier tick, seen under load) is drained as unchanged by its hash.
    const idle = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    const note = `nothing changed: nothing to do ${JSON.stringify(idle)}`;
    assert.deepEqual([idle.ingested, idle.converted, idle.pruned, idle.failed], [[], [], [], []], note);
    assert.equal(idle.processed, idle.unchanged, note);
    const stopped = ok(await h.call('auto_ingest_stop', { agent_id: 'a' }));
    assert.equal(stopped.active, false);
    assert.equal(stopped.manifest_entries, 2);
  });

  it('takes in a document whose watcher event was dropped, by the reconciliation after the burst', async () => {
    const restore = dropWatcherEvents('lost.md');
    try {
      const ws = workspace();
      h = await serve(ws);
      ok(await h.call('ingest', { agent_id: 'a', path: ws }));
      ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 50 }));
      const inGraph = async (words: string, file: string) => JSON.stringify(ok(await h!.call('seek', { agent_id: 'a', query: words }))).includes(file);
      await until(() => inGraph('cart adds prices', 'docs/guide.md'), 8000, 'the bootstrap scan to ingest the guide');
      fs.writeFileSync(path.join(ws, 'docs/seen.md'), '# Quokkaplanet rollout\n\nSeen by the watcher.\n');
      fs.writeFileSync(path.join(ws, 'docs/lost.md'), '# Wombatcomet migration\n\nNo event reports this file.\n');
      await until(() => inGraph('Quokkaplanet rollout', 'docs/seen.md'), 8000, 'the event-driven ingest of docs/seen.md');
      assert.equal(await inGraph('Wombatcomet migration', 'docs/lost.md'), false, 'no event reported docs/lost.md');
      await until(() => inGraph('Wombatcomet migration', 'docs/lost.md'), 15000, 'the reconciliation to take in docs/lost.md');
      const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
      assert.equal(status.manifest.entries, 3, JSON.stringify(status));
    } finally {
      restore();
    }
  });
});
