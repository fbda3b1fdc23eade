import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { makeDocx, makePdf } from './document-fixtures.ts';

const TOTAL = 'function:src/cart.ts#total';
const BACKOFF = 'function:py/retry.py#backoff';

function write(ws: string, rel: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), data);
}

describe('documents: converters, bindings and drift', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    write(ws, 'package.json', JSON.stringify({ type: 'module', private: true, scripts: { test: 'mocha', build: 'tsc' } }, null, 2));
    write(ws, 'docs/cart.pdf', makePdf(['Cart design', 'The checkout calls total() from src/cart.ts to sum the prices.', 'Run npm test before release.']));
    write(
      ws,
      'docs/retry.html',
      '<html><head><style>.x{}</style><script>var ghostFunction = 1;</script></head><body><h1>Retries</h1><p>Failures wait <code>backoff</code> seconds; see <code>py/retry.py</code>.</p><p>The removed helper <code>jitterDelay</code> is gone.</p></body></html>',
    );
    write(ws, 'docs/math.docx', await makeDocx('Math notes', ['mul() multiplies by repeated calls to add().', 'Both live in src/math.ts.']));
    write(ws, 'docs/api.md', '# API\n\nUse `async` code; `len(items)` is Python\'s. Call `py.retry.backoff(attempt, cap=30)`; `retry.jitter_delay(2)` was removed.\n');
    write(ws, 'docs/guide.rst', 'Guide\n=====\n\nUse :func:`retry` around flaky calls.\n\nSetup\n-----\n\nExample::\n\n    $ npm run build\n');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports every converter as available with its package version', async () => {
    const r = (await h.call('document_provider_health', { agent_id: 'a' })).json;
    assert.deepEqual(r.missing, []);
    const pdf = r.providers.find((p: any) => p.name === 'pdf');
    assert.equal(pdf.package, 'unpdf');
    assert.match(pdf.version, /^\d+\.\d+/);
    assert.equal(r.providers.find((p: any) => p.name === 'restructuredtext').builtin, true);
  });

  it('converts a PDF to Markdown with its producer, and reuses the stored artefact while the bytes are unchanged', async () => {
    const first = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/cart.pdf' })).json;
    assert.equal(first.converter, 'pdf');
    assert.match(first.producer, /^unpdf@/);
    assert.match(first.markdown, /total\(\) from src\/cart\.ts/);
    assert.equal(first.reused, false);
    const again = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/cart.pdf', max_chars: 0 })).json;
    assert.equal(again.reused, true);
    assert.equal(again.source_hash, first.source_hash);
    assert.equal(again.markdown, '');
  });

  it('turns HTML headings and code into Markdown, dropping scripts', async () => {
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/retry.html' })).json;
    assert.equal(r.converter, 'html');
    assert.deepEqual(r.headings.map((x: any) => x.text), ['Retries']);
    assert.match(r.markdown, /`backoff`/);
    assert.doesNotMatch(r.markdown, /ghostFunction/);
  });

  it('binds a PDF to the function, file and npm script it names', async () => {
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/cart.pdf', top_k: 50 })).json;
    const by = (text: string) => r.bindings.find((b: any) => b.text === text);
    assert.equal(by('total').status, 'bound');
    assert.deepEqual(by('total').targets.map((t: any) => t.id), [TOTAL]);
    assert.equal(by('src/cart.ts').targets[0].id, 'file:src/cart.ts');
    assert.equal(by('npm test').kind, 'command');
    assert.match(by('npm test').targets[0].detail, /script test: mocha/);
  });

  it('binds a DOCX to the functions it calls by name, and an RST role and shell line too', async () => {
    const docx = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/math.docx', top_k: 50 })).json;
    const ids = docx.bindings.flatMap((b: any) => b.targets.map((t: any) => t.id));
    for (const id of ['function:src/math.ts#mul', 'function:src/math.ts#add', 'file:src/math.ts']) assert.ok(ids.includes(id), `${id} in ${ids}`);
    const rst = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/guide.rst', top_k: 50 })).json;
    assert.equal(rst.bindings.find((b: any) => b.text === 'retry').targets[0].id, 'function:py/retry.py#retry');
    assert.match(rst.bindings.find((b: any) => b.text === 'npm run build').targets[0].detail, /script build/);
  });

  it('binds a code span that calls with arguments to its callee, a package-qualified name under its folder, and skips keywords and builtins', async () => {
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/api.md' })).json;
    const by = Object.fromEntries(r.bindings.map((b: any) => [b.text, b]));
    assert.deepEqual(Object.keys(by).sort(), ['py.retry.backoff', 'retry.jitter_delay'], JSON.stringify(r.bindings));
    assert.deepEqual([by['py.retry.backoff'].status, by['py.retry.backoff'].targets.map((t: any) => t.id)], ['bound', [BACKOFF]]);
    assert.equal(by['retry.jitter_delay'].status, 'missing');
  });

  it('flags a name the code no longer has as missing', async () => {
    const r = (await h.call('document_drift', { agent_id: 'a', path: 'docs/retry.html' })).json;
    const missing = r.findings.filter((f: any) => f.kind === 'missing').map((f: any) => f.text);
    assert.deepEqual(missing, ['jitterDelay']);
    assert.equal(r.counts.stale, 0);
  });

  it('raises drift when a bound function is edited, and not for the untouched ones', async () => {
    await h.call('document_bindings', { agent_id: 'a', path: 'docs/retry.html' });
    assert.equal((await h.call('document_drift', { agent_id: 'a', path: 'docs/retry.html' })).json.counts.stale, 0);
    const f = path.join(ws, 'py/retry.py');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('min(30, 2 ** attempt)', 'min(60, 3 ** attempt)'));
    const r = (await h.call('document_drift', { agent_id: 'a', path: 'docs/retry.html' })).json;
    const stale = r.findings.filter((x: any) => x.kind === 'stale');
    assert.ok(stale.some((x: any) => x.targets.includes(BACKOFF)), JSON.stringify(r.findings));
    assert.ok(stale.some((x: any) => x.targets.includes('file:py/retry.py')));
    // The cart PDF names nothing in retry.py: the scope sweep reports its links clean.
    const all = (await h.call('document_drift', { agent_id: 'a', scope: 'docs' })).json;
    assert.ok(all.documents.some((d: any) => d.path === 'docs/cart.pdf' && d.findings === 0), JSON.stringify(all.documents));
    // Named nothing: every document bound before, in the whole workspace.
    const everywhere = (await h.call('document_drift', { agent_id: 'a' })).json.documents.map((d: any) => d.path);
    for (const d of all.documents) assert.ok(everywhere.includes(d.path), JSON.stringify(everywhere));
  });

  it('starts a new baseline when the document itself is rewritten', async () => {
    write(ws, 'docs/retry.html', '<h1>Retries</h1><p>Failures wait <code>backoff</code> seconds.</p>');
    const r = (await h.call('document_drift', { agent_id: 'a', path: 'docs/retry.html' })).json;
    assert.equal(r.counts.stale, 0);
    assert.equal(r.counts.missing, 0);
  });

  it('refuses a path outside the workspace and a format without converter', async () => {
    assert.equal((await h.call('document_resolve', { agent_id: 'a', path: '../outside.pdf' })).json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    write(ws, 'docs/x.xyz', 'x');
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/x.xyz' })).json;
    assert.equal(r.error.code, 'M1ND_ERR_DOCUMENT_UNSUPPORTED');
    assert.match(r.error.hint, /document_provider_health/);
  });

  it('on a read-only server converts and binds without storing anything, keeps the baseline in memory, and refuses persist', async () => {
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
    try {
      write(ws, 'docs/notes.txt', 'mul() is slow for big b.\n');
      const r = (await ro.call('document_resolve', { agent_id: 'r', path: 'docs/notes.txt' })).json;
      assert.deepEqual([r.converter, r.stored, r.reused], ['text', false, false]);
      const b = (await ro.call('document_bindings', { agent_id: 'r', path: 'docs/notes.txt' })).json;
      assert.equal(b.stored, false);
      assert.match(b.baseline_at, /^\d{4}-/);
      assert.equal(b.bindings[0].targets[0].id, 'function:src/math.ts#mul');
      const refused = (await ro.call('document_bindings', { agent_id: 'r', path: 'docs/notes.txt', persist: true })).json;
      assert.equal(refused.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      // Touching the file changes nothing the document names: the in-memory baseline says so.
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(ws, 'src/math.ts'), later, later);
      assert.equal((await ro.call('document_drift', { agent_id: 'r', path: 'docs/notes.txt' })).json.counts.stale, 0);
    } finally {
      await ro.close();
    }
  });

  it('read verbs never write the store; persist: true stores the baseline, so drift after a restart still compares against it', async () => {
    write(ws, 'docs/add.txt', 'add() sums two numbers.\n');
    write(ws, 'docs/mul.txt', 'mul() multiplies.\n');
    await h.call('document_bindings', { agent_id: 'a', path: 'docs/add.txt' });
    const p = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/mul.txt', persist: true })).json;
    assert.equal(p.stored, true);
    await h.close();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    // Only the persisted document is known after the restart.
    const known = (await h.call('document_drift', { agent_id: 'a', scope: 'docs' })).json.documents.map((d: any) => d.path);
    assert.ok(known.includes('docs/mul.txt') && !known.includes('docs/add.txt'), JSON.stringify(known));
    const later = new Date(Date.now() + 120_000);
    fs.utimesSync(path.join(ws, 'src/math.ts'), later, later);
    // Stored baseline: a touched but unchanged mul is not stale; add, never stored, falls back to file times.
    assert.equal((await h.call('document_drift', { agent_id: 'a', path: 'docs/mul.txt' })).json.counts.stale, 0);
    const add = (await h.call('document_drift', { agent_id: 'a', path: 'docs/add.txt' })).json;
    assert.deepEqual(add.findings.map((f: any) => [f.kind, f.text, f.reason]), [['stale', 'add', 'file modified after the document']]);
  });
});
