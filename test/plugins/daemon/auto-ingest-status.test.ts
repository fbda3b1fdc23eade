import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

function workspace(): string {
  const ws = writeFixtureRepo(tempDir('m1nd-auto-ingest-'));
  fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nThe cart uses `add`.\n');
  return ws;
}

async function serve(ws: string): Promise<Harness> {
  return connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: path.join(ws, '..', `${path.basename(ws)}-cache`) }, config: { options: { graph: { watch: false, typeCheck: false } } } });
}

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

async function until<T>(check: () => Promise<T | undefined | false>, ms = 8000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('auto_ingest_status', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('counts in `queued` the documents the watcher queued since the last tick, so the counter never lags the queue', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 }));
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    fs.writeFileSync(path.join(ws, 'docs/a.md'), '# A\n');
    fs.writeFileSync(path.join(ws, 'docs/b.md'), '# B\n');
    const status = await until(async () => {
      const s = ok(await h!.call('auto_ingest_status', { agent_id: 'a' }));
      return s.queue === 2 && s;
    }, 10000, 'the watcher events');
    assert.equal(status.counters.queued, 3, `the guide by the bootstrap scan, two by events: ${JSON.stringify(status.counters)}`);
    // Read twice, counted once; the tick then persists the same number.
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).counters.queued, 3);
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).counters.queued, 3);
  });
});
