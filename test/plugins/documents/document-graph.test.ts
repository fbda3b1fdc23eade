import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { makeDocx, makePdf } from './document-fixtures.ts';

function write(ws: string, rel: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), data);
}

const ok = (r: { json: any }) => {
  assert.equal(r.json.error, undefined, JSON.stringify(r.json));
  return r.json;
};

/** Ids of the nodes that reach `id` in reverse impact. */
async function documentedBy(h: Harness, id: string): Promise<string[]> {
  const r = ok(await h.call('impact', { agent_id: 'a', node_id: id, direction: 'reverse', top_k: 100 }));
  return r.direct.map((d: any) => d.id);
}

describe('documents in the graph: converted PDF, HTML and DOCX as document and section nodes', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  let ws: string;
  let cache: string;
  const serve = async () => (h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache } }));
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-docgraph-cache-'));
    write(ws, 'package.json', JSON.stringify({ type: 'module', private: true, scripts: { test: 'mocha' } }, null, 2));
    write(ws, 'docs/cart.pdf', makePdf(['Cart design', 'The checkout calls total() from src/cart.ts.', 'Zephyrine reconciliation happens nightly.']));
    write(ws, 'docs/retry.html', '<html><body><h1>Retries</h1><p>Failures wait <code>backoff</code> seconds in a quokka pattern.</p></body></html>');
    write(ws, 'manual/setup.rst', 'Setup\n=====\n\nThe platypus bootstrap calls :func:`retry` around flaky steps.\n');
    write(ws, 'docs/math.docx', await makeDocx('Math notes', ['mul() multiplies by repeated calls to add().', 'Both live in src/math.ts.']));
    await serve();
    ok(await h!.call('ingest', { agent_id: 'a', path: ws }));
  });
  after(async () => {
    await h?.close();
  });

  it('an auto_ingest tick puts the converted documents in the graph, with sections seek finds', async () => {
    ok(await h!.call('auto_ingest_start', { agent_id: 'a', roots: ['docs'], debounce_ms: 60000 }));
    const tick = ok(await h!.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual([...tick.ingested].sort(), ['docs/cart.pdf', 'docs/guide.md', 'docs/math.docx', 'docs/retry.html'], JSON.stringify(tick));
    // A phrase that exists only inside the PDF.
    const s = ok(await h!.call('seek', { agent_id: 'a', query: 'Zephyrine reconciliation', top_k: 5 }));
    assert.equal(s.results[0]?.id, 'section:docs/cart.pdf#Page 1', JSON.stringify(s.results));
    const html = ok(await h!.call('seek', { agent_id: 'a', query: 'quokka pattern', top_k: 5 }));
    assert.equal(html.results[0]?.id, 'section:docs/retry.html#Retries', JSON.stringify(html.results));
    // The document's node resolves back to its artefact.
    const resolved = ok(await h!.call('document_resolve', { agent_id: 'a', node_id: 'section:docs/math.docx#Math notes' }));
    assert.equal(resolved.path, 'docs/math.docx');
  });

  it('binds sections to the code they name: impact on a function lists the documents that mention it', async () => {
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'));
    assert.ok((await documentedBy(h!, 'function:src/cart.ts#total')).includes('section:docs/cart.pdf#Page 1'));
    assert.ok((await documentedBy(h!, 'file:src/math.ts')).includes('section:docs/math.docx#Math notes'));
    assert.ok(!(await documentedBy(h!, 'function:src/math.ts#mul')).some((id) => id.includes('cart.pdf')), 'the PDF does not name mul');
  });

  it('editing a bound function raises drift for the DOCX binding, and the section stays linked to it', async () => {
    ok(await h!.call('document_bindings', { agent_id: 'a', path: 'docs/math.docx' }));
    assert.equal(ok(await h!.call('document_drift', { agent_id: 'a', path: 'docs/math.docx' })).counts.stale, 0);
    const f = path.join(ws, 'src/math.ts');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('  return out;\n}', '  return out * 1;\n}'));
    const drift = ok(await h!.call('document_drift', { agent_id: 'a', path: 'docs/math.docx' }));
    const stale = drift.findings.filter((x: any) => x.kind === 'stale');
    assert.ok(stale.some((x: any) => x.targets.includes('function:src/math.ts#mul')), JSON.stringify(drift.findings));
    assert.ok(!stale.some((x: any) => x.targets.includes('function:src/math.ts#add')), 'add was not edited');
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'), 'the edge survives the re-ingest of math.ts');
  });

  it('rewrites a document\'s links only when its bound targets changed: not for an edit elsewhere or inside a bound function, yes when a name binds again', async () => {
    const state = async () => ok(await h!.call('document_provider_health', { agent_id: 'a' })).graph;
    const r0 = await state();
    assert.equal(r0.documents, 3, JSON.stringify(r0)); // the PDF, the HTML page and the DOCX (guide.md is the graph's own)
    write(ws, 'src/extra.ts', 'export function quasarUnused(): number {\n  return 1;\n}\n');
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const r1 = await state();
    assert.equal(r1.relinked - r0.relinked, 0, 'no document names src/extra.ts');
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'), 'the links kept');
    // An edit inside a bound function keeps its node and the edges into it: nothing to rewrite.
    const f = path.join(ws, 'src/cart.ts');
    const original = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(f, original.replace(/\n}\n/, '\n  // edited\n}\n'));
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const r2 = await state();
    assert.equal(r2.relinked - r1.relinked, 0, 'the links into total() are intact');
    assert.ok((await documentedBy(h!, 'function:src/cart.ts#total')).includes('section:docs/cart.pdf#Page 1'), 'the PDF still documents total');
    // Renaming the bound function: its edge left with its node, and total() binds nothing now.
    fs.writeFileSync(f, original.replace('function total(', 'function grandTotal('));
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const r3 = await state();
    assert.equal(r3.relinked - r2.relinked, 0, 'nothing left to change');
    assert.ok(!(await documentedBy(h!, 'function:src/cart.ts#grandTotal')).some((id) => id.includes('cart.pdf')), 'total() does not name grandTotal');
    assert.ok((await documentedBy(h!, 'file:src/cart.ts')).includes('section:docs/cart.pdf#Page 1'), 'the path binding stays');
    // Back to total(): the PDF binds it again, so the PDF alone is rewritten.
    fs.writeFileSync(f, original);
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    assert.equal((await state()).relinked - r3.relinked, 1, 'the PDF');
    assert.ok((await documentedBy(h!, 'function:src/cart.ts#total')).includes('section:docs/cart.pdf#Page 1'), 'linked again');
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'));
  });

  it('resolves again only the documents naming a name or path that came or went', async () => {
    const state = async () => ok(await h!.call('document_provider_health', { agent_id: 'a' })).graph;
    const s0 = await state();
    assert.equal(s0.documents, 3, JSON.stringify(s0));
    // A new file whose names no document mentions: no document is resolved again.
    write(ws, 'src/unnamed.ts', 'export function nebulaNobodyNames(): number {\n  return 2;\n}\n');
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const s1 = await state();
    assert.equal(s1.resolved - s0.resolved, 0, JSON.stringify({ s0, s1 }));
    // Edits inside py/retry.py's backoff (which the HTML page names) and a new function beside it in
    // src/math.ts (whose path and mul/add the DOCX names): the same names and paths, nothing to resolve.
    const retry = path.join(ws, 'py/retry.py');
    const retryText = fs.readFileSync(retry, 'utf8');
    fs.writeFileSync(retry, retryText.replace('def backoff(attempt):\n', 'def backoff(attempt):\n    # edited\n'));
    const math = path.join(ws, 'src/math.ts');
    fs.writeFileSync(math, fs.readFileSync(math, 'utf8') + '\nexport function cube(x: number): number {\n  return x * x * x;\n}\n');
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const s2 = await state();
    assert.equal(s2.resolved - s1.resolved, 0, 'no name or path came or went that a document names');
    assert.ok((await documentedBy(h!, 'function:py/retry.py#backoff')).includes('section:docs/retry.html#Retries'), 'the link into the edited function kept');
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'));
    // A second backoff elsewhere: the HTML page alone is resolved again, and its mention is ambiguous now (no link).
    write(ws, 'src/backoff.ts', 'export function backoff(n: number): number {\n  return n * 2;\n}\n');
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    const s3 = await state();
    assert.equal(s3.resolved - s2.resolved, 1, 'the HTML page alone');
    assert.ok(!(await documentedBy(h!, 'function:py/retry.py#backoff')).includes('section:docs/retry.html#Retries'), 'an ambiguous mention links nothing');
    // Gone again: the HTML page alone, bound again.
    fs.rmSync(path.join(ws, 'src/backoff.ts'));
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
    assert.equal((await state()).resolved - s3.resolved, 1, 'the HTML page alone');
    assert.ok((await documentedBy(h!, 'function:py/retry.py#backoff')).includes('section:docs/retry.html#Retries'), 'linked again');
    fs.writeFileSync(retry, retryText);
    fs.rmSync(path.join(ws, 'src/unnamed.ts'));
    ok(await h!.call('ingest', { agent_id: 'a', path: ws, incremental: true }));
  });

  it('re-ingests a rewritten document and prunes a deleted one on the next tick', async () => {
    write(ws, 'docs/retry.html', '<html><body><h1>Backoff policy</h1><p>Waits grow as a wombat sequence; see <code>retry</code>.</p></body></html>');
    fs.rmSync(path.join(ws, 'docs/cart.pdf'));
    const tick = ok(await h!.call('auto_ingest_tick', { agent_id: 'a' }));
    assert.deepEqual(tick.ingested, ['docs/retry.html'], JSON.stringify(tick));
    assert.deepEqual(tick.pruned, ['docs/cart.pdf']);
    const gone = ok(await h!.call('seek', { agent_id: 'a', query: 'Zephyrine reconciliation', top_k: 5 }));
    assert.ok(!JSON.stringify(gone.results).includes('cart.pdf'), JSON.stringify(gone.results));
    const old = ok(await h!.call('seek', { agent_id: 'a', query: 'quokka', top_k: 5 }));
    assert.ok(!JSON.stringify(old.results).includes('retry.html'), 'the old section left with the old version');
    const now = ok(await h!.call('seek', { agent_id: 'a', query: 'wombat sequence', top_k: 5 }));
    assert.equal(now.results[0]?.id, 'section:docs/retry.html#Backoff policy');
    assert.ok((await documentedBy(h!, 'function:py/retry.py#retry')).includes('section:docs/retry.html#Backoff policy'));
    assert.ok(!(await documentedBy(h!, 'function:src/cart.ts#total')).some((id) => id.includes('cart.pdf')));
  });

  it('document_bindings with persist puts a document outside the auto-ingest roots in the graph', async () => {
    const before = ok(await h!.call('seek', { agent_id: 'a', query: 'platypus bootstrap', top_k: 5 }));
    assert.ok(!JSON.stringify(before.results).includes('manual/setup.rst'), 'not in the graph before');
    const read = ok(await h!.call('document_bindings', { agent_id: 'a', path: 'manual/setup.rst' }));
    assert.equal(read.in_graph, undefined, 'a read call adds nothing to the graph');
    const r = ok(await h!.call('document_bindings', { agent_id: 'a', path: 'manual/setup.rst', persist: true }));
    assert.equal(r.in_graph, true);
    const s = ok(await h!.call('seek', { agent_id: 'a', query: 'platypus bootstrap', top_k: 5 }));
    assert.equal(s.results[0]?.id, 'section:manual/setup.rst#Setup', JSON.stringify(s.results));
    assert.ok((await documentedBy(h!, 'function:py/retry.py#retry')).includes('section:manual/setup.rst#Setup'));
  });

  it('indexes a long section whole: a term 3,000 characters deep is found, the shown doc stays short', async () => {
    const filler = 'The ledger keeps every entry balanced across the quarterly books. '.repeat(45);
    write(ws, 'notes/ledger.txt', `Ledger rules\n\n${filler}\nThe kinkajou threshold closes the books.\n`);
    ok(await h!.call('document_bindings', { agent_id: 'a', path: 'notes/ledger.txt', persist: true }));
    const s = ok(await h!.call('seek', { agent_id: 'a', query: 'kinkajou threshold', top_k: 5 }));
    const hit = s.results[0];
    assert.match(hit?.id ?? '', /^(section|file):notes\/ledger\.txt/, JSON.stringify(s.results));
    assert.ok((hit.doc ?? '').length <= 1000, `doc of ${hit.doc?.length} characters`);
    assert.ok(!(hit.doc ?? '').includes('kinkajou'), 'the term is past the shown doc');
  });

  it('puts the documents back after a restart, from the store', async () => {
    await h!.close();
    await serve();
    const deep = ok(await h!.call('seek', { agent_id: 'a', query: 'kinkajou threshold', top_k: 5 }));
    assert.match(deep.results[0]?.id ?? '', /notes\/ledger\.txt/, JSON.stringify(deep.results));
    const s = ok(await h!.call('seek', { agent_id: 'a', query: 'wombat sequence', top_k: 5 }));
    assert.equal(s.results[0]?.id, 'section:docs/retry.html#Backoff policy', JSON.stringify(s.results));
    assert.ok((await documentedBy(h!, 'function:src/math.ts#mul')).includes('section:docs/math.docx#Math notes'));
    assert.ok((await documentedBy(h!, 'function:py/retry.py#retry')).includes('section:manual/setup.rst#Setup'));
  });
});
