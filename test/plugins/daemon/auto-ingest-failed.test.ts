/** A document that fails to convert is tried again when it changes (not on every tick), listed with its error, and counted once. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
import { ok, serve, workspace } from './auto-ingest-fixture.ts';

describe('auto-ingest failed documents', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('retries a failed document only once it changed, lists it with its error in auto_ingest_status, and counts documents in counters.failed', async () => {
    const ws = workspace();
    // Not a zip: mammoth cannot read it (or, without mammoth, the docx format is unavailable): a failure either way.
    fs.writeFileSync(path.join(ws, 'docs/broken.docx'), 'this is not a word document');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60_000 }));
    const first = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(first.failed.map((f: any) => f.path), ['docs/broken.docx'], JSON.stringify(first));
    // Unchanged: the rescans of later ticks leave it alone (it was converted again on every tick).
    for (let i = 0; i < 3; i++) {
      const again = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
      assert.deepEqual(again.failed, [], `tick ${i + 2} tried the unchanged document again: ${JSON.stringify(again)}`);
    }
    let status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.counters.failed, 1, JSON.stringify(status.counters));
    assert.equal(status.failed.length, 1, JSON.stringify(status.failed));
    const [f] = status.failed;
    assert.equal(f.path, 'docs/broken.docx');
    assert.equal(f.converter, 'docx');
    assert.ok(f.error.length > 0 && f.error === first.failed[0].error.slice(0, 300), JSON.stringify(f));
    assert.equal(f.attempts, 1);
    assert.ok(Date.parse(f.retry_at) > Date.now(), `a retry without a change backs off: ${f.retry_at}`);
    // Changed: tried again at the next tick; still failing, it is still one failed document.
    fs.writeFileSync(path.join(ws, 'docs/broken.docx'), 'still not a word document, but longer');
    const changed = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(changed.failed.map((x: any) => x.path), ['docs/broken.docx'], JSON.stringify(changed));
    status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.counters.failed, 1, `a failing document's retries are not counted again: ${JSON.stringify(status.counters)}`);
    assert.equal(status.manifest.by_result.failed, 1);
    // A second broken document is a second failed one.
    fs.writeFileSync(path.join(ws, 'docs/other.docx'), 'nope');
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.counters.failed, 2, JSON.stringify(status.counters));
    assert.deepEqual(status.failed.map((x: any) => x.path).sort(), ['docs/broken.docx', 'docs/other.docx']);
  });
});
