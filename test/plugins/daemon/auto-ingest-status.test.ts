import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';
import { ok, serve, workspace } from './auto-ingest-fixture.ts';

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
