import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';
import { ok, serve, workspace } from './auto-ingest-fixture.ts';

describe('auto_ingest_stop', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  let h2: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    await h2?.close();
    h = h2 = undefined;
  });

  it('stops the watcher of another server of the same checkout: it ingests nothing more', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    h2 = await serve(ws);
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 50 }));
    await until(async () => ok(await h!.call('auto_ingest_status', { agent_id: 'a' })).manifest.entries === 1, 10000, 'the bootstrap drain');
    const stopped = ok(await h2.call('auto_ingest_stop', { agent_id: 'b' }));
    assert.deepEqual([stopped.was_active, stopped.active], [true, false]);
    fs.writeFileSync(path.join(ws, 'docs/late.txt'), 'Written after the stop.\n');
    // Past the first server's debounce: its watcher saw the event, and must have seen the stop too.
    await new Promise((r) => setTimeout(r, 1500));
    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.active, false);
    assert.equal(status.watching, false, 'the first server stopped watching');
    assert.deepEqual(status.manifest.recent.map((m: any) => m.path), ['docs/guide.md'], 'nothing was ingested after the stop');
  });

  it('leaves no watcher running after concurrent starts and a stop', async function () {
    if (!fs.existsSync('/proc/self/fdinfo')) this.skip();
    // The native watches of this process (Linux: inotify watches listed in fdinfo).
    const watches = () => {
      let n = 0;
      for (const fd of fs.readdirSync('/proc/self/fd')) {
        try {
          if (fs.readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) n += fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify')).length;
        } catch {
          // closed meanwhile
        }
      }
      return n;
    };
    const ws = workspace();
    fs.mkdirSync(path.join(ws, 'docs/sub'));
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const before = watches();
    const starts = await Promise.all([1, 2, 3].map(() => h!.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 })));
    for (const r of starts) ok(r);
    assert.ok(watches() > before, 'the watcher watches');
    ok(await h.call('auto_ingest_stop', { agent_id: 'a' }));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(watches(), before, 'every watcher the starts made was closed');
  });

  it('on a read-only server, says that nothing was stopped and where to stop it', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 }));
    await h.close();
    h = await serve(ws, { M1ND_READ_ONLY: '1' });
    const r = ok(await h.call('auto_ingest_stop', { agent_id: 'a' }));
    assert.equal(r.active, true, 'the stored state is unchanged');
    assert.match(r.note ?? '', /read-only server: nothing was stopped.*writable server/);
  });
});
