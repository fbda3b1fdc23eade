/**
 * Documents naming what the graph does not parse (a shell script, a YAML file, a Makefile), naming a
 * symbol through its file (`src/a.ts#f`, `src/a.ts:f`), naming a folder instead of a document, and
 * an HTML page's `<title>`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { makeDocx } from './document-fixtures.ts';
import type { GraphService } from '../../../plugins/graph/api.ts';

function write(ws: string, rel: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
  fs.writeFileSync(path.join(ws, rel), data);
}

describe('documents: workspace files outside the graph, path-qualified symbols, folders and HTML titles', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    write(ws, 'scripts/deploy.sh', '#!/bin/sh\necho deploy\n');
    write(ws, 'config/app.yaml', 'port: 8080\n');
    write(ws, 'Makefile', 'lint:\n\techo lint\n');
    write(ws, 'src/other.ts', 'export function helper(): number {\n  return 2;\n}\n');
    write(ws, 'src/more.ts', 'export function helper(): number {\n  return 3;\n}\n');
    write(
      ws,
      'docs/ops.md',
      '# Ops\n\nDeploy with `./scripts/deploy.sh`; settings in `config/app.yaml` and targets in `Makefile`.\n\n```sh\n$ ./scripts/deploy.sh --prod\n```\n\nThe old `scripts/gone.sh` was removed.\n',
    );
    write(ws, 'docs/ops.docx', await makeDocx('Ops', ['Run ./scripts/deploy.sh to deploy; the port is in config/app.yaml.']));
    write(ws, 'docs/qualified.md', '# Helpers\n\n- `helper`\n- `src/other.ts#helper`\n- `src/more.ts:helper()`\n- `src/other.ts#nosuch`\n\nIn prose: src/more.ts#helper.\n');
    write(ws, 'docs/titled.html', '<html><head><title>Guide</title></head><body><h1>Guide</h1><p>Body text.</p></body></html>');
    write(ws, 'docs/untitled-h1.html', '<html><head><title>Ops &amp; Release</title></head><body><h2>Steps</h2><p>Body text.</p></body></html>');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports a bound document deleted since as gone when named by path (as under a scope), and refuses a path and node_id naming different files', async () => {
    write(ws, 'docs/temp.md', '# Temp\n\nSee `src/other.ts`.\n');
    assert.equal((await h.call('document_bindings', { agent_id: 'a', path: 'docs/temp.md' })).json.bindings[0].status, 'bound');
    fs.rmSync(path.join(ws, 'docs/temp.md'));
    const named = (await h.call('document_drift', { agent_id: 'a', path: 'docs/temp.md' })).json;
    assert.deepEqual(named.findings.map((f: any) => [f.kind, f.document]), [['gone', 'docs/temp.md']], JSON.stringify(named));
    const scoped = (await h.call('document_drift', { agent_id: 'a', scope: 'docs' })).json;
    assert.ok(scoped.findings.some((f: any) => f.kind === 'gone' && f.document === 'docs/temp.md'), JSON.stringify(scoped.findings));
    // Never bound: still an error naming the path.
    const never = await h.call('document_drift', { agent_id: 'a', path: 'docs/never.md' });
    assert.equal(never.result.isError, true);
    const both = await h.call('document_resolve', { agent_id: 'a', path: 'docs/ops.md', node_id: 'file:docs/qualified.md' });
    assert.equal(both.result.isError, true);
    assert.match(both.json.error.message, /name different documents/);
    assert.match(both.json.error.hint, /"path":"docs\/ops.md"/);
    assert.equal((await h.call('document_resolve', { agent_id: 'a', path: 'docs/ops.md', node_id: 'file:docs/ops.md' })).json.path, 'docs/ops.md');
  });

  it('binds a script, YAML file or Makefile that exists in the workspace but not in the graph, and reports it gone once deleted', async () => {
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/ops.md', top_k: 50 })).json;
    const by = (text: string) => r.bindings.find((b: any) => b.text === text);
    for (const [text, file] of [['scripts/deploy.sh', 'scripts/deploy.sh'], ['config/app.yaml', 'config/app.yaml'], ['Makefile', 'Makefile'], ['./scripts/deploy.sh --prod', 'scripts/deploy.sh']]) {
      const b = by(text);
      assert.ok(b, `${text} in ${JSON.stringify(r.bindings)}`);
      assert.equal(b.status, 'bound', JSON.stringify(b));
      assert.equal(b.targets[0].path, file);
    }
    // The shell script is no graph file: its target says so.
    assert.equal(by('scripts/deploy.sh').targets[0].in_graph, false);
    assert.equal(by('scripts/gone.sh').status, 'missing');
    const docx = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/ops.docx', top_k: 50 })).json;
    const dep = docx.bindings.find((b: any) => b.text === 'scripts/deploy.sh');
    assert.equal(dep?.status, 'bound', JSON.stringify(docx.bindings));
    assert.equal(docx.bindings.find((b: any) => b.text === 'config/app.yaml')?.status, 'bound');

    const clean = (await h.call('document_drift', { agent_id: 'a', path: 'docs/ops.md' })).json;
    assert.deepEqual(clean.findings.map((f: any) => [f.kind, f.text]), [['missing', 'scripts/gone.sh']]);
    write(ws, 'scripts/deploy.sh', '#!/bin/sh\necho deploy --everywhere\n');
    fs.rmSync(path.join(ws, 'config/app.yaml'));
    const after = (await h.call('document_drift', { agent_id: 'a', path: 'docs/ops.md' })).json;
    const kinds = after.findings.map((f: any) => [f.kind, f.text]);
    assert.ok(kinds.some(([k, t]: string[]) => k === 'gone' && t === 'config/app.yaml'), JSON.stringify(after.findings));
    assert.ok(kinds.some(([k, t]: string[]) => k === 'stale' && t === 'scripts/deploy.sh'), JSON.stringify(after.findings));
  });

  it('binds a symbol qualified by its file (path#name, path:name) to that file only', async () => {
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/qualified.md', top_k: 50 })).json;
    const by = (text: string) => r.bindings.find((b: any) => b.text === text);
    assert.equal(by('helper').status, 'ambiguous');
    assert.deepEqual([by('src/other.ts#helper').status, by('src/other.ts#helper').targets.map((t: any) => t.id)], ['bound', ['function:src/other.ts#helper']]);
    assert.deepEqual([by('src/more.ts:helper').status, by('src/more.ts:helper').targets.map((t: any) => t.id)], ['bound', ['function:src/more.ts#helper']]);
    assert.equal(by('src/other.ts#nosuch').status, 'missing');
    assert.equal(by('src/more.ts#helper').evidence, 'path');
    const drift = (await h.call('document_drift', { agent_id: 'a', path: 'docs/qualified.md' })).json;
    const ambiguous = drift.findings.find((f: any) => f.kind === 'ambiguous');
    assert.match(ambiguous.reason, /src\/a\.ts#name/);
  });

  it('answers a folder with "not a document" and a hint naming documents inside it', async () => {
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs' })).json;
    assert.equal(r.error.code, 'M1ND_ERR_PATH_NOT_FOUND', JSON.stringify(r));
    assert.match(r.error.message, /folder, not a document/);
    assert.match(r.error.hint, /docs\/ops\.md/);
    assert.match(r.error.hint, /document_drift/);
    const b = (await h.call('document_bindings', { agent_id: 'a', path: 'docs' })).json;
    assert.equal(b.error.code, 'M1ND_ERR_PATH_NOT_FOUND');
  });

  it('uses an HTML title as the heading only when the body has no h1, never as body text', async () => {
    const titled = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/titled.html' })).json;
    assert.equal(titled.markdown.trim(), '# Guide\n\nBody text.');
    const untitled = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/untitled-h1.html' })).json;
    assert.deepEqual(untitled.headings.map((x: any) => [x.level, x.text]), [[1, 'Ops & Release'], [2, 'Steps']]);
  });

  it('converts again an HTML artefact stored by the previous converter revision (title in the body), keeping its baseline', async () => {
    const first = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/titled.html', persist: true })).json;
    assert.equal(first.stored, true);
    // As the first HTML revision stored it: no revision, the title duplicated into the body.
    const memory = (h.host.current.services.get('graph')!.impl as GraphService).engine.memory;
    const row = memory.get<Record<string, unknown>>('documents', 'docs/titled.html')!.value;
    delete row.revision;
    memory.set('documents', 'docs/titled.html', { ...row, markdown: 'Guide\n\n# Guide\n\nBody text.' });
    await h.close();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/titled.html' })).json;
    assert.equal(r.reused, false);
    assert.equal(r.markdown.trim(), '# Guide\n\nBody text.');
    const b = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/titled.html' })).json;
    assert.equal(b.baseline_at, first.baseline_at);
  });

  it('refuses a symlink leading out of the root with a readable message', async () => {
    const outside = path.join(tempDir(), 'secret.txt');
    fs.writeFileSync(outside, 'x');
    fs.symlinkSync(outside, path.join(ws, 'docs/link.txt'));
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/link.txt' })).json;
    assert.equal(r.error.code, 'M1ND_ERR_PATH_ESCAPE');
    assert.match(r.error.message, /goes through a symlink that leads outside the workspace root /);
  });
});
