import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { SLICE_MS } from '../../../../plugins/graph/engine/ingest-parse.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { pingDuringGc } from '../../../helpers/ping.ts';

const MODULES = 400;

/** Python modules in packages of 20, each importing and calling into the one before it, with a few classes each. */
function writeRepo(root: string): void {
  for (let i = 0; i < MODULES; i++) {
    const dir = join(root, `pkg${Math.floor(i / 20)}`);
    mkdirSync(dir, { recursive: true });
    const prev = i === 0 ? null : `pkg${Math.floor((i - 1) / 20)}.mod_${i - 1}`;
    const lines = prev ? [`from ${prev} import helper_${i - 1}, Base${i - 1}`, ''] : [''];
    lines.push(`class Base${i}${prev ? `(Base${i - 1})` : ''}:`, `    """Base number ${i}."""`);
    for (let m = 0; m < 8; m++) lines.push(`    def method_${m}(self, x):`, `        return helper_${i}(x + ${m})${prev ? ` + helper_${i - 1}(x)` : ''}`, '');
    for (let f = 0; f < 8; f++) lines.push(`def func_${i}_${f}(a, b):`, `    value = Base${i}().method_${f}(a)`, `    return value * b + func_${i}_${(f + 1) % 8}(b, a) if a else b`, '');
    lines.push(`def helper_${i}(x):`, `    return Base${i}().method_0(x) if x > 0 else ${i}`, '');
    writeFileSync(join(dir, `mod_${i}.py`), lines.join('\n'));
  }
}

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/**
 * Milliseconds the main thread spent on a CPU so far (Linux), else wall time: time the thread was
 * descheduled by a loaded machine is not time the server held its event loop.
 */
const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();

describe('ingest and the event loop', function () {
  this.timeout(300_000);
  let h: Harness;
  let ws: string;

  before(() => {
    ws = tempDir('m1nd-ingest-loop-');
    writeRepo(ws);
  });
  after(async () => {
    await h?.close();
  });

  it('answers pings within a bound while a full ingest runs, far below the time its graph takes to build in one piece', async () => {
    h = await connect({ workspaceRoot: ws, config: { options: { graph: { watch: false, typeCheck: false, parseWorkers: 2 } } } });
    // Start-up work that is not the ingest's: the stored-graph load, and the tokenizer's tables (loaded by the first result's token count).
    await h.call('health', { agent_id: 'loop' });
    let stopped = false;
    const held: number[] = [];
    const latencies: number[] = [];
    const pinging = (async () => {
      // Main-thread time from one answer to the next (the pause between pings included): a step that
      // holds the loop delays the next timer or answer, so it falls inside one of these spans.
      let cpu = threadMs();
      while (!stopped) {
        await new Promise((r) => setTimeout(r, 5));
        const t = performance.now();
        await h.client.ping();
        latencies.push(performance.now() - t);
        const now = threadMs();
        held.push(now - cpu);
        cpu = now;
      }
    })();
    const res = await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'loop', path: ws, wait_precise: false } }, undefined, { timeout: 280_000 });
    const text = (res.content as { type: string; text: string }[])[0].text;
    const json = JSON.parse(text);
    stopped = true;
    await pinging;
    assert.equal(json.files.parsed, MODULES, JSON.stringify(json).slice(0, 300));
    assert.equal(json.parseWorkers, 2);
    assert.ok(latencies.length >= 10, `only ${latencies.length} pings answered during the ingest`);

    // The control: loading the same graph from the store builds it in one synchronous piece.
    const engine = new CodeGraphEngine({ root: ws, storeDir: join(ws, '.m1nd'), typeCheck: false, readOnly: true } as ConstructorParameters<typeof CodeGraphEngine>[0]);
    const c0 = threadMs();
    const opened = await engine.open();
    const whole = threadMs() - c0;
    await engine.close();
    assert.equal(opened.nodes, json.nodes);

    const worst = Math.max(...held);
    assert.ok(whole > 120, `the fixture must be heavy enough to tell: its graph built in ${whole.toFixed(0)} ms`);
    assert.ok(worst < Math.min(whole / 2, 250), `a ping waited on ${worst.toFixed(0)} ms of main-thread work (p50 latency ${latencies.sort((a, b) => a - b)[latencies.length >> 1].toFixed(0)} ms); the whole build takes ${whole.toFixed(0)} ms`);
  });

  it('holds the main thread about one slice at a time: at most two stretches between two ping answers over 20 ms of CPU, none over 50 ms', async () => {
    // The ingest's slices (SLICE_MS) bound what a ping waits on, a GC pause or one file's step aside.
    // 20 ms slices gave 2–6 stretches over 20 ms here (the longest 27–34 ms); 8 ms slices none (the
    // longest 10.6–18.5 ms). GC pauses inside a stretch are not the ingest's
    // slicing and are taken out; two stretches over are still allowed (pauses the gc entries miss:
    // after ~900 tests in one process, CI saw 2 of 214 at 27.5 and 21.0 ms, twice in ~14 runs),
    // none over 50 ms (an unsliced build of this graph is over 120 ms).
    assert.ok(SLICE_MS <= 10, `the ingest's slice is ${SLICE_MS} ms`);
    const root = tempDir('m1nd-ingest-slices-');
    writeRepo(root);
    const hs = await connect({ workspaceRoot: root, config: { options: { graph: { watch: false, typeCheck: false, parseWorkers: 2 } } } });
    try {
      await hs.call('health', { agent_id: 'slices' });
      const { result: res, held, gc } = await pingDuringGc(hs, () => hs.client.callTool({ name: 'ingest', arguments: { agent_id: 'slices', path: root, wait_precise: false } }, undefined, { timeout: 280_000 }));
      assert.equal(JSON.parse((res.content as { type: string; text: string }[])[0].text).files.parsed, MODULES);
      // The code's own share of each stretch: V8's GC pauses inside it taken out (after a thousand
      // tests in one process, a major GC's pause alone reached 20-30 ms on CI).
      const over = held
        .map((ms, i) => ({ ms, own: ms - gc[i] }))
        .filter((x) => x.own > 20)
        .sort((a, b) => b.own - a.own);
      const list = over.map((x) => `${x.own.toFixed(1)} (${x.ms.toFixed(1)} with GC)`).join(', ');
      assert.ok(over.length <= 2, `${over.length} of ${held.length} stretches over 20 ms of main-thread CPU besides GC: ${list} ms`);
      assert.ok(over.every((x) => x.own <= 50), `a stretch over 50 ms of main-thread CPU besides GC: ${list} ms`);
    } finally {
      await hs.close();
    }
  });
});
