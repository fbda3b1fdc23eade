import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { LAYERED_FILES } from './layered-repo.ts';

const MANIFEST = {
  layers: [
    { name: 'app', paths: ['src/app/**'] },
    { name: 'service', paths: ['src/service/**'] },
    { name: 'db', paths: ['src/db/**'] },
    { name: 'lib', paths: ['src/lib'] },
  ],
  layer_order: ['app', 'service', 'db', 'lib'],
};

describe('xray on a layered repository with a layer manifest', function () {
  this.timeout(90000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      ...LAYERED_FILES,
      'm1nd.layers.json': JSON.stringify(MANIFEST, null, 2),
      'test/conn.test.ts': "import { open } from '../src/db/conn.ts';\n\nexport function testOpen(): void {\n  if (!open()) throw new Error('closed');\n}\n",
      'tools/gen.ts': "import { ping } from '../src/lib/ping.ts';\n\nexport function gen(): number {\n  return ping(3);\n}\n",
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('xray_orient finds the planted upward dependency and both cycles, and ranks the store as the erosion candidate', async () => {
    const r = await h.call('xray_orient', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.manifest, 'm1nd.layers.json');
    assert.equal(r.json.conforms, false);
    assert.deepEqual(r.json.layers.map((l: any) => [l.name, l.files]), [['app', 1], ['service', 2], ['db', 2], ['lib', 2]]);
    const upward = r.json.violations.filter((v: any) => v.kind === 'upward');
    assert.deepEqual(upward.map((v: any) => [v.from, v.to]), [['src/db/store.ts', 'src/service/users.ts']]);
    assert.ok(upward[0].via.some((x: any) => x.target === 'function:src/service/users.ts#normalize'), JSON.stringify(upward[0].via));
    const cycles = r.json.cycles.map((c: any) => c.members);
    assert.deepEqual(cycles.sort(), [['src/db/store.ts', 'src/service/users.ts'], ['src/lib/ping.ts', 'src/lib/pong.ts']].sort());
    assert.deepEqual(r.json.cycles.find((c: any) => c.members.includes('src/db/store.ts')).layers, ['db', 'service']);
    assert.equal(r.json.erosion_candidates[0].file, 'src/db/store.ts');
    const { rows, weight } = r.json.matrix;
    assert.ok(weight[rows.indexOf('db')][rows.indexOf('service')] > 0, 'db → service in the matrix');
    assert.ok(weight[rows.indexOf('service')][rows.indexOf('db')] > weight[rows.indexOf('db')][rows.indexOf('service')]);
    assert.equal(weight[rows.indexOf('service')][rows.indexOf('app')], 0);
  });

  it('a manifest given in the call adds a forbidden direction and a missing required path', async () => {
    const r = await h.call('xray_orient', { agent_id: 'a', manifest: { ...MANIFEST, forbid: ['app -> db'], require_exists: ['src/api/**'] } });
    assert.equal(r.json.manifest, 'call');
    assert.deepEqual(r.json.missing_required, ['src/api/**']);
    assert.equal(r.json.violation_counts.forbidden, 0, 'the app reaches the db only through services');
    const strict = await h.call('xray_orient', { agent_id: 'a', manifest: { ...MANIFEST, layer_order: ['app', 'db', 'service', 'lib'] } });
    assert.ok(strict.json.violations.some((v: any) => v.kind === 'upward' && v.from === 'src/service/users.ts' && v.to === 'src/db/store.ts'));
  });

  it('xray_gate blocks a planned import that breaks the manifest, clears a downward one, and cautions on an eroded file', async () => {
    const up = await h.call('xray_gate', { agent_id: 'a', node: 'src/service/orders.ts', planned_imports: ['../app/main.ts'] });
    assert.equal(up.result.isError, undefined, JSON.stringify(up.json));
    assert.equal(up.json.verdict, 'blocked');
    assert.ok(up.json.reasons.some((x: any) => x.source === 'planned' && x.kind === 'upward' && x.import === 'src/app/main.ts'), JSON.stringify(up.json.reasons));
    const down = await h.call('xray_gate', { agent_id: 'a', node: 'src/service/orders.ts', planned_imports: ['../db/conn.ts'] });
    assert.equal(down.json.verdict, 'clear', JSON.stringify(down.json));
    const eroded = await h.call('xray_gate', { agent_id: 'a', node: 'function:src/db/store.ts#save', planned_imports: ['src/db/conn.ts'] });
    assert.equal(eroded.json.file, 'src/db/store.ts');
    assert.equal(eroded.json.verdict, 'caution');
    assert.ok(eroded.json.reasons.some((x: any) => x.source === 'existing' && x.kind === 'upward'));
    assert.ok(eroded.json.reasons.some((x: any) => x.source === 'cycle'));
    const forbidden = await h.call('xray_gate', { agent_id: 'a', node: 'src/app/main.ts', planned_imports: ['src/db/conn.ts'], manifest: { ...MANIFEST, forbid: ['app -> db'] } });
    assert.equal(forbidden.json.verdict, 'blocked');
    assert.match(JSON.stringify(forbidden.json.reasons), /forbids app -> db/);
    const escape = await h.call('xray_gate', { agent_id: 'a', node: 'src/app/main.ts', planned_imports: ['../../../etc/passwd'] });
    assert.equal(escape.result.isError, true);
  });

  it('xray_gate reads a planned import written as code writes it: no extension, a node id, a symbol name', async () => {
    // Every form below names src/app/main.ts, a layer above the service: each must block.
    const forms = ['../app/main', 'function:src/app/main.ts#main', 'main', 'src/app/main'];
    for (const text of forms) {
      const r = await h.call('xray_gate', { agent_id: 'a', node: 'src/service/orders.ts', planned_imports: [text] });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.equal(r.json.verdict, 'blocked', `${text}: ${JSON.stringify(r.json.reasons)}`);
      assert.deepEqual(r.json.reasons.filter((x: any) => x.source === 'planned').map((x: any) => [x.import, x.kind]), [['src/app/main.ts', 'upward']], text);
    }
    const down = await h.call('xray_gate', { agent_id: 'a', node: 'src/service/orders.ts', planned_imports: ['../db/conn'] });
    assert.equal(down.json.verdict, 'clear', JSON.stringify(down.json.reasons));
    const unknown = await h.call('xray_gate', { agent_id: 'a', node: 'src/service/orders.ts', planned_imports: ['./nothing-here'] });
    assert.equal(unknown.json.reasons[0].import, 'src/service/nothing-here');
    assert.match(unknown.json.reasons[0].why, /no file "\.\/nothing-here" in the graph/);
  });

  it('xray_paint classifies files into proof states and stores them as tags; xray_retag bulk-edits tags by selector', async () => {
    const dry = await h.call('xray_paint', { agent_id: 'a' });
    assert.equal(dry.result.isError, undefined, JSON.stringify(dry.json));
    assert.deepEqual(dry.json.files.erosion_candidate, ['src/db/store.ts', 'src/service/users.ts']);
    assert.deepEqual(dry.json.files.overgrowth, ['tools/gen.ts']);
    assert.deepEqual(dry.json.files.bedrock, ['src/db/conn.ts'], 'the only file a test reaches');
    assert.deepEqual(dry.json.files.unproven, ['src/app/main.ts', 'src/lib/ping.ts', 'src/lib/pong.ts', 'src/service/orders.ts']);
    const none = await h.call('xray_retag', { agent_id: 'a', selector: { filter_tags: ['xray:unproven'] }, op: 'add', tags: ['needs-tests'] });
    assert.equal(none.json.matched, 0, 'a dry paint stores nothing');
    const commit = await h.call('xray_paint', { agent_id: 'a', mode: 'commit' });
    assert.equal(commit.json.tagged, 8);
    const plan = await h.call('xray_retag', { agent_id: 'a', selector: { filter_tags: ['xray:unproven'], path_prefix: 'src/lib' }, op: 'add', tags: ['needs-tests'] });
    assert.equal(plan.json.changed, 2);
    assert.deepEqual(plan.json.sample.map((c: any) => c.after), [['needs-tests', 'xray:unproven'], ['needs-tests', 'xray:unproven']]);
    const stale = await h.call('xray_retag', { agent_id: 'a', selector: { filter_tags: ['xray:unproven'] }, op: 'remove', tags: ['xray:unproven'], mode: 'commit', expect_version: 'tags:0:0:0' });
    assert.match(JSON.stringify(stale.json), /STATE_STALE/);
    const done = await h.call('xray_retag', { agent_id: 'a', selector: { filter_tags: ['xray:unproven'], path_prefix: 'src/lib' }, op: 'add', tags: ['needs-tests'], mode: 'commit', expect_version: plan.json.tags_version });
    assert.equal(done.json.changed, 2);
    const check = await h.call('xray_retag', { agent_id: 'a', selector: { filter_tags: ['needs-tests'] }, op: 'remove', tags: ['needs-tests'] });
    assert.equal(check.json.matched, 2);
    const empty = await h.call('xray_retag', { agent_id: 'a', selector: {}, op: 'add', tags: ['x'] });
    assert.equal(empty.result.isError, true);
    const ledger = await h.call('xray_ledger', { agent_id: 'a' });
    assert.deepEqual(ledger.json.entries.map((e: any) => e.verb), ['xray_retag', 'xray_paint']);
  });

  it('without a manifest the xray verbs say how to write one', async () => {
    const bare = writeFixtureRepo(tempDir(), LAYERED_FILES);
    const other = await connect({ workspaceRoot: bare, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() } });
    try {
      await other.call('ingest', { agent_id: 'a', path: bare });
      const r = await other.call('xray_orient', { agent_id: 'a' });
      assert.equal(r.result.isError, true);
      assert.match(JSON.stringify(r.json), /m1nd\.layers\.json/);
    } finally {
      await other.close();
    }
  });

  it('xray_apply plans a header tag, commits it with the plan version, is idempotent, and the ledger records it', async () => {
    const args = { agent_id: 'a', selector: { path_prefix: 'src/service' }, transform: { kind: 'ensure_header_tag', tag: '@layer service' } };
    const dry = await h.call('xray_apply', args);
    assert.equal(dry.result.isError, undefined, JSON.stringify(dry.json));
    assert.equal(dry.json.mode, 'dry_run');
    assert.equal(dry.json.files_changed, 2);
    assert.deepEqual(dry.json.files[0].insertions, [{ line: 1, text: '// @layer service' }]);
    assert.ok(!fs.readFileSync(path.join(h.workspace, 'src/service/users.ts'), 'utf8').includes('@layer'), 'a dry run writes nothing');
    const stale = await h.call('xray_apply', { ...args, mode: 'commit', expect_version: 'not-the-plan' });
    assert.equal(stale.result.isError, true);
    assert.match(JSON.stringify(stale.json), /STATE_STALE/);
    const commit = await h.call('xray_apply', { ...args, mode: 'commit', expect_version: dry.json.plan_version });
    assert.equal(commit.result.isError, undefined, JSON.stringify(commit.json));
    assert.deepEqual(commit.json.written.map((w: any) => w.file_path).sort(), ['src/service/orders.ts', 'src/service/users.ts']);
    assert.ok(fs.readFileSync(path.join(h.workspace, 'src/service/users.ts'), 'utf8').startsWith('// @layer service\nimport { save'));
    assert.equal(commit.json.graph.generation > 0, true);
    const again = await h.call('xray_apply', args);
    assert.equal(again.json.files_changed, 0);
    assert.equal(again.json.files_unchanged, 2);

    const ann = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'src/db', extensions: ['.ts'] }, transform: { kind: 'annotate_symbol', annotation: '@xray reviewed', node_type: 'function' }, mode: 'commit' });
    assert.equal(ann.result.isError, undefined, JSON.stringify(ann.json));
    assert.equal(ann.json.insertions, 4);
    const store = fs.readFileSync(path.join(h.workspace, 'src/db/store.ts'), 'utf8').split('\n');
    assert.equal(store[store.findIndex((l) => l.startsWith('export function save')) - 1], '// @xray reviewed');
    assert.equal(store.filter((l) => l === '// @xray reviewed').length, 3);

    const ledger = await h.call('xray_ledger', { agent_id: 'a', verb: 'xray_apply' });
    assert.equal(ledger.json.total, 2);
    assert.ok(ledger.json.entries[0].seq > ledger.json.entries[1].seq, 'newest first');
    assert.match(ledger.json.entries[0].summary, /annotate_symbol/);
    assert.deepEqual(ledger.json.entries[1].files.sort(), ['src/service/orders.ts', 'src/service/users.ts']);
    const all = await h.call('xray_ledger', { agent_id: 'a', limit: 3 });
    assert.equal(all.json.total, 4);
    assert.equal(all.json.shown, 3);
  });

  it('a read-only server plans an xray_apply but refuses its commit', async () => {
    const ro = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1', M1ND_CACHE_DIR: tempDir() } });
    try {
      const args = { agent_id: 'a', selector: { path_prefix: 'src/lib' }, transform: { kind: 'ensure_header_tag', tag: '@layer lib' } };
      const dry = await ro.call('xray_apply', args);
      assert.equal(dry.result.isError, undefined, JSON.stringify(dry.json));
      assert.equal(dry.json.files_changed, 2);
      const commit = await ro.call('xray_apply', { ...args, mode: 'commit' });
      assert.equal(commit.result.isError, true);
      assert.match(JSON.stringify(commit.json), /READ_ONLY/);
      assert.ok(!fs.readFileSync(path.join(h.workspace, 'src/lib/ping.ts'), 'utf8').includes('@layer'));
    } finally {
      await ro.close();
    }
  });
});

describe('xray_apply annotate_symbol above decorators and attributes', function () {
  this.timeout(90000);
  let h: Harness;
  const PY = [
    'import pytest',
    '',
    '',
    'class Box:',
    '    @property',
    '    def size(self):',
    '        return 1',
    '',
    '    def plain(self):',
    '        return (',
    '            2',
    '        )',
    '',
    '',
    '@pytest.mark.parametrize(',
    '    "n", [1, 2]',
    ')',
    '@pytest.mark.slow',
    'def test_n(n):',
    '    assert n',
    '',
  ].join('\n');
  const RS = ['pub struct B;', '', 'impl B {', '    /// Makes one.', '    #[inline]', '    #[cfg(not(all(',
    '        loom, test)))]', '    pub fn new() -> Self {', '        B', '    }', '}', ''].join('\n');
  // A byte-order mark and one CRLF line among LF ones (a file edited on two systems).
  const MIXED = '\uFEFFexport const a = 1;\nexport function f(): number {\r\n  return a;\n}\n';
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), { 'pkg/box.py': PY, 'src/lib.rs': RS, 'web/mixed.ts': MIXED });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('puts the comment above a Python decorator (one line or several) and a Rust attribute, never between them and the definition', async () => {
    const py = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'pkg' }, transform: { kind: 'annotate_symbol', annotation: '@xray reviewed', node_type: 'method' }, mode: 'commit' });
    assert.equal(py.result.isError, undefined, JSON.stringify(py.json));
    const fn = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'pkg' }, transform: { kind: 'annotate_symbol', annotation: '@xray reviewed', node_type: 'function' }, mode: 'commit' });
    assert.equal(fn.result.isError, undefined, JSON.stringify(fn.json));
    const lines = fs.readFileSync(path.join(h.workspace, 'pkg/box.py'), 'utf8').split('\n');
    const after = (text: string) => lines[lines.indexOf(text) - 1];
    assert.equal(after('    @property'), '    # @xray reviewed', lines.join('\n'));
    assert.equal(after('    def size(self):'), '    @property');
    assert.equal(after('    def plain(self):'), '    # @xray reviewed');
    assert.equal(after('@pytest.mark.parametrize('), '# @xray reviewed');
    assert.equal(after('def test_n(n):'), '@pytest.mark.slow');
    assert.equal(lines.filter((l) => l.includes('@xray reviewed')).length, 3);
    const rs = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'src' }, transform: { kind: 'annotate_symbol', annotation: '@xray reviewed', node_type: 'method' } });
    assert.deepEqual(rs.json.files[0].insertions, [{ line: 5, text: '    // @xray reviewed' }], JSON.stringify(rs.json));
  });

  it('adds only its lines: a byte-order mark stays first and every other line keeps its ending', async () => {
    const header = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'web' }, transform: { kind: 'ensure_header_tag', tag: '@layer web' }, mode: 'commit' });
    assert.equal(header.result.isError, undefined, JSON.stringify(header.json));
    const ann = await h.call('xray_apply', { agent_id: 'a', selector: { path_prefix: 'web' }, transform: { kind: 'annotate_symbol', annotation: '@xray reviewed' }, mode: 'commit' });
    assert.equal(ann.result.isError, undefined, JSON.stringify(ann.json));
    const text = fs.readFileSync(path.join(h.workspace, 'web/mixed.ts'), 'utf8');
    assert.equal(JSON.stringify(text), JSON.stringify('\uFEFF// @layer web\nexport const a = 1;\n// @xray reviewed\r\nexport function f(): number {\r\n  return a;\n}\n'));
  });
});
