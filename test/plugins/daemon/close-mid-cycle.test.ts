import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

const FILES = 200;

describe('daemon: a server closing while a cycle runs', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('records nothing of the interrupted cycle: no ingest_failed alert, no failure or change counted, the next poll takes the changes in once', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-close-mid-cycle-'));
    fs.mkdirSync(path.join(ws, 'gen'));
    for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(ws, `gen/m${i}.ts`), `export function f${i}(x: number): number {\n  return x + ${i};\n}\n`);
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    // The graph's watcher off (only the daemon re-ingests); the same cache folder for every server.
    const serve = () => connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    h = await serve();
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    await h.close();
    // Changed while no server ran: the next server's resume polls and re-ingests them.
    for (let i = 0; i < FILES; i++) fs.appendFileSync(path.join(ws, `gen/m${i}.ts`), `export const g${i} = ${i};\n`);
    // Closed while the resume starts (it runs once the stored graph has loaded): at several moments.
    for (const delay of [0, 10, 30, 60, 100, 200]) {
      h = await serve();
      await new Promise((r) => setTimeout(r, delay));
      await h.close();
    }
    h = await serve();
    ok(await h.call('daemon_stop', { agent_id: 'a' }));
    const all = ok(await h.call('alerts_list', { agent_id: 'a', include_resolved: true })).alerts;
    assert.deepEqual(all.filter((a: any) => a.kind === 'ingest_failed').map((a: any) => a.message), [], 'closing is no ingest failure');
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a', max_files: 1000 }));
    const status = ok(await h.call('daemon_status', { agent_id: 'a' }));
    assert.equal(status.counters.failed, 0);
    assert.equal(status.counters.reingested, FILES, `every changed file counted once (this tick took ${tick.reingested.length})`);
    assert.equal(status.counters.found_by_poll, FILES, 'every change found once');
  });
});
