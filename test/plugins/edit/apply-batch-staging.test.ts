/**
 * An atomic batch writes and fsyncs its temp files off the main thread (the loop turns meanwhile:
 * 40 files' fsyncs held it ~60 ms in one piece), and, since other calls run in those turns, checks
 * in the turn of its renames that no target changed since the batch was planned.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

const FILES = 60;

function workspace(): string {
  const ws = tempDir();
  fs.mkdirSync(path.join(ws, 'src'));
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(ws, 'src', `m${i}.ts`), `export const v${i} = ${i};\n`);
  return ws;
}

const edits = () => Array.from({ length: FILES }, (_, i) => ({ file_path: `src/m${i}.ts`, new_content: `export const v${i} = ${i + 1000};\n` }));

/** Calls `onTemp` in the first event-loop turn in which src/ holds a batch's temp file. */
function watchForTemps(ws: string, onTemp: () => void): () => boolean {
  let seen = false;
  let running = true;
  const look = () => {
    if (!running) return;
    if (!seen && fs.readdirSync(path.join(ws, 'src')).some((n) => n.startsWith('.m1nd-tmp-'))) {
      seen = true;
      onTemp();
    }
    setImmediate(look);
  };
  setImmediate(look);
  return () => {
    running = false;
    return seen;
  };
}

describe('apply_batch staging its files', function () {
  this.timeout(90_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('gives the event loop turns while its temp files are written and synced, then writes every file', async () => {
    const ws = workspace();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
    const stop = watchForTemps(ws, () => undefined);
    const { result, json } = await h.call('apply_batch', { agent_id: 'a', edits: edits() });
    assert.equal(stop(), true, 'a turn of the event loop ran while the temp files existed (before, all were written, synced and renamed in one)');
    assert.equal(result.isError, undefined, JSON.stringify(json));
    for (let i = 0; i < FILES; i++) assert.equal(fs.readFileSync(path.join(ws, 'src', `m${i}.ts`), 'utf8'), `export const v${i} = ${i + 1000};\n`);
    assert.deepEqual(fs.readdirSync(path.join(ws, 'src')).filter((n) => n.startsWith('.m1nd-tmp-')), []);
  });

  it('writes nothing when another writer changes a target while the temps are written, and says which file to re-read', async () => {
    const ws = workspace();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
    const other = path.join(ws, 'src', `m${FILES - 1}.ts`);
    const stop = watchForTemps(ws, () => fs.writeFileSync(other, 'export const changedElsewhere = 1;\n'));
    const { json } = await h.call('apply_batch', { agent_id: 'a', edits: edits() });
    assert.equal(stop(), true);
    assert.equal(json.error?.code, 'M1ND_ERR_EDIT_STALE_BASE', JSON.stringify(json));
    assert.match(json.error.message, new RegExp(`src/m${FILES - 1}\\.ts" changed while the batch was being written`));
    assert.match(json.error.hint, /^re-read it with \w+\(.*src\/m59\.ts/);
    for (let i = 0; i < FILES - 1; i++) assert.equal(fs.readFileSync(path.join(ws, 'src', `m${i}.ts`), 'utf8'), `export const v${i} = ${i};\n`, 'no file of the batch was written');
    assert.equal(fs.readFileSync(other, 'utf8'), 'export const changedElsewhere = 1;\n', 'the other writer\'s content stays');
    assert.deepEqual(fs.readdirSync(path.join(ws, 'src')).filter((n) => n.startsWith('.m1nd-tmp-')), [], 'no temp file left behind');
  });
});
