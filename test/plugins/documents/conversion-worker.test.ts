import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** An HTML page turndown needs seconds for (on the main thread it would hold the event loop that long). */
function bigHtml(sections: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sections; i++) parts.push(`<div><h3>Section ${i}</h3><p>Some <b>bold</b> text with <a href="x${i}">a link</a> and <code>parseLedger</code>.</p><ul><li>a</li><li>b</li></ul></div>`);
  return `<html><body>${parts.join('')}</body></html>`;
}

describe('document conversion in a worker thread', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  let ws: string;
  beforeEach(() => {
    ws = tempDir();
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'docs/big.html'), bigHtml(4000));
    fs.writeFileSync(path.join(ws, 'a.ts'), 'export function parseLedger(): number {\n  return 1;\n}\n');
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('keeps answering pings while a big HTML document converts', async () => {
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-conv-')) } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const started = performance.now();
    let done = false;
    const conversion = h.call('document_resolve', { agent_id: 'a', path: 'docs/big.html', max_chars: 0 }).finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const t0 = performance.now();
      await h.client.ping();
      if (!done) latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    const r = (await conversion).json;
    const took = performance.now() - started;
    assert.equal(r.converter, 'html', JSON.stringify(r));
    assert.ok(r.markdown_chars > 100_000);
    console.log(`      conversion ${Math.round(took)} ms, ${latencies.length} pings, max ${Math.max(...latencies).toFixed(1)} ms`);
    // Long enough for the pings to show anything (it took 1-3 s on these machines, once 990 ms).
    assert.ok(took > 500, `the conversion took ${took} ms: too quick to show anything`);
    assert.ok(latencies.length >= 10, `${latencies.length} pings answered during ${Math.round(took)} ms`);
    latencies.sort((a, b) => a - b);
    const p95 = latencies[Math.floor(latencies.length * 0.95)];
    assert.ok(p95 < 250, `ping p95 ${p95.toFixed(1)} ms while converting (${latencies.length} pings, conversion ${Math.round(took)} ms)`);
  });

  it('stops a conversion past the time limit with a hint naming the option, and stays responsive', async () => {
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-conv-')) }, config: { bundles: ['default'], options: { documents: { convertTimeoutMs: 300 } } } });
    const t0 = performance.now();
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/big.html' })).json;
    assert.equal(r.error.code, 'M1ND_ERR_DOCUMENT_CONVERT_FAILED', JSON.stringify(r));
    assert.match(r.error.message, /longer than 300 ms/);
    assert.match(r.error.hint, /convertTimeoutMs/);
    assert.ok(performance.now() - t0 < 5000);
    await h.client.ping();
    fs.writeFileSync(path.join(ws, 'docs/small.md'), '# Small\n\nok\n');
    const small = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/small.md' })).json;
    assert.deepEqual(small.headings.map((x: any) => x.text), ['Small']);
  });

  it('converts a batch in one warm worker, and stops it once idle', async () => {
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-conv-')) }, config: { bundles: ['default'], options: { documents: { convertWorkerIdleMs: 500 } } } });
    const workers = async () => (await h!.call('document_provider_health', { agent_id: 'a' })).json.workers;
    const before = await workers();
    assert.equal(before.running, 0, 'the new limits stopped idle workers');
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(ws, `docs/page${i}.html`), `<html><body><h1>Page ${i}</h1><p>Numbat note ${i}.</p></body></html>`);
    for (let i = 0; i < 4; i++) {
      const r: any = (await h!.call('document_resolve', { agent_id: 'a', path: `docs/page${i}.html` })).json;
      assert.deepEqual(r.headings.map((x: any) => x.text), [`Page ${i}`], JSON.stringify(r));
    }
    const during = await workers();
    assert.equal(during.conversions - before.conversions, 4);
    assert.equal(during.started - before.started, 1, JSON.stringify({ before, during }));
    assert.equal(during.reused - before.reused, 3);
    assert.equal(during.running, 1);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await workers()).running, 0, 'stopped after 500 ms idle');
    // The next document starts a worker again.
    const again: any = (await h!.call('document_resolve', { agent_id: 'a', path: 'docs/big.html', max_chars: 0 })).json;
    assert.equal(again.converter, 'html');
    assert.equal((await workers()).started - during.started, 1);
  });
});
