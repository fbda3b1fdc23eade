import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../helpers/mcp.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';
import { effectOf, minimalArguments } from '../../core/index.ts';

/** Every file of the workspace and its store, hashed (SQLite's shared-memory index aside: readers touch it). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!e.name.endsWith('-shm')) out.set(path.relative(dir, p), crypto.createHash('sha1').update(fs.readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

describe('read-only mode over an ingested workspace', function () {
  this.timeout(60000);

  it('calls every registered verb and leaves the workspace and the store byte-for-byte unchanged', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'w', path: '.' });
    await writer.call('persist', { agent_id: 'w', action: 'checkpoint', path: 'base' });
    const trail = (await writer.call('trail_save', { agent_id: 'ro', label: 'cart', visited_nodes: ['function:src/cart.ts#total'] })).json;
    const lock = (await writer.call('lock_create', { agent_id: 'ro', scope: 'node', root_nodes: ['function:src/math.ts#add'] })).json;
    await writer.close();
    const h = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1', M1ND_TOOL_TIER: 'full' } });
    try {
      // The stored graph loads in the background; health waits for it. Opening the store creates
      // SQLite's (empty) -wal file, as any reader does: the snapshot starts from the serving state.
      await h.call('health', { agent_id: 'ro' });
      const before = snapshot(ws);
      const refused: string[] = [];
      const served: string[] = [];
      const carried: Record<string, unknown> = { trail_id: trail.trail_id, lock_id: lock.lock_id, route_index: 1 };
      for (const verb of h.host.current.records()) {
        const args: Record<string, unknown> = { ...minimalArguments(verb.input), agent_id: 'ro' };
        // Real ids, so graph verbs get past lookup and do their work.
        for (const key of ['node_id', 'source', 'center', 'target', 'changed_node', 'target_node']) if (key in (verb.input.properties ?? {})) args[key] = 'function:src/cart.ts#total';
        if ('file_path' in (verb.input.properties ?? {})) args.file_path = 'src/cart.ts';
        if ('query' in (verb.input.properties ?? {})) args.query = 'cart total';
        if ('node_ids' in (verb.input.properties ?? {})) args.node_ids = ['function:src/math.ts#add'];
        // Perspective verbs drive the perspective perspective_start opened (registered first).
        for (const [k, v] of Object.entries(carried)) if (k in (verb.input.properties ?? {}) && (k in args || k === 'route_index')) args[k] = v;
        const { json } = await h.call(verb.name, args);
        if (verb.name === 'perspective_start' && json.perspective_id) {
          Object.assign(carried, { perspective_id: json.perspective_id, perspective_id_a: json.perspective_id, perspective_id_b: json.perspective_id, route_set_version: json.route_set_version });
        }
        const effect = effectOf(verb, args);
        if (effect === 'write' || effect === 'destructive') {
          assert.equal(json?.error?.code, 'M1ND_ERR_GATE_READ_ONLY', `${verb.name} (${effect}) must be refused`);
          refused.push(verb.name);
        } else {
          assert.notEqual(json?.error?.code, 'M1ND_ERR_GATE_READ_ONLY', verb.name);
          served.push(verb.name);
        }
      }
      assert.ok(refused.includes('ingest') && refused.includes('learn') && refused.includes('lock_create'), refused.join(','));
      assert.ok(served.includes('seek') && served.includes('perspective_start') && served.includes('warmup'), served.join(','));
      const after = snapshot(ws);
      assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'no file created or removed');
      for (const [file, hash] of before) assert.equal(after.get(file), hash, `${file} changed`);
    } finally {
      await h.close();
    }
  });
});

describe('read-only mode on a workspace nobody ingested', function () {
  it('creates no store, and graph verbs say how to get a graph', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1' } });
    try {
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.graph.loaded, false);
      const seek = (await h.call('seek', { agent_id: 'a', query: 'cart' })).json;
      assert.equal(seek.error.code, 'M1ND_ERR_GRAPH_EMPTY');
      assert.match(seek.error.hint, /writable/);
      assert.equal((await h.call('persist', { agent_id: 'a', action: 'status' })).json.error.code, 'M1ND_ERR_ENGINE_STORE_CLOSED');
      assert.equal(fs.existsSync(path.join(ws, '.m1nd')), false, 'no store folder was created');
    } finally {
      await h.close();
    }
  });
});
