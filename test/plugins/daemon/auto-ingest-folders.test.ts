import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tempDir, type Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';
import { ok, serve } from './auto-ingest-fixture.ts';

describe('auto-ingest: a folder moved out of a document root', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('prunes the documents under it as soon as the watcher reports the folder, without waiting for a rescan', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.mkdirSync(path.join(ws, 'docs/sub'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/keep.md'), '# Keep\n');
    fs.writeFileSync(path.join(ws, 'docs/sub/a.md'), '# Sub\n\nBlorptastic alpha.\n');
    fs.writeFileSync(path.join(ws, 'docs/sub/b.txt'), 'Glimmerfax beta.\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 50 }));
    const entries = async () => ok(await h!.call('auto_ingest_status', { agent_id: 'a', top_k: 0 })).manifest.entries;
    await until(async () => (await entries()) === 3, 10000, 'the bootstrap drain');
    fs.renameSync(path.join(ws, 'docs/sub'), path.join(os.tmpdir(), `m1nd-moved-out-${process.pid}-${Date.now()}`));
    // Well before the reconciliation (3 s of quiet at least): the folder's event alone.
    await until(async () => (await entries()) === 1, 2000, 'the documents under the moved folder to leave the manifest');
    const seek = ok(await h.call('seek', { agent_id: 'a', query: 'Glimmerfax beta' }));
    assert.ok(!JSON.stringify(seek.results).includes('docs/sub/b.txt'), 'the converted document left the graph');
    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a', top_k: 0 }));
    assert.equal(status.counters.pruned, 2, JSON.stringify(status.counters));
  });
});
