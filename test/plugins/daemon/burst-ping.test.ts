import { strict as assert } from 'node:assert';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { ownHeld, pingWhileGc, writeImportTree } from '../../helpers/ping.ts';

const FILES = 800;
const BURST = 200;

describe('daemon: a burst of edits never blocks the server for long', function () {
  this.timeout(300_000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('answers pings within a few slices while its background cycle re-ingests 200 rewritten files', async () => {
    const ws = tempDir('m1nd-daemon-burst-');
    writeImportTree(ws, FILES);
    // The graph's own watcher is off: only the daemon reacts to the burst. So is the structure
    // plugin's background facts job, which the re-ingest restarts: its own stretches (a rule query
    // compiled on the main thread, a facts write transaction) are that plugin's to slice.
    h = await connect({
      workspaceRoot: ws,
      env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: join(ws, '..', `${ws.split('/').pop()}-cache`) },
      config: { options: { graph: { watch: false, typeCheck: false }, structure: { backgroundFacts: false } } },
    });
    const call = async (verb: string, args: Record<string, unknown> = {}) => {
      const r = await h!.call(verb, { agent_id: 'a', ...args });
      assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
      return r.json as any;
    };
    await call('ingest', { path: '.' });
    await call('daemon_start', { watch_paths: [], poll_interval_ms: 200 });
    // Warm-up: one small burst handled first (the re-ingest's code paths compiled).
    for (let i = 0; i < 20; i++) appendFileSync(join(ws, `pkg${i % 40}`, `m${Math.floor(i / 40)}.ts`), `\nexport const warm${i} = ${i};\n`);
    for (let t = Date.now(); (await call('daemon_status')).counters.reingested < 20 && Date.now() - t < 60_000; ) await new Promise((r) => setTimeout(r, 100));

    const before = (await call('daemon_status')).counters.reingested;
    for (let i = 0; i < BURST; i++) appendFileSync(join(ws, `pkg${i % 40}`, `m${Math.floor(i / 40)}.ts`), `\nexport function touched${i}(): number {\n  return ${i};\n}\n`);
    let handled = false;
    const pings = pingWhileGc(h, () => handled);
    const started = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      const s = await call('daemon_status');
      if ((s.counters.reingested - before >= BURST && s.queue === 0) || Date.now() - started > 120_000) break;
    }
    handled = true;
    const { held: withGc, gc } = await pings;
    const held = ownHeld(withGc, gc);
    const status = await call('daemon_status');
    assert.ok(status.counters.reingested - before >= BURST, `re-ingested ${status.counters.reingested - before} of ${BURST}`);
    const found = await call('seek', { query: 'touched199' });
    assert.ok(JSON.stringify(found.results).includes('touched199'), 'the burst is in the graph');
    assert.ok(held.length >= 5, `only ${held.length} pings were answered during the burst`);
    const worst = Math.max(...held);
    console.log(`      burst: ${held.length} pings, worst ${worst.toFixed(1)} ms of main-thread work (${Math.max(...withGc).toFixed(1)} with GC)`);
    // Main-thread CPU, not wall time (a loaded machine deschedules the thread). Before the watcher
    // moved off chokidar and the cycle was sliced, this measured 19-40 ms; with the engine's re-ingest
    // in 20 ms slices up to ~26 ms; now that the daemon's re-ingest and the snapshot write yield every
    // 5 ms and no step reads every stored row at once, 9.6-14.6 ms (a ping's own round trip included)
    // at load average 20-29; one CI run measured 25.7 ms and one 42.8 ms with GC counted (in a full
    // run a major GC of the test process's own heap cannot be sliced and may land inside a slice), so
    // the bound is on the server's own work, GC pauses set aside as the other ping tests do.
    const at = held.indexOf(worst);
    assert.ok(worst < 40, `a ping waited on ${worst.toFixed(1)} ms of main-thread work (${withGc[at].toFixed(1)} with GC; ping ${at} of ${held.length}: p50 ${[...held].sort((a, b) => a - b)[held.length >> 1].toFixed(1)} ms)`);
  });
});
