import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
import { ok, serve, workspace } from './auto-ingest-fixture.ts';

describe('auto_ingest_start: the document roots it accepts', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses a file given as a root with a clear message, and starts nothing', async () => {
    const ws = workspace();
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const r = await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs/guide.md'] });
    assert.equal(r.result.isError, true, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'M1ND_ERR_PATH_NOT_FOUND', JSON.stringify(r.json));
    assert.match(r.json.error.message, /docs\/guide\.md is a file, not a folder/);
    assert.match(r.json.error.hint, /"docs"/, 'the hint names the folder holding it');
    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.active, false, 'nothing was persisted as active');
    assert.equal(status.watching, false, 'no watcher was left running');
    // A tick afterwards says auto-ingest was never started, not a file-system error.
    const tick = await h.call('auto_ingest_tick', { agent_id: 'a' });
    assert.equal(tick.json.error?.code, 'M1ND_ERR_STATE_NOT_FOUND', JSON.stringify(tick.json));
  });

  it('refuses a root the scan never looks in (ignored by .gitignore, on the skip list) before anything persists', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, '.gitignore'), 'site/\n');
    fs.mkdirSync(path.join(ws, 'docs/site'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/site/page.md'), '# Built page\n');
    fs.mkdirSync(path.join(ws, 'node_modules/pkg'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'node_modules/pkg/README.md'), '# Pkg\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    for (const root of ['docs/site', 'node_modules/pkg']) {
      const r = await h.call('auto_ingest_start', { agent_id: 'a', roots: [root] });
      assert.equal(r.result.isError, true, `${root}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS', JSON.stringify(r.json));
      assert.match(r.json.error.message, new RegExp(`document root ${root} is never scanned`));
    }
    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.equal(status.active, false, 'nothing was persisted as active');
  });

  it('keeps ticking when a watched root was replaced by a file after the start', async () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws, 'notes'));
    fs.writeFileSync(path.join(ws, 'notes/a.md'), '# Notes\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs', 'notes'], debounce_ms: 60000 }));
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    fs.rmSync(path.join(ws, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'notes'), 'now a file\n');
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.pruned, ['notes/a.md'], 'the documents that were under it are pruned');
  });
});
