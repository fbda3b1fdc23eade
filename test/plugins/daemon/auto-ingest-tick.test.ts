import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

async function serve(ws: string): Promise<Harness> {
  return connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: path.join(ws, '..', `${path.basename(ws)}-cache`) }, config: { options: { graph: { watch: false, typeCheck: false } } } });
}

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('auto_ingest_tick: what a tick reports', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('counts every document it ingested and pruned when the lists are cut at 100, and says they are cut', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.mkdirSync(path.join(ws, 'docs'));
    for (let i = 0; i < 130; i++) fs.writeFileSync(path.join(ws, `docs/n${i}.md`), `# Note ${i}\n\nword${i}\n`);
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a', max_documents: 1000 }));
    assert.equal(tick.processed, 130);
    assert.equal(tick.ingested.length, 100, 'the list is cut');
    assert.deepEqual(tick.counts, { ingested: 130, converted: 0, pruned: 0, failed: 0 });
    assert.equal(tick.truncated, true);
    for (let i = 0; i < 110; i++) fs.rmSync(path.join(ws, `docs/n${i}.md`));
    const pruned = ok(await h.call('auto_ingest_tick', { agent_id: 'a', max_documents: 1000 }));
    assert.equal(pruned.pruned.length, 100);
    assert.equal(pruned.counts.pruned, 110);
    assert.equal(pruned.truncated, true);
    const idle = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.equal(idle.truncated, false);
    assert.deepEqual(idle.counts, { ingested: 0, converted: 0, pruned: 0, failed: 0 });
  });
});
