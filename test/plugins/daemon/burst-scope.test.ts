/** A burst's incremental ingest stays under the daemon's watch paths: changes elsewhere are not taken in silently. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon burst scope', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('re-ingests a burst of more than 32 files under the watch paths only (a change and a deletion elsewhere stay as the graph had them)', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-burst-scope-'));
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nThe cart adds prices.\n');
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    // The graph's own watcher off: only the daemon re-ingests.
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src'], poll_interval_ms: 500 }));
    // Outside the watch paths first, so the burst's ingest sees them on disk.
    fs.appendFileSync(path.join(ws, 'py/retry.py'), '\n\ndef outside_watch_fn():\n    return 2\n');
    fs.rmSync(path.join(ws, 'docs/guide.md'));
    const burst = 40;
    for (let i = 0; i < burst; i++) fs.writeFileSync(path.join(ws, `src/burst${i}.ts`), `export function burstFn${i}(): number {\n  return ${i};\n}\n`);
    const status = await until(async () => {
      const s = ok(await h!.call('daemon_status', { agent_id: 'a' }));
      return s.counters.reingested >= burst && s;
    }, 20_000, 'the background drain of the burst');
    assert.equal(status.counters.reingested, burst, JSON.stringify(status.counters));
    const inside = JSON.stringify(ok(await h.call('seek', { agent_id: 'a', query: 'burstFn7' })));
    assert.ok(inside.includes('#burstFn7'), inside.slice(0, 400));
    // What the daemon neither counted nor alerted on did not enter the graph either.
    const outside = JSON.stringify(ok(await h.call('seek', { agent_id: 'a', query: 'outside_watch_fn' })));
    assert.ok(!outside.includes('#outside_watch_fn'), `a change outside the watch paths was ingested: ${outside.slice(0, 400)}`);
    const docs = JSON.stringify(ok(await h.call('glob', { agent_id: 'a', pattern: 'docs/*.md' })));
    assert.ok(docs.includes('docs/guide.md'), `a deletion outside the watch paths left the graph unseen: ${docs.slice(0, 400)}`);
    const alerts = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts;
    assert.ok(!alerts.some((a: any) => a.path === 'docs/guide.md'), 'no alert for the deletion outside the watch paths');
  });
});
