/**
 * One server of the daemon benchmark (bench/daemon.bench.ts), in its own process so its CPU time is
 * its own: serves `root` (graph watcher on or off), optionally ingests it and starts the daemon, then
 * sits idle for `idle` seconds and prints its CPU time over that window as one JSON line. In mode
 * `daemon` it then rewrites `burst` files and reports the event loop's worst delay while the
 * daemon's background cycles re-ingest them, and the same for the engine's own incremental ingest of
 * as many changed files (the baseline).
 *
 *   node --import tsx/esm bench/daemon-idle-child.ts <root> <storeDir> <bare|graph-watch|daemon> <idleSeconds> <ingest 0|1> <burst>
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';

const [root, storeDir, mode, idleArg, ingestArg, burstArg] = process.argv.slice(2);
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds the main thread spent on a CPU (Linux), else wall time. */
const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();
/** The longest main-thread CPU stretch between two 1 ms timers until `stop()` (the loop held by this process's own work). */
function heldCpu(): { stop: () => Promise<number> } {
  let on = true;
  let max = 0;
  const run = (async () => {
    for (let c = threadMs(); on; ) {
      await new Promise((r) => setTimeout(r, 1));
      const now = threadMs();
      max = Math.max(max, now - c);
      c = now;
    }
  })();
  return { stop: async () => ((on = false), await run, max) };
}
const idleMs = Number(idleArg) * 1000;
const host = await startHost({
  workspaceRoot: root,
  config: { options: { graph: { watch: mode !== 'bare', typeCheck: false } } },
  env: { M1ND_STORE_DIR: storeDir, M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: join(storeDir, 'cache') },
  log: createLogger(() => {}),
});
const call = async (verb: string, args: Record<string, unknown> = {}) => {
  const r = await host.call(verb, { agent_id: 'bench', ...args });
  const text = (r.content as { text: string }[])[0].text;
  if (r.isError) throw new Error(`${verb}: ${text}`);
  return JSON.parse(text);
};
const setupStart = performance.now();
if (ingestArg === '1') await call('ingest', { path: '.' });
const health = await call('health');
if (mode === 'daemon') await call('daemon_start', { watch_paths: [], poll_interval_ms: 500 });
// The graph's own watcher starts after the stored graph loads: wait until it reports watching
// (its initial scan done; health says nothing of it without a store).
for (let i = 0; mode !== 'bare' && i < 600 && (await call('health')).graph?.watching === false; i++) await new Promise((r) => setTimeout(r, 500));
// Then until the process has been quiet (< 2 % CPU over 2 s, at most 3 minutes): watcher scans finished.
for (let i = 0; i < 90; i++) {
  const c0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, 2000));
  const c = process.cpuUsage(c0);
  if ((c.user + c.system) / 1000 / 2000 < 0.02) break;
}
const setupMs = performance.now() - setupStart;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await new Promise((r) => setTimeout(r, idleMs));
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
const out: Record<string, unknown> = { mode, nodes: health.graph?.node_count ?? 0, setup_ms: Math.round(setupMs), wall_ms: Math.round(wallMs), cpu_ms: (cpu.user + cpu.system) / 1000, cpu_pct: ((cpu.user + cpu.system) / 1000 / wallMs) * 100, rss_mb: Math.round(process.memoryUsage().rss / 1e6) };
const burst = Number(burstArg);
if (mode === 'daemon' && burst > 0) {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const held = heldCpu();
  const t = performance.now();
  for (let i = 0; i < burst; i++) appendFileSync(join(root, `pkg${i % 100}`, `m${Math.floor(i / 100)}.ts`), `\nexport const touched${i} = ${i};\n`);
  // Until the daemon's background cycles have handled the burst (its counters say so).
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const s = await call('daemon_status');
    if (s.counters.reingested >= burst && s.queue === 0) break;
    if (performance.now() - t > 600_000) break;
  }
  h.disable();
  const heldMax = await held.stop();
  const drainedMs = Math.round(performance.now() - t);
  const s = await call('daemon_status');
  // Baseline in the same process: the same number of files changed again, re-ingested by the engine's
  // own incremental ingest (the daemon stopped first), with the same event-loop monitor.
  await call('daemon_stop');
  const base = monitorEventLoopDelay({ resolution: 5 });
  for (let i = 0; i < burst; i++) appendFileSync(join(root, `pkg${i % 100}`, `m${Math.floor(i / 100)}.ts`), `\nexport const again${i} = ${i};\n`);
  base.enable();
  const baseHeld = heldCpu();
  const tb = performance.now();
  await call('ingest', { path: '.', incremental: true });
  base.disable();
  const baseHeldMax = await baseHeld.stop();
  out.burst = {
    files: burst,
    reingested: s.counters.reingested,
    drained_ms: drainedMs,
    loop_delay_max_ms: h.max / 1e6,
    loop_delay_p99_ms: h.percentile(99) / 1e6,
    cycles: s.ticks,
    baseline_ingest_ms: Math.round(performance.now() - tb),
    baseline_loop_delay_max_ms: base.max / 1e6,
    baseline_loop_delay_p99_ms: base.percentile(99) / 1e6,
    held_cpu_max_ms: heldMax,
    baseline_held_cpu_max_ms: baseHeldMax,
  };
}
console.log(JSON.stringify(out));
await host.close();
process.exit(0);
