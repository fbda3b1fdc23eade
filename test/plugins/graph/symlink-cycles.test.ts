/**
 * A workspace holding a symlink cycle (`src/sub/loop -> ..`, `src/sub/again -> ../sub`): the walk
 * never follows a symlink, and neither may anything else that lists the workspace (the checker's
 * config search and warm-up, the program fingerprint checked when the stored graph loads), or
 * it walks the cycle's 2^depth paths for ever.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'src/a.ts': "import { b } from './b.ts';\nexport function a(x: number): number {\n  return b(x) + 1;\n}\n",
  'src/b.ts': 'export function b(x: number): number {\n  return x * 2;\n}\n',
};

function workspace(): string {
  const ws = tempDir('m1nd-symlinks-');
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  return ws;
}

function addCycle(ws: string): void {
  fs.mkdirSync(path.join(ws, 'src/sub'), { recursive: true });
  fs.symlinkSync('..', path.join(ws, 'src/sub/loop'));
  fs.symlinkSync('../sub', path.join(ws, 'src/sub/again'));
}

/** Fails the call after `ms` instead of waiting for the test's own timeout. */
const within = (ms: number) => ({ timeout: ms, maxTotalTimeout: ms });

describe('a workspace holding a symlink cycle', function () {
  this.timeout(120000);

  it('is ingested and type-checked: ingest with wait_precise returns, every TS file checked', async () => {
    const ws = workspace();
    addCycle(ws);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const r = await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.' } }, undefined, within(60000));
      const json = JSON.parse((r.content as { text: string }[])[0].text);
      assert.equal(r.isError, undefined, JSON.stringify(json));
      assert.equal(json.files.parsed, 2);
      assert.deepEqual(json.skipped.map((s: { path: string; reason: string }) => `${s.path} ${s.reason}`).sort(), ['src/sub/again symlink', 'src/sub/loop symlink']);
      assert.equal(json.type_checked.precise, 2, JSON.stringify(json.type_checked));
    } finally {
      await h.close();
    }
  });

  it('answers a graph verb after a restart when the cycle appeared after the last ingest', async () => {
    const ws = workspace();
    const first = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    const ingested = await first.call('ingest', { agent_id: 'a', path: '.' });
    assert.equal(ingested.json.type_checked.precise, 2);
    await first.close();
    addCycle(ws);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const r = await h.client.callTool({ name: 'impact', arguments: { agent_id: 'a', node_id: 'function:src/b.ts#b', direction: 'reverse' } }, undefined, within(30000));
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      assert.match((r.content as { text: string }[])[0].text, /src\/a\.ts/, 'a.ts calls b');
    } finally {
      await h.close();
    }
  });
});
