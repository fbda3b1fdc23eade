import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const MODULES = 1200;

/** Python modules in packages of 40, each with a class of 30 methods and 30 functions (a stored extraction worth reading). */
function writeRepo(root: string): void {
  for (let i = 0; i < MODULES; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 40)}`);
    fs.mkdirSync(dir, { recursive: true });
    const lines = [`class Base${i}:`, `    """Base number ${i}."""`];
    for (let m = 0; m < 30; m++) lines.push(`    def method_${m}(self, x):`, `        return self.method_${(m + 1) % 30}(x - 1) if x else ${m}`, '');
    for (let f = 0; f < 30; f++) lines.push(`def func_${i}_${f}(a, b):`, `    return Base${i}().method_${f}(a) * b + func_${i}_${(f + 1) % 30}(b, a) if a else b`, '');
    fs.writeFileSync(path.join(dir, `mod_${i}.py`), lines.join('\n'));
  }
}

describe('differential against a checkpoint and the event loop', function () {
  this.timeout(300_000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-diff-checkpoint-loop-');
    writeRepo(ws);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, parseWorkers: 2 } } } });
    await h.call('ingest', { agent_id: 'loop', path: ws });
    const cp = await h.call('persist', { agent_id: 'loop', action: 'checkpoint', path: 'before' });
    assert.equal(cp.result.isError, undefined, JSON.stringify(cp.json).slice(0, 400));
  });
  after(async () => {
    await h?.close();
  });

  // Reading a checkpoint parses each of its files' stored extraction: the code before the slicing read
  // 500 files between two yields (90–400 ms; 1200 files here held ~100 ms). Paced, what is left is a
  // parse of one file's extraction and the comparison's slices (under 20 ms alone).
  it('answers pings while it reads a checkpoint of 1200 files and compares it with the live graph: no stretch of its own over 50 ms', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('differential', { agent_id: 'loop', snapshot_a: 'checkpoint:before', snapshot_b: 'current' }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 400));
    assert.equal(result.json.files.modified.length, 0, 'nothing changed since the checkpoint');
    assert.equal(result.json.nodes.added.length + result.json.nodes.removed.length, 0, JSON.stringify(result.json.nodes).slice(0, 400));
    const own = ownHeld(held, gc).sort((a, b) => b - a);
    const longest = own.slice(0, 5).map((x) => x.toFixed(1)).join(', ');
    console.log(`      ${held.length} pings, longest own stretches ${longest} ms`);
    assert.ok(held.length >= 10, `only ${held.length} pings answered during the call`);
    assert.ok(own[0] < 50, `a ping waited on ${own[0].toFixed(1)} ms of the server's own main-thread work (longest: ${longest})`);
  });
});
