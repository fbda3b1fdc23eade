import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/**
 * Enough files that the ingest parses in its parse workers (≥ 48), each language with planted
 * findings: swallowed errors, open() outside with, globals, discarded tasks and intervals, routes
 * without auth, classes building workspace classes (and a non-workspace one, which must not count).
 */
function repo(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    files[`py/mod_${i}.py`] = [
      'import asyncio',
      `from py.store import Store`,
      'count = 0',
      '',
      `def load_${i}(path):`,
      '    try:',
      '        return open(path).read()',
      '    except OSError:',
      '        pass',
      '',
      `def bump_${i}():`,
      '    global count',
      '    count += 1',
      '    asyncio.create_task(work())',
      '',
      `class Service${i}:`,
      '    def __init__(self):',
      '        self.store = Store()',
      '        self.other = Unknown()',
      '',
    ].join('\n');
    files[`src/mod_${i}.ts`] = [
      "import fs from 'node:fs';",
      "import { Store } from './store.ts';",
      'let hits = 0;',
      `export function run${i}(jobs: string[]): void {`,
      '  jobs.forEach(async (job) => {',
      '    await fs.promises.readFile(job);',
      '  });',
      '  try {',
      "    fs.readFileSync('x');",
      '  } catch (error) {',
      '  }',
      '  hits += 1;',
      "  setInterval(() => fs.statSync('x'), 1000);",
      '}',
      `export class Holder${i} {`,
      '  private store = new Store();',
      '  private map = new Map();',
      '}',
      `export function mount${i}(app: any): void {`,
      `  app.post('/admin/${i}', (req: any, res: any) => res.send('ok'));`,
      '}',
      '',
    ].join('\n');
  }
  files['py/store.py'] = 'class Store:\n    def size(self):\n        return 1\n';
  files['src/store.ts'] = 'export class Store {\n  size(): number {\n    return 1;\n  }\n}\n';
  // A byte-order mark: the ingest's tree is of the text without it, so the extension parses the file as read.
  files['py/bom.py'] = '\ufeffdef f(path):\n    try:\n        return open(path)\n    except:\n        pass\n';
  // More candidates than a rule keeps per file (200) before the class names sort them out: 300, 150 of them workspace classes.
  files['big/many.py'] = `from py.store import Store\nclass Many:\n    def run(self):\n${'        self.a = Unknown()\n        self.b = Store()\n'.repeat(150)}`;
  // 260 findings that stand: the rule's cap keeps the first 200.
  files['big/capped.py'] = `from py.store import Store\nclass Capped:\n    def run(self):\n${'        self.s = Store()\n'.repeat(260)}`;
  return files;
}

const BIG = { severity_min: 0, limit_per_pattern: 200, token_budget: 20_000, time_budget_ms: 60_000 };
const CODE_PRESETS = ['error_handling', 'resource_cleanup', 'state_mutation', 'concurrency', 'auth_boundary', 'dependency_injection'];

/** Every code-rule finding under some paths, one scan_all per path and preset (each listing whole within the token budget), in a stable order. */
async function codeFindings(h: Harness, scopes = ['py', 'src']): Promise<any[]> {
  const out: any[] = [];
  for (const scope of scopes) for (const preset of CODE_PRESETS) {
    const r = await h.call('scan_all', { agent_id: 'a', patterns: [preset], scope, ...BIG });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.budget.dropped, 0, `${preset}: the whole listing fits`);
    out.push(...(Object.values(r.json.findings) as any[][]).flat().filter((f) => !f.rule.startsWith('graph.')));
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.lines[0] - b.lines[0] || a.rule.localeCompare(b.rule));
}

describe('scan findings computed by the ingest\'s parse (structure\'s parse extension)', function () {
  this.timeout(240_000);
  let ws: string;
  let h: Harness;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), repo());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { backgroundFacts: false }, graph: { watch: false, typeCheck: false } } } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
    assert.ok(ing.json.parseWorkers > 0, 'the ingest parsed in its workers (the extension ran there)');
  });
  after(() => h?.close());

  it('scan_all right after the ingest reads the ingest\'s findings and starts no facts worker', async () => {
    // health's counts are the process's (other servers of this mocha process parse too): compare before and after.
    const before = (await h.call('health', { agent_id: 'a' })).json.structure;
    const r = await h.call('scan_all', { agent_id: 'a', ...BIG });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.files_total, 65);
    assert.equal(r.json.files_from_ingest, 65);
    assert.equal(r.json.files_parsed, 0);
    assert.equal(r.json.parse_workers, 0, 'no facts worker started');
    const health = (await h.call('health', { agent_id: 'a' })).json.structure;
    assert.equal(health.facts.parsed, before.facts.parsed, 'nothing parsed by the scan');
    assert.equal(health.ingest_findings.files, 65);
    assert.equal(health.ingest_findings.stored, 65);
    assert.equal(health.ingest_findings.failed, 0);
    const found = await codeFindings(h);
    const at = (rule: string) => found.filter((f) => f.rule === rule).length;
    assert.equal(at('py.swallowed_except'), 31);
    assert.equal(at('py.hardwired_dependency'), 30, 'Store() is a workspace class, Unknown() is not');
    assert.equal(at('js.hardwired_dependency'), 30, 'new Store() counts, new Map() does not');
    assert.equal(at('js.route_without_auth'), 30);
    const big = await codeFindings(h, ['big/many.py', 'big/capped.py']);
    assert.equal(big.filter((f) => f.file === 'big/many.py').length, 150, 'the 150 workspace-class calls, uncapped');
    assert.equal(big.filter((f) => f.file === 'big/capped.py').length, 200, 'the cap');
    assert.deepEqual(big.filter((f) => f.file === 'big/capped.py').slice(0, 2).map((f) => f.lines[0]), [4, 5]);
  });

  it('finds exactly what the scan computes on demand (a server with the extension off, same files)', async () => {
    const mine = await codeFindings(h);
    const other = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir(), M1ND_STORE_DIR: join(tempDir(), 'store') }, config: { options: { structure: { backgroundFacts: false, ingestFindings: false }, graph: { watch: false, typeCheck: false } } } });
    try {
      await other.call('ingest', { agent_id: 'b', path: ws });
      const r = await other.call('scan_all', { agent_id: 'b', ...BIG });
      assert.equal(r.json.files_from_ingest, 0);
      assert.equal(r.json.files_parsed, 65);
      assert.ok(mine.length > 300, String(mine.length));
      assert.deepEqual(mine, await codeFindings(other));
      const scopes = ['big/many.py', 'big/capped.py'];
      assert.deepEqual(await codeFindings(h, scopes), await codeFindings(other, scopes));
    } finally {
      await other.close();
    }
  });

  it('refreshes an edited file\'s findings on re-ingest and drops a deleted file\'s', async () => {
    writeFileSync(join(ws, 'py/mod_0.py'), 'def only(path):\n    try:\n        return 1\n    except:\n        pass\n');
    rmSync(join(ws, 'src/mod_1.ts'));
    const ing = await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
    const r = await h.call('scan_all', { agent_id: 'a', ...BIG });
    assert.equal(r.json.files_total, 64);
    assert.equal(r.json.files_from_ingest, 64);
    const found = await codeFindings(h);
    assert.deepEqual(found.filter((f) => f.file === 'py/mod_0.py').map((f) => `${f.rule}:${f.lines[0]}`), ['py.swallowed_except:4']);
    assert.equal(found.filter((f) => f.file === 'src/mod_1.ts').length, 0);
  });
});
