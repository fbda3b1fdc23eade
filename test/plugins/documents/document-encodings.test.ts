/** Documents (Markdown, text, reST, HTML) saved as UTF-16 (with a byte-order mark, little- or big-endian) or UTF-8 with a BOM are read as text, not skipped as binary. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
import type { GraphService } from '../../../plugins/graph/api.ts';
import { ok, serve, workspace } from '../daemon/auto-ingest-fixture.ts';

/** `text` as UTF-16 with its BOM, little- or big-endian. */
function utf16(text: string, endian: 'le' | 'be'): Buffer {
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  if (endian === 'le') return le;
  const be = Buffer.from(le);
  for (let i = 0; i + 1 < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1], be[i]];
  return be;
}

const DOCS: Record<string, Buffer> = {
  'docs/wide-le.md': utf16('# Wombat notes\n\nThe cart calls `add` for the wombatlittle total.\n', 'le'),
  'docs/wide-be.txt': utf16('Numbat notes\n\nThe numbatbig ledger adds line totals.\n', 'be'),
  'docs/wide.html': utf16('<html><body><h1>Bilby notes</h1><p>The bilbywide page.</p></body></html>', 'le'),
  'docs/bom8.rst': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Quoll notes\n===========\n\nThe quollbom step retries.\n', 'utf8')]),
};

describe('document encodings', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('converts UTF-16 (LE and BE, with BOM) and UTF-8-with-BOM documents to clean Markdown, and auto-ingest puts them in the graph', async () => {
    const ws = workspace();
    for (const [rel, bytes] of Object.entries(DOCS)) fs.writeFileSync(path.join(ws, rel), bytes);
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    const le = ok(await h.call('document_resolve', { agent_id: 'a', path: 'docs/wide-le.md' }));
    assert.ok(!JSON.stringify(le).includes('\\u0000'), `NUL characters in the conversion: ${JSON.stringify(le).slice(0, 300)}`);
    assert.match(JSON.stringify(le), /Wombat notes/);
    const be = ok(await h.call('document_resolve', { agent_id: 'a', path: 'docs/wide-be.txt' }));
    assert.match(JSON.stringify(be), /numbatbig ledger/);
    assert.ok(!JSON.stringify(be).includes('\\u0000'));
    const bom = ok(await h.call('document_resolve', { agent_id: 'a', path: 'docs/bom8.rst' }));
    assert.match(JSON.stringify(bom), /Quoll notes/);
    assert.ok(!JSON.stringify(bom).includes('\\ufeff') && !JSON.stringify(bom).includes('\ufeff'));
    const html = ok(await h.call('document_resolve', { agent_id: 'a', path: 'docs/wide.html' }));
    assert.match(JSON.stringify(html), /# Bilby notes/);
    ok(await h.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60_000 }));
    const tick = ok(await h.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.failed, [], JSON.stringify(tick));
    for (const rel of Object.keys(DOCS)) assert.ok(tick.ingested.includes(rel), `${rel} ingested: ${JSON.stringify(tick)}`);
    for (const word of ['wombatlittle', 'numbatbig', 'quollbom', 'bilbywide']) {
      const seek = JSON.stringify(ok(await h.call('seek', { agent_id: 'a', query: word })));
      assert.ok(seek.includes(word), `seek finds ${word}: ${seek.slice(0, 400)}`);
    }
  });

  it('converts again a UTF-16 artefact stored before UTF-16 was decoded (read as UTF-8, an older converter revision), keeping its baseline', async () => {
    const ws = workspace();
    for (const rel of ['docs/wide-le.md', 'docs/wide-be.txt', 'docs/wide.html']) fs.writeFileSync(path.join(ws, rel), DOCS[rel]);
    h = await serve(ws);
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    // The revisions before UTF-16 was decoded: 1 for Markdown and text (no revision field), 2 for HTML.
    const before: Record<string, number | undefined> = { 'docs/wide-le.md': undefined, 'docs/wide-be.txt': undefined, 'docs/wide.html': 2 };
    const baselines: Record<string, unknown> = {};
    const memory = (h.host.current.services.get('graph')!.impl as GraphService).engine.memory;
    for (const [rel, revision] of Object.entries(before)) {
      const first = ok(await h.call('document_bindings', { agent_id: 'a', path: rel, persist: true }));
      assert.equal(first.stored, true, JSON.stringify(first));
      baselines[rel] = first.baseline_at;
      // The row as the older revision stored it: the bytes read as UTF-8 (a NUL every other character).
      const row = memory.get<Record<string, unknown>>('documents', rel)!.value;
      assert.ok(typeof row.revision === 'number' && row.revision > (revision ?? 1), `${rel} is stored by a newer revision than the old one: ${row.revision}`);
      const { revision: _current, ...rest } = row;
      memory.set('documents', rel, { ...rest, ...(revision !== undefined ? { revision } : {}), markdown: DOCS[rel].toString('utf8') });
    }
    await h.close();
    h = await serve(ws);
    for (const [rel, word] of [['docs/wide-le.md', 'wombatlittle total'], ['docs/wide-be.txt', 'numbatbig ledger'], ['docs/wide.html', 'bilbywide page']]) {
      const r = ok(await h.call('document_resolve', { agent_id: 'a', path: rel }));
      assert.equal(r.reused, false, `${rel}: the old artefact is converted again, not reused`);
      assert.ok(r.markdown.includes(word), `${rel} decoded: ${JSON.stringify(r.markdown).slice(0, 200)}`);
      assert.ok(!r.markdown.includes('\u0000') && !r.markdown.includes('\ufffd'), `${rel}: no NUL or replacement character left`);
      const b = ok(await h.call('document_bindings', { agent_id: 'a', path: rel, persist: true }));
      assert.equal(b.baseline_at, baselines[rel], `${rel}: the same bytes keep their binding baseline`);
      const stored = (h.host.current.services.get('graph')!.impl as GraphService).engine.memory.get<{ markdown: string }>('documents', rel)!.value;
      assert.ok(stored.markdown.includes(word), `${rel}: the store holds the decoded artefact`);
      const again = ok(await h.call('document_resolve', { agent_id: 'a', path: rel }));
      assert.equal(again.reused, true, `${rel}: the new artefact is reused`);
    }
  });
});
