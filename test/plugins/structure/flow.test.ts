import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Two handlers reach `record`, which reads the module-level `hits` map, awaits, then writes it back
// with no lock (a lost update on one event loop); `total += 1` and the synchronous `bump` run to
// completion between awaits (no race in JavaScript); `safeRecord` does the read-await-write under a
// lock; `config` is only read.
const FILES: Record<string, string> = {
  'src/stats.ts': `const hits = new Map<string, number>();
const config = { limit: 10 };
let total = 0;
let count = 0;

async function flush(key: string): Promise<void> {}

export async function record(key: string): Promise<void> {
  const seen = hits.get(key) ?? 0;
  await flush(key);
  hits.set(key, seen + 1);
  total += 1;
}

export function bump(): void {
  count++;
}

export async function safeRecord(key: string, mutex: { runExclusive(fn: () => Promise<void>): Promise<void> }): Promise<void> {
  await mutex.runExclusive(async () => {
    const seen = hits.get(key) ?? 0;
    await flush(key);
    hits.set(key, seen + 1);
  });
}

export function limit(): number {
  return config.limit;
}
`,
  'src/handlers.ts': `import { bump, record, safeRecord, limit } from './stats.ts';

export async function getPage(req: any, res: any): Promise<void> {
  bump();
  await record(req.params.page);
  res.send(limit());
}

export async function postForm(req: any, res: any): Promise<void> {
  bump();
  await record(req.body.form);
  res.send('ok');
}

export async function postSafe(req: any, res: any, mutex: any): Promise<void> {
  await safeRecord(req.body.id, mutex);
  res.send(limit());
}
`,
  // Threads (a sync Flask view) race on any unlocked write; coroutines only across an await.
  'app/views.py': `import threading

visits = {}
last_user = None
sessions = {}
lock = threading.Lock()


def count_visit(request):
    page = request.args.get("page")
    visits[page] = visits.get(page, 0) + 1
    return "ok"


async def remember(request):
    global last_user
    last_user = request.args.get("user")
    return "ok"


async def open_session(request):
    sid = request.args.get("sid")
    if sid not in sessions:
        sessions[sid] = await request.json()
    return "ok"


def locked_visit(request):
    with lock:
        visits[request.args.get("page")] = 1
    return "ok"
`,
};

describe('flow_simulate on handlers sharing module state', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('reports the unlocked writes reached from both handlers as turbulence, with their paths, and the locked one as a valve', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    for (const e of ['function:src/handlers.ts#getPage', 'function:src/handlers.ts#postForm', 'function:src/handlers.ts#postSafe']) assert.ok(r.json.entries.includes(e), e);
    const states = r.json.turbulence.map((t: any) => t.state).sort();
    assert.deepEqual(states, ['app/views.py::sessions', 'app/views.py::visits', 'src/stats.ts::hits']);
    const hits = r.json.turbulence.find((t: any) => t.state === 'src/stats.ts::hits');
    assert.deepEqual(hits.writers, ['function:src/stats.ts#record']);
    assert.deepEqual(hits.entries, ['function:src/handlers.ts#getPage', 'function:src/handlers.ts#postForm']);
    assert.equal(hits.score, 1);
    assert.ok(hits.paths.some((p: string[]) => p.join(' > ') === 'function:src/handlers.ts#getPage > function:src/stats.ts#record'));
    assert.ok(r.json.valves.some((v: any) => v.state === 'src/stats.ts::hits' && v.lock_at === 'function:src/stats.ts#safeRecord'));
  });

  it('one entry alone races with itself only when run as more than one particle', async () => {
    const two = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:src/handlers.ts#getPage'] });
    assert.equal(two.json.turbulence_count, 1);
    const one = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:src/handlers.ts#getPage'], num_particles: 1 });
    assert.equal(one.json.turbulence_count, 0);
  });

  it('on one event loop counts only a write an await splits from its read: not a synchronous write, not a write after the await with no read before it', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:src/handlers.ts#getPage', 'function:src/handlers.ts#postForm'] });
    assert.deepEqual(r.json.turbulence.map((t: any) => t.state), ['src/stats.ts::hits']);
  });

  it('in Python counts any unlocked write of a sync function (threads), and in an async def only a read-await-write (check-then-act across an await)', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:app/views.py#count_visit', 'function:app/views.py#remember', 'function:app/views.py#open_session', 'function:app/views.py#locked_visit'] });
    const states = Object.fromEntries(r.json.turbulence.map((t: any) => [t.state, t.writers]));
    assert.deepEqual(Object.keys(states).sort(), ['app/views.py::sessions', 'app/views.py::visits']);
    assert.deepEqual(states['app/views.py::visits'], ['function:app/views.py#count_visit']);
    assert.deepEqual(states['app/views.py::sessions'], ['function:app/views.py#open_session']);
    assert.ok(r.json.valves.some((v: any) => v.state === 'app/views.py::visits' && v.lock_at === 'function:app/views.py#locked_visit'));
  });

  it('read_only_patterns exempt a state name', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a', read_only_patterns: ['visits', 'sessions'] });
    assert.deepEqual(r.json.turbulence.map((t: any) => t.state), ['src/stats.ts::hits']);
  });
});

// Inline Express handlers (top-level statements, not functions): the first does a read-await-write of
// \`visits\` itself; the second reaches \`fill\`, whose check-then-act on \`cache\` spans an await; the
// third only reads.
const INLINE: Record<string, string> = {
  'src/server.js': `const express = require('express');
const app = express();
let visits = 0;
const cache = {};

async function load(key) {
  return key;
}

app.get('/count', async (req, res) => {
  const n = visits;
  await load(req.query.page);
  visits = n + 1;
  res.send(String(n));
});

app.get('/cached', async (req, res) => {
  await fill(req.query.key);
  res.send('ok');
});

app.get('/peek', (req, res) => {
  res.send(String(visits + Object.keys(cache).length + req.query.n));
});

async function fill(key) {
  if (!cache[key]) cache[key] = await load(key);
}

app.listen(3000);
`,
};

describe('flow_simulate from inline handlers (a file\'s top-level statements)', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), INLINE);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('detects the statements reading the request as entries (path:line) and reports what they and the functions they call write across an await', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.entries, ['src/server.js:10', 'src/server.js:17', 'src/server.js:22']);
    const byState = Object.fromEntries(r.json.turbulence.map((t: any) => [t.state, t]));
    assert.deepEqual(Object.keys(byState).sort(), ['src/server.js::cache', 'src/server.js::visits']);
    assert.deepEqual(byState['src/server.js::visits'].writers, ['src/server.js:10']);
    assert.deepEqual(byState['src/server.js::visits'].entries, ['src/server.js:10']);
    assert.deepEqual(byState['src/server.js::cache'].writers, ['function:src/server.js#fill']);
    assert.deepEqual(byState['src/server.js::cache'].paths, [['src/server.js:17', 'function:src/server.js#fill']]);
  });

  it('takes a statement named path:line as an entry, and walks only the calls that statement makes', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['src/server.js:22'] });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.entries, ['src/server.js:22']);
    assert.equal(r.json.turbulence_count, 0);
  });
});
