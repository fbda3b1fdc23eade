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
    assert.deepEqual(tick.counts, { ingested: 130, converted: 0, pruned: 0, released: 0, failed: 0 });
    assert.equal(tick.truncated, true);
    for (let i = 0; i < 110; i++) fs.rmSync(path.join(ws, `docs/n${i}.md`));
    const pruned = ok(await h.call('auto_ingest_tick', { agent_id: 'a', max_documents: 1000 }));
    assert.equal(pruned.pruned.length, 100);
    assert.equal(pruned.counts.pruned, 110);
    assert.equal(pruned.truncated, true);
    const idle = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.equal(idle.truncated, false);
    assert.deepEqual(idle.counts, { ingested: 0, converted: 0, pruned: 0, released: 0, failed: 0 });
  });

  it('releases, not prunes, the documents a new start leaves out (another format or folder): a Markdown file stays in the graph', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs/old'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nZephyrquill markdown.\n');
    fs.writeFileSync(path.join(ws, 'docs/notes.txt'), 'Notes about Vortexplum.\n');
    fs.writeFileSync(path.join(ws, 'docs/old/legacy.txt'), 'Legacy Quasigrove notes.\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    assert.equal(ok(await h.call('auto_ingest_tick', { agent_id: 'a' })).counts.ingested, 3);
    const found = async (q: string, file: string) => JSON.stringify(ok(await h!.call('seek', { agent_id: 'a', query: q }))).includes(file);
    // Only text documents now, and not under docs/old.
    fs.mkdirSync(path.join(ws, 'docs/new'));
    fs.writeFileSync(path.join(ws, 'docs/new/keep.txt'), 'Kept.\n');
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], formats: ['text'], debounce_ms: 600000 }));
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.pruned, [], 'no document was deleted');
    assert.deepEqual([...tick.released].sort(), ['docs/guide.md'], JSON.stringify(tick));
    assert.equal(await found('Zephyrquill markdown', 'docs/guide.md'), true, 'the Markdown file is still in the graph (the code ingest keeps it)');
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs/new'], formats: ['text'], debounce_ms: 600000 }));
    const narrowed = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual([...narrowed.released].sort(), ['docs/notes.txt', 'docs/old/legacy.txt'], JSON.stringify(narrowed));
    assert.deepEqual(narrowed.pruned, []);
    // A converted document no longer kept up to date leaves the graph rather than going stale there.
    assert.equal(await found('Legacy Quasigrove notes', 'docs/old/legacy.txt'), false);
    const status = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.deepEqual(status.manifest.recent.map((m: any) => m.path), ['docs/new/keep.txt'], 'the manifest holds what is watched');
  });

  it('puts in the graph, at the next tick after the first ingest, the documents it converted while there was no graph', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(ws, 'docs/notes.txt'), 'Notes about Xylobrant.\n');
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nMarkdown.\n');
    h = await serve(ws);
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    const first = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual([...first.converted].sort(), ['docs/guide.md', 'docs/notes.txt'], 'no graph yet: converted only');
    const before = ok(await h.call('auto_ingest_status', { agent_id: 'a' }));
    assert.deepEqual(before.manifest.by_result, { converted: 2 }, 'the manifest says what happened');
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.ingested, ['docs/notes.txt'], JSON.stringify(tick));
    const found = ok(await h.call('seek', { agent_id: 'a', query: 'Xylobrant' }));
    assert.ok(JSON.stringify(found.results).includes('docs/notes.txt'), JSON.stringify(found.results));
    const again = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.equal(again.processed, 0, 'in the graph now: nothing more to do');
  });

  it('puts in the graph a Markdown document the code ingest does not parse (.mdx) rather than calling it ingested', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function helperAlpha(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(ws, 'docs/page.mdx'), '# Page\n\nThe Glorbinate component calls `helperAlpha`.\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.ingested, ['docs/page.mdx'], JSON.stringify(tick));
    const found = ok(await h.call('seek', { agent_id: 'a', query: 'Glorbinate component' }));
    assert.ok(JSON.stringify(found.results).includes('docs/page.mdx'), JSON.stringify(found.results));
    const impact = ok(await h.call('impact', { agent_id: 'a', node_id: 'function:src/a.ts#helperAlpha', direction: 'reverse' }));
    assert.ok(JSON.stringify(impact).includes('docs/page.mdx'), 'its section is linked to the code it names');
    assert.equal(ok(await h.call('auto_ingest_tick', { agent_id: 'a' })).processed, 0, 'in the graph: nothing more to do');
  });
});

describe('auto_ingest_tick: concurrent ticks', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('handles each document once: the second of two concurrent ticks finds nothing to do', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(ws, 'docs/notes.txt'), 'Notes.\n');
    fs.writeFileSync(path.join(ws, 'docs/ops.rst'), 'Ops\n===\n\nText.\n');
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    const [first, second] = (await Promise.all([h.call('auto_ingest_tick', { agent_id: 'a' }), h.call('auto_ingest_tick', { agent_id: 'a' })])).map(ok);
    assert.equal(first.counts.ingested, 3, JSON.stringify(first));
    assert.equal(second.processed, 0, JSON.stringify(second));
    assert.equal(ok(await h.call('auto_ingest_status', { agent_id: 'a' })).counters.ingested, 3);
  });
});

describe('auto_ingest_tick: a pruned document is forgotten', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('leaves document_drift silent about a document a tick pruned, in this process as after a restart', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function helperAlpha(): number {\n  return 1;\n}\n');
    fs.writeFileSync(path.join(ws, 'docs/ops.rst'), 'Ops\n===\n\nCall ``helperAlpha``.\n');
    fs.writeFileSync(path.join(ws, 'docs/keep.txt'), 'Calls helperAlpha() too.\n');
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.equal(ok(await h.call('document_drift', { agent_id: 'a', scope: 'docs' })).documents.length, 2);
    fs.rmSync(path.join(ws, 'docs/ops.rst'));
    assert.deepEqual(ok(await h.call('auto_ingest_tick', { agent_id: 'a' })).pruned, ['docs/ops.rst']);
    const drift = ok(await h.call('document_drift', { agent_id: 'a', scope: 'docs' }));
    assert.deepEqual(drift.documents.map((d: any) => d.path), ['docs/keep.txt']);
    assert.deepEqual(drift.findings, [], 'the pruned document is not reported gone');
  });
});

describe('auto_ingest_tick: cancelled by its client', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('leaves the documents it had not handled queued, not dropped', async () => {
    const ws = tempDir('m1nd-auto-ingest-');
    fs.mkdirSync(path.join(ws, 'docs'));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export function a(): number {\n  return 1;\n}\n');
    const N = 120;
    for (let i = 0; i < N; i++) fs.writeFileSync(path.join(ws, `docs/p${i}.html`), `<h1>Page ${i}</h1><p>${'Words about a() here. '.repeat(200)}</p>`);
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 600000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    await assert.rejects(h.client.callTool({ name: 'auto_ingest_tick', arguments: { agent_id: 'a', max_documents: 1000 } }, undefined, { signal: controller.signal }));
    // The server stops at the next document; what it had not handled waits for the next tick.
    let status: any;
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = ok(await h.call('auto_ingest_status', { agent_id: 'a', top_k: 0 }));
      if (status.ticks === 1) break;
    }
    assert.equal(status.ticks, 1, 'the cancelled tick finished');
    assert.ok(status.manifest.entries < N, `the tick was cancelled before the end (${status.manifest.entries} handled)`);
    assert.equal(status.manifest.entries + status.queue, N, JSON.stringify(status));
  });
});
