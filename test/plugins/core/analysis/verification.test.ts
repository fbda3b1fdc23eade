import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

describe('cross_verify compares the graph with the disk', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    // No watcher: edits stay invisible to the graph until ingest, as after edits made while no server ran.
    h = await ingestedFixture({ watch: false });
  });
  after(() => h.close());

  it('finds nothing stale right after ingest', async () => {
    const { json } = await h.call('cross_verify', { agent_id: 'v' });
    assert.equal(json.checked_files, 12);
    assert.equal(json.stale_count, 0);
    assert.equal(json.verdict, 'graph matches disk');
    assert.equal(json.compared_files, 12, 'every file compared by hash');
    assert.deepEqual(json.checks, ['existence', 'loc', 'hash', 'evidence_freshness']);
    // A scope naming nothing is refused, as every verb's scope is (plugins/graph/path-scope.ts).
    const none = (await h.call('cross_verify', { agent_id: 'v', scope: 'no/such/dir' })).json;
    assert.equal(none.error?.code, 'M1ND_ERR_PATH_NOT_FOUND', JSON.stringify(none).slice(0, 300));
    fs.mkdirSync(path.join(h.workspace, 'empty-dir'));
    const empty = (await h.call('cross_verify', { agent_id: 'v', scope: 'empty-dir' })).json;
    assert.deepEqual([empty.checked_files, empty.verdict], [0, 'nothing to verify: the graph holds no files here']);
  });

  it('flags an edited file by hash and line count, a deleted one by existence, and names the fix', async () => {
    fs.appendFileSync(path.join(h.workspace, 'src/c.ts'), '\nexport function e(): number {\n  return 5;\n}\n');
    fs.rmSync(path.join(h.workspace, 'src/d.ts'));
    const { json } = await h.call('cross_verify', { agent_id: 'v', scope: 'src' });
    assert.equal(json.checked_files, 11);
    assert.deepEqual(json.stale, [
      { path: 'src/c.ts', issues: ['hash_changed', 'loc 4→8'] },
      { path: 'src/d.ts', issues: ['missing_on_disk'] },
    ]);
    assert.match(json.verdict, /2 file\(s\) differ .*"incremental":true/);
    const only = (await h.call('cross_verify', { agent_id: 'v', check: ['existence'] })).json;
    assert.deepEqual(only.stale, [{ path: 'src/d.ts', issues: ['missing_on_disk'] }]);
  });

  it('flags learn feedback whose node moved after the file changed (evidence freshness)', async () => {
    await h.call('learn', { agent_id: 'v', query: 'handle', feedback: 'correct', node_ids: ['function:src/handlers.ts#handleList'], scope: 'team' });
    const file = path.join(h.workspace, 'src/handlers.ts');
    fs.writeFileSync(file, `// a new first line\n${fs.readFileSync(file, 'utf8')}`);
    await h.call('ingest', { agent_id: 'v', path: '.', incremental: true });
    const { json } = await h.call('cross_verify', { agent_id: 'v', check: ['evidence_freshness'] });
    assert.deepEqual(json.evidence.stale_feedback, [{ id: 'function:src/handlers.ts#handleList', status: 'moved', lines: [19, 21] }]);
    assert.equal(json.stale_count, 0, 'the graph itself is current again');
  });

  it('says it could not verify when the stored rows cannot be read, instead of "graph matches disk"', async () => {
    const h2 = await ingestedFixture({ watch: false });
    try {
      // Another process broke the store under the server: the files table is gone.
      const db = new Database(path.join(h2.workspace, '.m1nd', 'm1nd.db'));
      db.exec('ALTER TABLE files RENAME TO files_moved_away');
      db.close();
      const { json } = await h2.call('cross_verify', { agent_id: 'v', check: ['hash', 'loc'] });
      assert.equal(json.compared_files, 0);
      assert.equal(json.stale_count, 0);
      assert.match(json.verdict, /^could not verify hashes or line counts \(store rows unreadable: .*files/);
      assert.match(json.store, /store rows unreadable/);
      fs.rmSync(path.join(h2.workspace, 'src/d.ts'));
      const gone = (await h2.call('cross_verify', { agent_id: 'v' })).json;
      assert.match(gone.verdict, /^could not verify hashes or line counts .*; 1 file\(s\) missing on disk/, 'existence is still checked');
    } finally {
      await h2.close();
    }
  });

  it('refuses dotfile options, which the graph never covers', async () => {
    const { json } = await h.call('cross_verify', { agent_id: 'v', include_dotfiles: true });
    assert.equal(json.error.code, 'M1ND_ERR_GRAPH_UNSUPPORTED_PARAM');
  });
});

describe('drift since the session start and since a checkpoint', function () {
  this.timeout(60000);
  it('reports files and symbols changed since the session began, and the weights learned since', async () => {
    const h = await ingestedFixture();
    try {
      const clean = (await h.call('drift', { agent_id: 'd' })).json;
      assert.equal(clean.summary, 'no structural drift');
      assert.equal(clean.baseline.kind, 'session_start');
      fs.appendFileSync(path.join(h.workspace, 'src/b.ts'), '\nexport function b2(): number {\n  return 2;\n}\n');
      await h.call('ingest', { agent_id: 'd', path: '.', incremental: true });
      await h.call('learn', { agent_id: 'd', query: 'chain', feedback: 'correct', node_ids: ['function:src/b.ts#b', 'function:src/c.ts#c'], scope: 'team' });
      const { json } = await h.call('drift', { agent_id: 'd', since: 'last_session' });
      assert.deepEqual(json.structure.files_changed, [
        { path: 'src/b.ts', loc: [6, 10], symbols_added: ['function:src/b.ts#b2'], symbols_removed: [], symbols_moved: 0, edges: [3, 4] },
      ]);
      assert.deepEqual(json.structure.relations, { contains: [json.structure.relations.contains[0], json.structure.relations.contains[0] + 1] });
      assert.deepEqual(json.weights.learned_nodes.map((n: { id: string }) => n.id).sort(), ['function:src/b.ts#b', 'function:src/c.ts#c']);
      assert.deepEqual(json.weights.learned_edges, [{ source: 'function:src/b.ts#b', target: 'function:src/c.ts#c', factor: [1, 1.2] }]);
      assert.equal(json.weights.feedback_events, 1);
      const noWeights = (await h.call('drift', { agent_id: 'd', include_weight_drift: false })).json;
      assert.equal(noWeights.weights, undefined);
    } finally {
      await h.close();
    }
  });

  it('compares with a named checkpoint symbol by symbol, and names the checkpoints it knows', async () => {
    const h = await ingestedFixture();
    try {
      await h.call('persist', { agent_id: 'd', action: 'checkpoint', path: 'before' });
      fs.writeFileSync(path.join(h.workspace, 'src/d.ts'), 'export function dd(): number {\n  return 5;\n}\n');
      fs.rmSync(path.join(h.workspace, 'src/render.ts'));
      fs.writeFileSync(path.join(h.workspace, 'src/extra.ts'), 'export const x = 1;\n');
      await h.call('ingest', { agent_id: 'd', path: '.', incremental: true });
      const { json } = await h.call('drift', { agent_id: 'd', since: 'before' });
      assert.equal(json.baseline.kind, 'checkpoint');
      assert.deepEqual(json.structure.files_added, ['src/extra.ts']);
      assert.deepEqual(json.structure.files_removed, ['src/render.ts']);
      const d = json.structure.files_changed.find((f: { path: string }) => f.path === 'src/d.ts');
      assert.deepEqual(d.symbols_added, ['function:src/d.ts#dd']);
      assert.deepEqual(d.symbols_removed, ['function:src/d.ts#d']);
      const missing = await h.call('drift', { agent_id: 'd', since: 'nope' });
      assert.equal(missing.json.error.code, 'M1ND_ERR_STATE_NOT_FOUND');
      assert.match(missing.json.error.hint, /before/);
    } finally {
      await h.close();
    }
  });

  it('diffs learned weights against the values a checkpoint recorded, not against defaults', async () => {
    const h = await ingestedFixture();
    try {
      const learn = (feedback: string, nodes: string[]) => h.call('learn', { agent_id: 'd', query: 'chain', feedback, node_ids: nodes, scope: 'team' });
      await learn('correct', ['function:src/a.ts#a', 'function:src/b.ts#b']);
      await learn('correct', ['function:src/b.ts#b', 'function:src/c.ts#c']);
      await h.call('persist', { agent_id: 'd', action: 'checkpoint', path: 'mid' });
      const still = (await h.call('drift', { agent_id: 'd', since: 'mid' })).json;
      assert.deepEqual(still.weights.learned_nodes, [], 'feedback given before the checkpoint is not drift');
      assert.deepEqual(still.weights.learned_edges, []);
      assert.equal(still.weights.feedback_events, 0);
      await learn('correct', ['function:src/b.ts#b', 'function:src/c.ts#c']);
      await learn('wrong', ['function:src/d.ts#d']);
      const { json } = await h.call('drift', { agent_id: 'd', since: 'mid' });
      const bias = Object.fromEntries(json.weights.learned_nodes.map((n: { id: string; bias: number[] }) => [n.id, n.bias]));
      assert.deepEqual(bias, {
        'function:src/b.ts#b': [0.2, 0.3],
        'function:src/c.ts#c': [0.1, 0.2],
        'function:src/d.ts#d': [0, -0.1],
      }, 'before is what the checkpoint held: b had two confirmations, c one, d none; a was not touched since');
      assert.deepEqual(json.weights.learned_edges, [{ source: 'function:src/b.ts#b', target: 'function:src/c.ts#c', factor: [1.2, 1.44] }], 'a -> b was learned before the checkpoint only');
      assert.equal(json.weights.feedback_events, 2);
    } finally {
      await h.close();
    }
  });
});
