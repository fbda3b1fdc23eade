import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { CodeGraphEngine } from '../../../plugins/graph/engine/engine.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

const MODULES = 450;

/** Python modules in packages of 20; module i imports and calls helper_{i-1}, so helper_k's only direct caller is mod_{k+1}. */
function writeRepo(root: string): void {
  for (let i = 0; i < MODULES; i++) {
    const dir = join(root, `pkg${Math.floor(i / 20)}`);
    mkdirSync(dir, { recursive: true });
    const prev = i === 0 ? null : `pkg${Math.floor((i - 1) / 20)}.mod_${i - 1}`;
    const lines = prev ? [`from ${prev} import helper_${i - 1}, Base${i - 1}`, ''] : [''];
    lines.push(`class Base${i}${prev ? `(Base${i - 1})` : ''}:`);
    for (let m = 0; m < 6; m++) lines.push(`    def method_${m}(self, x):`, `        return helper_${i}(x + ${m})`, '');
    for (let f = 0; f < 6; f++) lines.push(`def func_${i}_${f}(a, b):`, `    return Base${i}().method_${f}(a) * b + func_${i}_${(f + 1) % 6}(b, a) if a else b`, '');
    lines.push(`def helper_${i}(x):`, `    return ${prev ? `helper_${i - 1}(x) + ` : ''}${i}`, '');
    writeFileSync(join(dir, `mod_${i}.py`), lines.join('\n'));
  }
}

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds the main thread spent on a CPU (Linux), else wall time: a descheduled thread did not hold its loop. */
const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();

describe('the stored graph loads in slices after initialize', function () {
  this.timeout(300_000);
  let ws: string;
  let h: Harness | undefined;
  const options = { graph: { watch: false, typeCheck: false, parseWorkers: 0 } };

  before(async () => {
    ws = tempDir('m1nd-load-slices-');
    writeRepo(ws);
    const writer = await connect({ workspaceRoot: ws, config: { options } });
    const ingested = (await writer.call('ingest', { agent_id: 'w', path: '.' })).json;
    assert.equal(ingested.files.parsed, MODULES, JSON.stringify(ingested).slice(0, 300));
    await writer.close();
  });
  after(async () => {
    await h?.close();
  });

  it('makes a graph verb sent right after initialize wait, with progress, and answer from the whole graph, while pings are answered between slices', async () => {
    // The heavy load is the one that re-links every stored extraction: the ingest's snapshot is removed.
    const db = new Database(join(ws, '.m1nd', 'm1nd.db'));
    db.prepare('DELETE FROM graph_snapshot').run();
    db.close();
    h = await connect({ workspaceRoot: ws, config: { options } });
    const client = h.client;
    // Pings are timed until the load's last progress notification (the verb's own work after it is not the load's).
    let loaded = false;
    const held: number[] = [];
    const pinging = (async () => {
      let cpu = threadMs();
      while (!loaded) {
        await new Promise((r) => setTimeout(r, 2));
        await client.ping();
        const now = threadMs();
        if (!loaded) held.push(now - cpu);
        cpu = now;
      }
    })();
    const progress: Progress[] = [];
    const res = await client.callTool({ name: 'impact', arguments: { agent_id: 'a', node_id: 'function:pkg7/mod_150.py#helper_150' } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (p.progress === 1) loaded = true;
      },
    });
    loaded = true;
    await pinging;
    const json = JSON.parse((res.content as { type: string; text: string }[])[0].text);
    assert.equal(res.isError, undefined, JSON.stringify(json).slice(0, 400));
    // helper_150 is called by helper_151 (mod_151) directly, and through the chain by every later helper.
    assert.ok(
      json.direct.some((d: { id: string }) => d.id === 'function:pkg7/mod_151.py#helper_151'),
      JSON.stringify(json.direct),
    );
    // And through the chain (max_depth 5): helper_155 calls it four hops away.
    assert.ok(json.transitive.by_depth['5'] >= 1, JSON.stringify(json.transitive.by_depth));
    assert.deepEqual(
      progress.map((p) => [p.progress, p.total, p.message]),
      [
        [0, 1, 'graph: loading the stored graph'],
        [1, 1, 'graph: stored graph loaded'],
      ],
    );

    // The control: the main-thread CPU of the whole load (the same store, another engine).
    const engine = new CodeGraphEngine({ root: ws, storeDir: join(ws, '.m1nd'), typeCheck: false, readOnly: true, snapshots: false });
    const c0 = threadMs();
    const opened = await engine.open();
    const whole = threadMs() - c0;
    await engine.close();
    assert.ok(opened.nodes > MODULES * 10, `nodes ${opened.nodes}`);
    assert.ok(held.length >= 3, `only ${held.length} pings were answered during the load (whole load ${whole.toFixed(0)} ms CPU)`);
    const worst = Math.max(...held);
    assert.ok(whole > 100, `the fixture must be heavy enough to tell: its load took ${whole.toFixed(0)} ms of CPU`);
    assert.ok(worst < Math.min(whole / 2, 250), `a ping waited on ${worst.toFixed(0)} ms of main-thread work; the whole load takes ${whole.toFixed(0)} ms`);
  });

  it('loads the same graph in slices as in one piece (same nodes and edges as the ingest left)', async () => {
    // Closing the server writes the snapshot its re-linking load left pending.
    await h?.close();
    h = undefined;
    const sliced = new CodeGraphEngine({ root: ws, storeDir: join(ws, '.m1nd'), typeCheck: false, readOnly: true } as ConstructorParameters<typeof CodeGraphEngine>[0]);
    const a = await sliced.open();
    const edgesA = sliced.graph.edgeCount;
    const ids = [...sliced.graph.nodes()].map(([, n]) => n.id).sort();
    await sliced.close();
    // A slice of 0 ms yields after every step: the most interleaved load gives the same graph.
    const fine = new CodeGraphEngine({ root: ws, storeDir: join(ws, '.m1nd'), typeCheck: false, readOnly: true } as ConstructorParameters<typeof CodeGraphEngine>[0]);
    const b = await (fine as unknown as { loaded: { open(ms: number): Promise<typeof a> } }).loaded.open(0);
    assert.equal(b.nodes, a.nodes);
    assert.equal(fine.graph.edgeCount, edgesA);
    assert.deepEqual([...fine.graph.nodes()].map(([, n]) => n.id).sort(), ids);
    await fine.close();
    // The loads above came from the snapshot the server wrote; re-linking the extractions gives the same graph.
    assert.equal(fine.loadStats().snapshotLoads, 1);
    const relinked = new CodeGraphEngine({ root: ws, storeDir: join(ws, '.m1nd'), typeCheck: false, readOnly: true, snapshots: false });
    const c = await (relinked as unknown as { loaded: { open(ms: number): Promise<typeof a> } }).loaded.open(0);
    assert.equal(c.nodes, a.nodes);
    assert.equal(relinked.graph.edgeCount, edgesA);
    assert.deepEqual([...relinked.graph.nodes()].map(([, n]) => n.id).sort(), ids);
    await relinked.close();
  });
});
