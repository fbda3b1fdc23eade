/**
 * A large write commit (apply_batch of 200 files, an xray_apply commit over 200 files) plans,
 * snapshots, proves and diffs its files a slice at a time: a client's requests are answered while
 * it runs. Before, the plan and the graph snapshot (each file stat'ed, read and hashed, its symbols
 * and edges collected), and after the write the second snapshot and a diff per file, each ran in
 * one piece: 70–80 ms for 200 of m1nd's own files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const FILES = 200;
const FUNCTIONS = 30;

/** `src/d<i % 10>/m<i>.ts`: 30 functions each, calling each other and the previous module's. */
function workspace(): string {
  const ws = tempDir();
  for (let i = 0; i < FILES; i++) {
    const lines = [i > 0 ? `import { f${i - 1}_0 } from '../d${(i - 1) % 10}/m${i - 1}.ts';` : '', ''];
    for (let f = 0; f < FUNCTIONS; f++) {
      const call = f === 0 ? (i > 0 ? `f${i - 1}_0(x)` : 'x') : `f${i}_${f - 1}(x)`;
      lines.push(`export function f${i}_${f}(x: number): number {`, `  const y = ${call} + ${f};`, `  return y * 2;`, '}', '');
    }
    const file = path.join(ws, 'src', `d${i % 10}`, `m${i}.ts`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, lines.join('\n'));
  }
  return ws;
}

describe('a 200-file write commit beside a pinging client', function () {
  this.timeout(180_000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = workspace();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json).slice(0, 300));
    // Warm the write path (first parse of a language compiles its queries) on one file.
    const warm = await h.call('apply_batch', { agent_id: 'a', edits: [{ file_path: 'src/d0/m0.ts', new_content: `${fs.readFileSync(path.join(ws, 'src/d0/m0.ts'), 'utf8')}// warm\n` }] });
    assert.equal(warm.result.isError, undefined, JSON.stringify(warm.json).slice(0, 300));
  });
  after(() => h?.close());

  it('apply_batch writes 200 files without holding the event loop over 50 ms', async () => {
    const edits = Array.from({ length: FILES }, (_, i) => {
      const rel = `src/d${i % 10}/m${i}.ts`;
      return { file_path: rel, new_content: `${fs.readFileSync(path.join(ws, rel), 'utf8')}export const extra${i} = ${i};\n` };
    });
    const { result, held, gc } = await pingDuringGc(h, () => h.call('apply_batch', { agent_id: 'a', edits }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 300));
    assert.equal(result.json.written.length, FILES);
    for (const e of edits.slice(0, 5)) assert.equal(fs.readFileSync(path.join(ws, e.file_path), 'utf8'), e.new_content);
    assert.ok(held.length > 10, `the pings were answered while the batch ran (${describeHeld(held)})`);
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(ownHeld(held, gc)));
  });

  it('an xray_apply commit over 200 files does not hold the event loop over 50 ms', async () => {
    const args = { agent_id: 'a', selector: { path_prefix: 'src' }, transform: { kind: 'ensure_header_tag', tag: 'owned by the test team' } };
    const dry = (await h.call('xray_apply', args)).json;
    assert.equal(dry.files_changed, FILES, JSON.stringify(dry).slice(0, 300));
    const { result, held, gc } = await pingDuringGc(h, () => h.call('xray_apply', { ...args, mode: 'commit', expect_version: dry.plan_version }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 300));
    assert.equal(result.json.written.length, FILES);
    assert.match(fs.readFileSync(path.join(ws, 'src/d3/m13.ts'), 'utf8'), /^\/\/ owned by the test team\n/);
    assert.ok(Math.max(...ownHeld(held, gc)) < 50, describeHeld(ownHeld(held, gc)));
  });
});
