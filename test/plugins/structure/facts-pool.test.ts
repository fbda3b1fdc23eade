import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { pythonModule } from './python-module.ts';

/** 60 Python modules, each with a swallowed exception at line 5 and one of two copy-pasted functions. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) {
    files[`pkg/mod${String(i).padStart(2, '0')}.py`] = pythonModule(i);
  }
  return files;
}

describe('scans and twins over many files parse in worker threads', function () {
  this.timeout(180000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), manyFiles());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { backgroundFacts: false, ingestFindings: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('a cold scan_all parses in the worker pool and finds every planted case at its line; the same rule as the in-process scans', async () => {
    const r = await h.call('scan_all', { agent_id: 'a', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.ok(r.json.parse_workers >= 1, `parse_workers ${r.json.parse_workers}`);
    assert.equal(r.json.files_scanned, 60);
    const found = r.json.findings.error_handling.filter((f: any) => f.rule === 'py.swallowed_except' || /except/.test(f.code));
    assert.equal(found.length, 60, JSON.stringify(r.json.findings.error_handling.slice(0, 2)));
    assert.deepEqual([...new Set(found.map((f: any) => `${f.rule} ${f.lines.join('-')}`))], ['py.swallowed_except 4-5']);
    assert.equal(new Set(found.map((f: any) => f.file)).size, 60);
  });

  it('twins after the scan reads the shapes the workers computed, and pairs the copy-pasted functions', async () => {
    const r = await h.call('twins', { agent_id: 'a', top_k: 500, token_budget: 20000 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.compared.files, 60);
    assert.equal(r.json.compared.parse_workers, 0, 'every file came from the facts cache');
    assert.ok(r.json.total >= 59, `${r.json.total} pairs`);
    assert.ok(r.json.pairs.every((p: any) => p.a.id.includes('#merge_') === p.b.id.includes('#merge_')), 'merge pairs with merge, load with load');
  });
});

describe('facts workers after a cold twins', function () {
  this.timeout(180000);

  it('a cold twins sends the workers no class names, and the scan after it still reads them (the hardwired collaborator in every module)', async () => {
    const files = manyFiles();
    for (let i = 0; i < 60; i++) files[`pkg/mod${String(i).padStart(2, '0')}.py`] += `\n\nclass Store${i}:\n    def __init__(self):\n        self.db = Database()\n`;
    files['pkg/database.py'] = 'class Database:\n    """The workspace class every store builds."""\n\n    def get(self, key):\n        return key\n';
    const ws = writeFixtureRepo(tempDir(), files);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { backgroundFacts: false, ingestFindings: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const twins = await h.call('twins', { agent_id: 'a' });
      assert.equal(twins.result.isError, undefined, JSON.stringify(twins.json));
      assert.ok(twins.json.compared.files_sketched >= 48 && twins.json.compared.parse_workers >= 1, JSON.stringify(twins.json.compared));
      const di = await h.call('scan', { agent_id: 'a', pattern: 'dependency_injection', severity_min: 0, limit: 200, token_budget: 20000 });
      assert.equal(di.result.isError, undefined, JSON.stringify(di.json));
      assert.ok(di.json.parse_workers >= 1, `parse_workers ${di.json.parse_workers}`);
      const hits = di.json.findings.filter((f: any) => f.rule === 'py.hardwired_dependency');
      assert.equal(hits.length, 60, JSON.stringify(di.json.findings.slice(0, 2)));
      assert.deepEqual([...new Set(hits.map((f: any) => `${f.code.trim()} ${f.lines.join('-')}`))], ['Database() 22-22']);
    } finally {
      await h.close();
    }
  });
});
