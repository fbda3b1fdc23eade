/** Documents (Markdown, text, reST, HTML) saved as UTF-16 (with a byte-order mark, little- or big-endian) or UTF-8 with a BOM are read as text, not skipped as binary. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from '../../helpers/mcp.ts';
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
});
