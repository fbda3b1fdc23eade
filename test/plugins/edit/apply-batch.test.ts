import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { FIXTURE_FILES, writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/m1nd.js');
const read = (ws: string, f: string) => fs.readFileSync(path.join(ws, f), 'utf8');
const FILES = ['src/math.ts', 'src/cart.ts', 'py/retry.py', 'go/server.go'];

/** Workspace files (store excluded) with their text, to compare whole states. */
function workspaceState(ws: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(ws, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    const rel = path.relative(ws, p);
    if (e.isFile() && !rel.startsWith('.m1nd')) out[rel] = fs.readFileSync(p, 'utf8');
  }
  return out;
}

const edits = () => [...FILES.map((f) => ({ file_path: f, new_content: `${FIXTURE_FILES[f]}// batch edit\n` })), { file_path: 'src/brand/new.ts', new_content: 'export const n = 1;\n' }];

describe('apply_batch', function () {
  this.timeout(90000);
  let h: Harness | undefined;
  afterEach(async () => {
    delete process.env.M1ND_TEST_BATCH_FAIL_AFTER_RENAMES;
    await h?.close();
    h = undefined;
  });

  it('writes every file and re-ingests them once, reporting each file and the graph delta', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const { result, json } = await h.call('apply_batch', { agent_id: 'a', edits: edits() });
    assert.equal(result.isError, undefined, JSON.stringify(json));
    for (const f of FILES) assert.equal(read(ws, f), `${FIXTURE_FILES[f]}// batch edit\n`);
    assert.equal(read(ws, 'src/brand/new.ts'), 'export const n = 1;\n');
    assert.deepEqual(json.written.map((w: { file_path: string; created: boolean }) => [w.file_path, w.created]), [...FILES.map((f) => [f, false]), ['src/brand/new.ts', true]]);
    assert.deepEqual(json.graph.symbols.changed, [], 'a trailing comment changes no symbol');
    assert.equal(fs.readdirSync(path.join(ws, '.m1nd', 'edit-journal')).length, 0, 'the journal is cleared after a commit');
  });

  it('writes nothing when one path or one expected_hash is bad (all validated first)', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const before = workspaceState(ws);
    const escape = await h.call('apply_batch', { agent_id: 'a', edits: [...edits(), { file_path: '../escape.ts', new_content: 'x' }] });
    assert.equal(escape.json.error.code, 'M1ND_ERR_PATH_ESCAPE');
    const stale = await h.call('apply_batch', { agent_id: 'a', edits: [...edits().slice(0, 2), { file_path: 'py/retry.py', new_content: 'x', expected_hash: '0'.repeat(40) }] });
    assert.equal(stale.json.error.code, 'M1ND_ERR_EDIT_STALE_BASE');
    assert.deepEqual(workspaceState(ws), before);
  });

  it('restores every original when a rename fails mid-batch', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const before = workspaceState(ws);
    process.env.M1ND_TEST_BATCH_FAIL_AFTER_RENAMES = '2';
    const r = await h.call('apply_batch', { agent_id: 'a', edits: edits() });
    assert.equal(r.json.error.code, 'M1ND_ERR_EDIT_WRITE_FAILED');
    assert.match(r.json.error.message, /wrote nothing/);
    assert.deepEqual(workspaceState(ws), before, 'renamed files rolled back, temps and backups removed, new file not created');
  });

  it('refuses a path under a file before writing anything, atomic or not', async () => {
    const ws = writeFixtureRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const before = workspaceState(ws);
    for (const atomic of [true, false]) {
      const r = await h.call('apply_batch', { agent_id: 'a', atomic, edits: [{ file_path: 'src/math.ts', new_content: 'export {};\n' }, { file_path: 'src/cart.ts/inner.ts', new_content: 'x' }] });
      assert.equal(r.json.error.code, 'M1ND_ERR_PATH_NOT_FOUND');
      assert.match(r.json.error.message, /a parent of it is a file/);
    }
    assert.deepEqual(workspaceState(ws), before);
    const loose = await h.call('apply_batch', { agent_id: 'a', atomic: false, reingest: false, edits: [{ file_path: 'src/math.ts', new_content: 'export {};\n' }] });
    assert.equal(loose.json.atomic, false);
    assert.equal(read(ws, 'src/math.ts'), 'export {};\n');
  });

  it('recovers a batch whose server was killed between renames: at the next start no file is mixed and health says it rolled back', async () => {
    const ws = writeFixtureRepo(tempDir());
    const before = workspaceState(ws);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--workspace', ws],
      env: { PATH: process.env.PATH ?? '', M1ND_TOOL_TIER: 'full', M1ND_TEST_BATCH_CRASH_AFTER_RENAMES: '2' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'crash-test', version: '0.0.0' });
    await client.connect(transport);
    await assert.rejects(client.callTool({ name: 'apply_batch', arguments: { agent_id: 'a', edits: edits(), reingest: false } }));
    await client.close().catch(() => {});
    // The kill left a mixed state: the first two files renamed, the rest not, and the journal.
    assert.equal(read(ws, FILES[0]), `${FIXTURE_FILES[FILES[0]]}// batch edit\n`);
    assert.equal(read(ws, FILES[2]), FIXTURE_FILES[FILES[2]]);
    assert.equal(fs.readdirSync(path.join(ws, '.m1nd', 'edit-journal')).length, 1);

    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    assert.deepEqual(workspaceState(ws), before, 'every file is back to its original; no temp, backup or new file left');
    const health = (await h.call('health', { agent_id: 'a' })).json;
    assert.equal(health.edit.recovered_batches.length, 1);
    assert.equal(health.edit.recovered_batches[0].outcome, 'rolled_back');
    assert.deepEqual(health.edit.recovered_batches[0].files.sort(), [...FILES, 'src/brand/new.ts'].sort());
  });
});
