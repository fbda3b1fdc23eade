import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Planted cases; the comments name the line each finding must report.
const FILES: Record<string, string> = {
  'src/jobs.ts': `import fs from 'node:fs';

let processed = 0;

export function runAll(jobs: string[]): void {
  jobs.forEach(async (job) => {
    await fs.promises.readFile(job);
  });
  try {
    fs.readFileSync('x');
  } catch (error) {
    // ignore
  }
  processed += jobs.length;
  setInterval(() => fs.statSync('x'), 1000);
}

export function safe(): number {
  try {
    return fs.readFileSync('y').length;
  } catch (error) {
    throw new Error('read failed', { cause: error });
  }
}
`,
  // lines: 6 async forEach, 11-13 swallowed catch, 14 module-state write, 15 discarded interval; 21 rethrows (no finding)
  'src/routes.ts': `import { requireAuth } from './auth.ts';

export function mount(app: any): void {
  app.post('/admin/users', (req: any, res: any) => res.send('ok'));
  app.post('/admin/roles', requireAuth, (req: any, res: any) => res.send('ok'));
  // app.post('/in/a/comment', handler) is not code
}
`,
  'src/auth.ts': `export function requireAuth(req: any, res: any, next: () => void): void {
  next();
}
`,
  'src/service.ts': `import { Store } from './store-class.ts';
export class Service {
  private store = new Store();
  run(): number {
    return this.store.size();
  }
}
`,
  'src/store-class.ts': `export class Store {
  size(): number {
    return 1;
  }
}
`,
  'tests/auth.test.ts': `import { requireAuth } from '../src/auth.ts';

export function testRequireAuth(): boolean {
  let called = false;
  requireAuth({}, {}, () => (called = true));
  return called;
}
`,
  'py/store.py': `import asyncio

CACHE = {}
count = 0


def load(path):
    f = open(path)
    return f.read()


def load_safely(path):
    with open(path) as f:
        return f.read()


def bump():
    global count
    count += 1


def fire(coro):
    asyncio.create_task(coro)


def parse(text):
    try:
        return int(text)
    except ValueError:
        pass


def strict(text):
    try:
        return int(text)
    except ValueError:
        raise
`,
  // lines: 8 open outside with (not 13), 18 global, 23 discarded task, 29-30 swallowed except (not 36-37)
  'src/tasks.ts': `export async function save(name: string): Promise<void> {
  await Promise.resolve(name);
}

export function fireAndForget(name: string): void {
  save(name);
  void save(name);
  save(name).catch(() => undefined);
}

export async function inOrder(name: string): Promise<void> {
  await save(name);
  fetch('/ping');
  return save(name);
}

save('top-level');
`,
  // lines: 6 floating save (not 7 void, 8 caught), 13 floating fetch; 17 is top-level script code (not flagged)
  'py/tasks.py': `async def refresh(key):
    return key


def refresh_sync(key):
    return key


async def handler(key):
    refresh(key)
    await refresh(key)
    refresh_sync(key)
`,
  // lines: 10 coroutine never awaited (not 11 awaited, 12 a plain function)
  'py/client.py': `class Transport:
    pass


class ClientError(Exception):
    pass


class Client:
    def __init__(self, transport=None):
        self.fixed = Transport()
        self.transport = transport or Transport()

    def copy(self):
        return Client()

    def fail(self):
        raise ClientError()
`,
  // lines: 11 a held, hard-wired collaborator (not 12 injectable, 15 a value returned, 18 an error raised)
  // A guide documents Store; release notes naming requireAuth document nothing.
  'docs/guide.md': '# Guide\n\nThe `Store` class keeps sizes.\n',
  'CHANGELOG.md': '# Changelog\n\n- Fixed `requireAuth` for empty headers.\n',
  'src/holder.ts': `import { Store } from './store-class.ts';
export class Holder {
  private store: Store;
  constructor(store?: Store) {
    this.store = new Store();
    this.store = store ?? new Store();
  }
  copy(): Store {
    return new Store();
  }
}
`,
  // lines: 5 a held, hard-wired collaborator (not 6 injectable, 9 a value returned)
  'py/errors.py': `import json


def optional():
    try:
        import yaml
    except ImportError:
        pass


def hide(text):
    try:
        return json.loads(text)
    except Exception:
        pass


def explained(text):
    try:
        return json.loads(text)
    except Exception:
        # a malformed cache entry is rebuilt by the caller
        pass
`,
  // lines: 7 a named, expected error ignored (low), 14 every error hidden (high), 21 the same, explained (medium)
};

const lines = (findings: any[], rule: string) => findings.filter((f) => f.rule === rule).map((f) => `${f.file}:${f.lines[0]}`).sort();

describe('scan and scan_all over planted TypeScript and Python cases', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('error_handling finds the swallowed catch and except at their lines, not the rethrowing ones', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'error_handling' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(lines(r.json.findings, 'js.swallowed_catch'), ['src/jobs.ts:11']);
    assert.deepEqual(lines(r.json.findings, 'py.swallowed_except'), ['py/errors.py:14', 'py/errors.py:21', 'py/errors.py:7', 'py/store.py:29']);
    const severity = (at: string) => r.json.findings.find((x: any) => `${x.file}:${x.lines[0]}` === at)?.severity;
    assert.ok(severity('py/errors.py:14') > severity('py/errors.py:21') && severity('py/errors.py:21') > severity('py/errors.py:7'), 'except Exception: pass above the same explained, above except ImportError: pass');
    assert.equal(severity('py/store.py:29'), severity('py/errors.py:7'), 'except ValueError: pass is a named, expected error too');
    const f = r.json.findings.find((x: any) => x.rule === 'js.swallowed_catch');
    assert.deepEqual(f.lines, [11, 13]);
    assert.match(f.code, /^catch \(error\) \{/);
    assert.equal(f.node, 'function:src/jobs.ts#runAll', 'graph validation places it in its function');
  });

  it('resource_cleanup, state_mutation and concurrency find their planted cases in both languages', async () => {
    const r = await h.call('scan_all', { agent_id: 'a', patterns: ['resource_cleanup', 'state_mutation', 'concurrency'], severity_min: 0 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const all = Object.values(r.json.findings).flat() as any[];
    assert.deepEqual(lines(all, 'py.open_without_with'), ['py/store.py:8']);
    assert.deepEqual(lines(all, 'js.interval_discarded'), ['src/jobs.ts:15']);
    assert.deepEqual(lines(all, 'py.global_write'), ['py/store.py:18']);
    assert.deepEqual(lines(all, 'js.module_state_write'), ['src/jobs.ts:14']);
    assert.deepEqual(lines(all, 'js.async_foreach'), ['src/jobs.ts:6']);
    assert.deepEqual(lines(all, 'py.task_discarded'), ['py/store.py:23']);
    assert.equal(r.json.counts.concurrency, 5);
  });

  it('concurrency finds promises left floating and coroutines never awaited, not those awaited, voided, caught or returned', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'concurrency', severity_min: 0 });
    assert.deepEqual(lines(r.json.findings, 'js.floating_promise'), ['src/tasks.ts:13', 'src/tasks.ts:6']);
    assert.deepEqual(lines(r.json.findings, 'py.coroutine_not_awaited'), ['py/tasks.py:10']);
    const f = r.json.findings.find((x: any) => x.rule === 'js.floating_promise' && x.lines[0] === 6);
    assert.equal(f.code, 'save(name)');
    assert.equal(f.node, 'function:src/tasks.ts#fireAndForget');
  });

  it('auth_boundary flags the route without auth middleware and not the guarded one or the comment', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'auth_boundary' });
    assert.deepEqual(lines(r.json.findings, 'js.route_without_auth'), ['src/routes.ts:4']);
  });

  it('dependency_injection finds the class building a workspace class, and test_coverage the exported code no test reaches', async () => {
    const di = await h.call('scan', { agent_id: 'a', pattern: 'dependency_injection', severity_min: 0 });
    assert.deepEqual(lines(di.json.findings, 'js.hardwired_dependency'), ['src/holder.ts:5', 'src/service.ts:3']);
    assert.deepEqual(lines(di.json.findings, 'py.hardwired_dependency'), ['py/client.py:11'], 'not the injectable default, the returned copy or the raised error');
    const tc = await h.call('scan', { agent_id: 'a', pattern: 'test_coverage', severity_min: 0, limit: 200 });
    const untested = tc.json.findings.map((f: any) => f.node);
    assert.ok(untested.includes('function:src/jobs.ts#runAll'), JSON.stringify(untested));
    assert.ok(!untested.includes('function:src/auth.ts#requireAuth'), 'a test file calls it');
    assert.ok(!untested.some((n: string) => n.includes('tests/')), 'tests are not asked to be tested');
  });

  it('api_surface flags an exported symbol other files use with no doc comment and no guide naming it, not one a guide documents, and release notes document nothing', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'api_surface', severity_min: 0, limit: 200 });
    const flagged = r.json.findings.map((f: any) => f.node);
    assert.ok(flagged.includes('function:src/auth.ts#requireAuth'), JSON.stringify(flagged));
    assert.ok(!flagged.includes('class:src/store-class.ts#Store'), 'docs/guide.md documents Store');
  });

  it('a custom keyword pattern matches identifiers in code, not in comments or strings', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'custom', keywords: ['readFileSync'], severity_min: 0 });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.findings.map((f: any) => `${f.file}:${f.lines[0]}`).sort(), ['src/jobs.ts:10', 'src/jobs.ts:20']);
  });

  it('a custom tree-sitter query reports its @hit node, and a broken query is refused with a hint', async () => {
    const r = await h.call('scan', { agent_id: 'a', pattern: 'custom', language: 'python', query: '(global_statement) @hit', severity_min: 0 });
    assert.deepEqual(r.json.findings.map((f: any) => `${f.file}:${f.lines[0]}`), ['py/store.py:18']);
    const bad = await h.call('scan', { agent_id: 'a', pattern: 'custom', language: 'python', query: '(no_such_node' });
    assert.equal(bad.result.isError, true);
    assert.match(JSON.stringify(bad.json), /does not compile/);
  });

  it('a second scan_all parses nothing (the ingest\'s findings or the per-file cache), and an unknown pattern names the presets', async () => {
    await h.call('scan_all', { agent_id: 'a' });
    const again = await h.call('scan_all', { agent_id: 'a' });
    assert.equal(again.json.files_from_cache + again.json.files_from_ingest, again.json.files_total);
    assert.equal(again.json.files_parsed, 0);
    const bad = await h.call('scan', { agent_id: 'a', pattern: 'nonsense' });
    assert.equal(bad.result.isError, true);
    assert.match(JSON.stringify(bad.json), /error_handling/);
  });
});
