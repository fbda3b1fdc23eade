import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { ownHeld, pingDuringGc } from '../../helpers/ping.ts';
import { dayDate, git } from './git-fixture.ts';

const MODULES = 300;

/** Python modules in packages of 20, each calling into the one before it; `edit` changes every tenth module's bodies. */
function writeRepo(root: string, edit: boolean): void {
  for (let i = 0; i < MODULES; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 20)}`);
    fs.mkdirSync(dir, { recursive: true });
    const prev = i === 0 ? null : `pkg${Math.floor((i - 1) / 20)}.mod_${i - 1}`;
    const changed = edit && i % 10 === 0;
    const lines = prev ? [`from ${prev} import helper_${i - 1}`, ''] : [''];
    lines.push(`class Base${i}:`, `    """Base number ${i}."""`);
    for (let m = 0; m < 6; m++) lines.push(`    def method_${m}(self, x):`, `        return helper_${i}(x + ${changed ? m * 2 : m})${prev ? ` + helper_${i - 1}(x)` : ''}`, '');
    for (let f = 0; f < 6; f++) lines.push(`def func_${i}_${f}(a, b):`, `    return Base${i}().method_${f}(a) * b + func_${i}_${(f + 1) % 6}(b, a) if a else b`, '');
    if (changed) lines.push(`def added_${i}(x):`, `    return helper_${i}(x) - 1`, '');
    lines.push(`def helper_${i}(x):`, `    return Base${i}().method_0(x) if x > 0 else ${i}`, '');
    fs.writeFileSync(path.join(dir, `mod_${i}.py`), lines.join('\n'));
  }
}

describe('differential and the event loop', function () {
  this.timeout(300_000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir('m1nd-diff-loop-');
    writeRepo(ws, false);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'v1'], dayDate(0));
    git(ws, ['tag', 'v1'], dayDate(0));
    writeRepo(ws, true);
    git(ws, ['add', '-A'], dayDate(1));
    git(ws, ['commit', '-q', '-m', 'v2'], dayDate(1));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, parseWorkers: 2 } } } });
    await h.call('ingest', { agent_id: 'loop', path: ws });
  });
  after(async () => {
    await h?.close();
  });

  // Alone, the longest stretch of the server's own work is 20–30 ms here: what is left is work no
  // slice can split (spawning git, ~5–20 ms each; a GC's unattributed part; a worker's message). The
  // code before the slicing held 88–109 ms (a tree-sitter query compiled in one call, a chunk's blob
  // writes in one turn). On a loaded CI machine the same run saw 49.7, 39.9, 39.4 ms, which a first
  // bound (at most three over 30 ms) failed; this one leaves that room and still fails unsliced work.
  it('answers pings while it exports two refs, builds their graphs and compares them: no stretch of its own over 80 ms, at most three over 50 ms', async () => {
    const { result, held, gc } = await pingDuringGc(h, () => h.call('differential', { agent_id: 'loop', snapshot_a: 'v1', snapshot_b: 'HEAD' }));
    assert.equal(result.result.isError, undefined, JSON.stringify(result.json).slice(0, 400));
    assert.equal(result.json.files.modified.length, MODULES / 10);
    assert.equal(result.json.nodes.added.length, MODULES / 10);
    const own = ownHeld(held, gc).sort((a, b) => b - a);
    console.log(`      ${held.length} pings, longest own stretches ${own.slice(0, 5).map((x) => x.toFixed(1)).join(', ')} ms`);
    assert.ok(held.length >= 10, `only ${held.length} pings answered during the call`);
    const longest = own.slice(0, 5).map((x) => x.toFixed(1)).join(', ');
    assert.ok(own[0] < 80, `a ping waited on ${own[0].toFixed(1)} ms of the server's own main-thread work (longest: ${longest})`);
    assert.ok(own.filter((x) => x > 50).length <= 3, `more than three stretches over 50 ms (longest: ${longest})`);
  });
});
