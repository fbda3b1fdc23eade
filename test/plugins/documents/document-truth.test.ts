/**
 * What document_bindings and document_drift claim, checked against what the documents really name
 * (a truth sweep on real repositories' docs): package-qualified names, Markdown link targets, bare
 * file names, commands of outside tools, names only outside links, and staleness in a fresh clone.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { git, write } from '../history/git-fixture.ts';

const PY = {
  'pkg/__init__.py': 'from ._api import get\nfrom ._models import Client, Headers\n',
  'pkg/__version__.py': '__version__ = "1.0"\n',
  'pkg/_api.py': 'def get(url):\n    return url\n\n\ndef request(method, url, uds=None):\n    return (method, url, uds)\n',
  'pkg/_models.py': 'class Headers:\n    def get(self, key):\n        return key\n\n\nclass Client:\n    def get(self, url):\n        return url\n\n    def send(self, request):\n        return request\n',
  'scripts/test': '#!/bin/sh\npytest\n',
  'examples/split.js': 'export function split(s) {\n  return s.split("-");\n}\n',
};

describe('documents: what the bindings and drift answers claim is what the document names', function () {
  this.timeout(120000);
  let h: Harness;
  let ws: string;
  afterEach(() => h?.close());

  it('binds package-qualified names, link targets, bare file names and workspace scripts; outside tools and outside links name nothing', async () => {
    ws = tempDir();
    write(ws, {
      ...PY,
      'docs/guide.md': [
        '# Guide',
        '',
        'Call `pkg.get` for one request, or `pkg.Client.send`.',
        '',
        'Example file: [split.js](../examples/split.js)',
        '',
        'Update `__version__.py` when releasing.',
        '',
        '```shell',
        '$ scripts/test',
        '$ pip install pkg',
        '$ git clone https://github.com/x/pkg',
        '$ node split.js -s',
        '$ npm install pkg',
        '$ pnpm add -D pkg',
        '$ npm run nosuch',
        '```',
        '',
        'Elapsed: [total_seconds()](https://docs.python.org/3/library/datetime.html), as in the VCR.py project on Node.js.',
        '',
        'Configure `.js` files.',
        '',
      ].join('\n'),
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/guide.md', top_k: 50 })).json;
    const by = (text: string) => r.bindings.find((b: any) => b.text === text);
    const ids = (text: string) => by(text)?.targets.map((t: any) => t.id);
    // `pkg.get` is the package's function, not every method named get under the package.
    assert.deepEqual(ids('pkg.get'), ['function:pkg/_api.py#get'], JSON.stringify(by('pkg.get')));
    assert.equal(by('pkg.get').status, 'bound');
    assert.deepEqual(ids('pkg.Client.send'), ['method:pkg/_models.py#Client.send']);
    // A link names its target; its text (the file's name) is not a second, missing path.
    assert.deepEqual(ids('../examples/split.js'), ['file:examples/split.js'], JSON.stringify(r.bindings));
    // A bare file name binds to the one workspace file of that name.
    assert.deepEqual(ids('__version__.py'), ['file:pkg/__version__.py']);
    // A script without an extension, run by its path.
    assert.deepEqual(ids('scripts/test'), ['file:scripts/test']);
    assert.deepEqual(ids('node split.js -s'), ['file:examples/split.js']);
    // Outside tools, names inside a link to an outside page, product names and a bare extension name nothing here.
    // A package.json script that is not there is missing all the same.
    const missing = r.bindings.filter((b: any) => b.status === 'missing').map((b: any) => b.text);
    assert.deepEqual(missing, ['npm run nosuch'], JSON.stringify(r.bindings));
    assert.equal(r.missing, 1);
    assert.equal(r.total, r.bound + r.ambiguous + r.missing);
  });

  it('a name the code has but the graph does not index (a parameter, an import, a variable) is not missing; one under the own package is', async () => {
    ws = tempDir();
    write(ws, {
      ...PY,
      'pkg/_client.py': 'import anyio\n\n\ndef fetch(url, follow_redirects=False):\n    response = anyio.run(url)\n    return response.text\n',
      'docs/params.md': '# Params\n\nPass `uds` or `follow_redirects` to `fetch`; read `response.text`; see `anyio.run`; call `client.send` or `headers.get`.\n\nGone: `pkg.Mounts`, `nowhere_at_all`, `pkg.fetch`.\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/params.md', top_k: 50 })).json;
    const status = Object.fromEntries(r.bindings.map((b: any) => [b.text, b.status]));
    assert.deepEqual(status, { fetch: 'bound', 'pkg.fetch': 'bound', 'pkg.Mounts': 'missing', nowhere_at_all: 'missing', 'client.send': 'bound', 'headers.get': 'bound' }, JSON.stringify(r.bindings));
    // An instance named after its class names the class's member.
    assert.deepEqual(r.bindings.find((b: any) => b.text === 'client.send').targets.map((t: any) => t.id), ['method:pkg/_models.py#Client.send']);
    assert.deepEqual(r.bindings.find((b: any) => b.text === 'headers.get').targets.map((t: any) => t.id), ['method:pkg/_models.py#Headers.get']);
    assert.deepEqual(r.unindexed, ['uds', 'follow_redirects', 'response.text', 'anyio.run']);
    const drift = (await h.call('document_drift', { agent_id: 'a', path: 'docs/params.md' })).json;
    assert.deepEqual(drift.findings.map((f: any) => [f.kind, f.text]), [['missing', 'pkg.Mounts'], ['missing', 'nowhere_at_all']], JSON.stringify(drift.findings));
  });

  it('a prose name bound before that names nothing now is gone', async () => {
    ws = tempDir();
    write(ws, { ...PY, 'pkg/conf.py': 'def parse_config(path):\n    return path\n', 'docs/conf.md': '# Config\n\nThe parse_config helper reads it.\n' });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const before = (await h.call('document_drift', { agent_id: 'a', path: 'docs/conf.md' })).json;
    assert.deepEqual(before.findings, []);
    fs.writeFileSync(path.join(ws, 'pkg/conf.py'), 'def read_config(path):\n    return path\n');
    await h.call('ingest', { agent_id: 'a', path: ws });
    const after = (await h.call('document_drift', { agent_id: 'a', path: 'docs/conf.md' })).json;
    assert.deepEqual(after.findings.map((f: any) => [f.kind, f.text, f.targets]), [['gone', 'parse_config', ['function:pkg/conf.py#parse_config']]], JSON.stringify(after.findings));
  });

  it('a bare name means the code\'s symbol: not a function local to another, a .d.ts copy or a test\'s, when the code has one', async () => {
    ws = tempDir();
    write(ws, {
      'lib/command.js': 'export class Command {\n  option() {\n    return this;\n  }\n}\n',
      'typings/index.d.ts': 'export declare class Command {\n  option(): this;\n}\n',
      'pkg/transport.py': 'class BaseTransport:\n    def handle_request(self, request):\n        raise NotImplementedError\n\n\ndef make():\n    def endpoint(request):\n        return request\n    return endpoint\n',
      'tests/test_transport.py': 'class FakeTransport:\n    def handle_request(self, request):\n        return request\n\n\ndef test_app():\n    def endpoint(request):\n        return request\n    return endpoint\n',
      'docs/api.md': '# API\n\n`Command`, its `option`, the `handle_request` of a transport and an `endpoint`.\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/api.md', top_k: 50 })).json;
    const ids = Object.fromEntries(r.bindings.map((b: any) => [b.text, [b.status, ...b.targets.map((t: any) => t.id)]]));
    assert.deepEqual(ids, {
      Command: ['bound', 'class:lib/command.js#Command'],
      option: ['bound', 'method:lib/command.js#Command.option'],
      handle_request: ['bound', 'method:pkg/transport.py#BaseTransport.handle_request'],
    }, JSON.stringify(r.bindings));
    // Only local functions have that name: the code has the word, the graph no symbol a document can mean.
    assert.deepEqual(r.unindexed, ['endpoint']);
  });

  it('a converted document naming a bare file name is linked again when a file of that name comes', async () => {
    ws = tempDir();
    write(ws, { ...PY, 'docs/notes.rst': 'Notes\n=====\n\nSettings live in ``extras.py``.\n' });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const first = (await h.call('document_bindings', { agent_id: 'a', path: 'docs/notes.rst', persist: true })).json;
    assert.equal(first.bindings[0].status, 'missing', JSON.stringify(first.bindings));
    const resolved = async () => (await h.call('document_provider_health', { agent_id: 'a' })).json.graph.resolved;
    const before = await resolved();
    write(ws, { 'pkg/extras.py': 'TIMEOUT = 5\n' });
    await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    assert.equal((await resolved()) - before, 1, 'the document naming extras.py is resolved again');
    const impact = (await h.call('impact', { agent_id: 'a', node_id: 'file:pkg/extras.py', direction: 'reverse', top_k: 50 })).json;
    assert.ok(impact.direct.some((d: any) => d.id === 'section:docs/notes.rst#Notes'), JSON.stringify(impact.direct));
  });

  it('an MDX page names the files it imports and the MDX pages it links', async () => {
    ws = tempDir();
    write(ws, {
      'site/src/components/Playground.tsx': 'export function Playground(): null {\n  return null;\n}\n',
      'site/docs/_types.mdx': 'Types.\n',
      'site/docs/guide.mdx': '# Guide\n',
      'site/docs/example.js': 'export const singleColumn = `select 1`;\n',
      'site/docs/page.mdx': "import { Playground } from '../src/components/Playground'\nimport Types from './_types.mdx'\n\n# Page\n\n<Types />\n\nimport {\n  singleColumn\n} from './example'\n\nSee the [guide](./guide.mdx).\n",
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('document_bindings', { agent_id: 'a', path: 'site/docs/page.mdx', top_k: 50 })).json;
    const ids = Object.fromEntries(r.bindings.map((b: any) => [b.text, [b.status, ...b.targets.map((t: any) => t.id)]]));
    assert.deepEqual(ids, {
      '../src/components/Playground': ['bound', 'file:site/src/components/Playground.tsx'],
      '_types.mdx': ['bound', 'file:site/docs/_types.mdx'],
      'guide.mdx': ['bound', 'file:site/docs/guide.mdx'],
      example: ['bound', 'file:site/docs/example.js'],
    }, JSON.stringify(r.bindings));
  });

  it('document_resolve lists the headings, not the comments of its code blocks', async () => {
    ws = tempDir();
    write(ws, { 'docs/h.md': '# Title\n\n```python\n# Instantiate a client.\nx = 1\n```\n\n~~~sh\n## not a heading\n~~~\n\n## Next\n' });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const r = (await h.call('document_resolve', { agent_id: 'a', path: 'docs/h.md', max_chars: 0 })).json;
    assert.deepEqual(r.headings, [{ line: 1, level: 1, text: 'Title' }, { line: 12, level: 2, text: 'Next' }]);
  });

  it('in a fresh clone (every file checked out at once) a target is stale only when git shows its lines changed since the document', async () => {
    ws = tempDir();
    write(ws, { ...PY, 'docs/old.md': '# Old\n\nSee `Headers` and `Client`.\n', 'docs/new.md': '# New\n\nSee `Client` and `pkg.get`.\n', 'docs/api.md': '# API\n\nSee `pkg.request`.\n' });
    git(ws, ['init', '-q']);
    git(ws, ['add', '-A']);
    git(ws, ['commit', '-qm', 'code and docs'], '2024-01-01T12:00:00Z');
    // Headers' lines change; Client's file changes below it, Client itself not.
    const models = path.join(ws, 'pkg/_models.py');
    fs.writeFileSync(models, fs.readFileSync(models, 'utf8').replace('        return key\n', '        return key.lower()\n') + '\n\nclass Extra:\n    pass\n');
    git(ws, ['commit', '-qam', 'models changed'], '2024-03-01T12:00:00Z');
    fs.appendFileSync(path.join(ws, 'docs/new.md'), '\nRewritten after the models.\n');
    fs.appendFileSync(path.join(ws, 'docs/api.md'), '\nRewritten after the models.\n');
    git(ws, ['commit', '-qam', 'docs'], '2024-04-01T12:00:00Z');
    // Not committed: request's body edited in the working tree.
    const api = path.join(ws, 'pkg/_api.py');
    fs.writeFileSync(api, fs.readFileSync(api, 'utf8').replace('return (method, url, uds)', 'return (method.upper(), url, uds)'));
    // As a checkout writes them: the code after the documents (later modification times).
    const later = new Date('2024-06-01T00:00:00Z');
    const earlier = new Date('2024-05-01T00:00:00Z');
    for (const f of ['docs/old.md', 'docs/new.md', 'docs/api.md']) fs.utimesSync(path.join(ws, f), earlier, earlier);
    for (const f of Object.keys(PY)) fs.utimesSync(path.join(ws, f), later, later);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const fresh = (await h.call('document_drift', { agent_id: 'a', path: 'docs/new.md' })).json;
    assert.deepEqual(fresh.findings, [], JSON.stringify(fresh.findings));
    const old = (await h.call('document_drift', { agent_id: 'a', path: 'docs/old.md' })).json;
    assert.deepEqual(old.findings.map((f: any) => [f.kind, f.text, f.targets]), [['stale', 'Headers', ['class:pkg/_models.py#Headers']]], JSON.stringify(old.findings));
    assert.match(old.findings[0].reason, /lines changed since the document's last commit \(2024-01-01\)/);
    // The first look recorded the baseline: a second call says the same, not that the document now matches.
    const again = (await h.call('document_drift', { agent_id: 'a', path: 'docs/old.md' })).json;
    assert.deepEqual(again.findings, old.findings);
    // Bound first (the baseline recorded by document_bindings), then checked: the same finding as a first look.
    await h.call('document_bindings', { agent_id: 'a', path: 'docs/api.md' });
    const edited = (await h.call('document_drift', { agent_id: 'a', path: 'docs/api.md' })).json;
    assert.deepEqual(edited.findings.map((f: any) => [f.kind, f.text, f.targets]), [['stale', 'pkg.request', ['function:pkg/_api.py#request']]], JSON.stringify(edited.findings));
  });
});
