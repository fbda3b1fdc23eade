import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Two handlers reach `record`, which mutates the module-level `hits` map with no lock; `safeRecord`
// does the same under a lock; `config` is only read.
const FILES: Record<string, string> = {
  'src/stats.ts': `const hits = new Map<string, number>();
const config = { limit: 10 };
let total = 0;

export function record(key: string): void {
  hits.set(key, (hits.get(key) ?? 0) + 1);
  total += 1;
}

export async function safeRecord(key: string, mutex: { runExclusive(fn: () => void): Promise<void> }): Promise<void> {
  await mutex.runExclusive(() => {
    hits.set(key, (hits.get(key) ?? 0) + 1);
  });
}

export function limit(): number {
  return config.limit;
}
`,
  'src/handlers.ts': `import { record, safeRecord, limit } from './stats.ts';

export function getPage(req: any, res: any): void {
  record(req.params.page);
  res.send(limit());
}

export function postForm(req: any, res: any): void {
  record(req.body.form);
  res.send('ok');
}

export async function postSafe(req: any, res: any, mutex: any): Promise<void> {
  await safeRecord(req.body.id, mutex);
  res.send(limit());
}
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
    assert.deepEqual(r.json.entries.sort(), ['function:src/handlers.ts#getPage', 'function:src/handlers.ts#postForm', 'function:src/handlers.ts#postSafe']);
    const states = r.json.turbulence.map((t: any) => t.state).sort();
    assert.deepEqual(states, ['src/stats.ts::hits', 'src/stats.ts::total']);
    const hits = r.json.turbulence.find((t: any) => t.state === 'src/stats.ts::hits');
    assert.deepEqual(hits.writers, ['function:src/stats.ts#record']);
    assert.deepEqual(hits.entries, ['function:src/handlers.ts#getPage', 'function:src/handlers.ts#postForm']);
    assert.equal(hits.score, 1);
    assert.ok(hits.paths.some((p: string[]) => p.join(' > ') === 'function:src/handlers.ts#getPage > function:src/stats.ts#record'));
    assert.ok(r.json.valves.some((v: any) => v.state === 'src/stats.ts::hits' && v.lock_at === 'function:src/stats.ts#safeRecord'));
  });

  it('one entry alone races with itself only when run as more than one particle', async () => {
    const two = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:src/handlers.ts#getPage'] });
    assert.equal(two.json.turbulence_count, 2);
    const one = await h.call('flow_simulate', { agent_id: 'a', entry_nodes: ['function:src/handlers.ts#getPage'], num_particles: 1 });
    assert.equal(one.json.turbulence_count, 0);
  });

  it('read_only_patterns exempt a state name', async () => {
    const r = await h.call('flow_simulate', { agent_id: 'a', read_only_patterns: ['total'] });
    assert.deepEqual(r.json.turbulence.map((t: any) => t.state), ['src/stats.ts::hits']);
  });
});
