/**
 * An ingest queued behind another session's and cancelled by its client (notifications/cancelled)
 * never starts: its walk and parse would run for nothing once the first ingest ends.
 */
import assert from 'node:assert/strict';
import { writeImportTree } from '../../helpers/ping.ts';
import { connect, tempDir } from '../../helpers/mcp.ts';

describe('an ingest cancelled while queued behind another', function () {
  this.timeout(120000);

  it('never runs once the ingest ahead of it ends', async () => {
    const ws = tempDir();
    writeImportTree(ws, 1500);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    try {
      const loaded = (h.host.current.services.get('graph')?.impl as { engine: { loaded: { ingestNow(o: unknown): Promise<unknown> } } }).engine.loaded;
      const started: unknown[] = [];
      const ingestNow = loaded.ingestNow.bind(loaded);
      loaded.ingestNow = (options) => (started.push(options), ingestNow(options));
      const first = h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.' } });
      await new Promise((r) => setTimeout(r, 50));
      const cancel = new AbortController();
      // Cancelled once the server says it is queued (a fixed delay raced the first ingest: with the
      // parse workers warm from earlier suites it could end first, and the second then ran).
      const second = h.client.callTool({ name: 'ingest', arguments: { agent_id: 'b', path: '.' } }, undefined, {
        signal: cancel.signal,
        onprogress: (p) => {
          if (/waiting for the ingest already running/.test(String(p.message))) cancel.abort('changed my mind');
        },
      });
      await assert.rejects(second);
      const done = await first;
      assert.equal(done.isError, undefined);
      // What the queue held behind the first ingest has run by the time a later call is answered.
      const after = await h.call('ingest', { agent_id: 'a', path: '.', incremental: true });
      assert.equal(after.json.files.parsed, 0);
      assert.equal(started.length, 2, `ingests started: the first, the incremental one, and ${started.length - 2} cancelled one(s)`);
    } finally {
      await h.close();
    }
  });
});
