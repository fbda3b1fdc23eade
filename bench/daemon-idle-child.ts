/**
 * One server of the daemon benchmark (bench/daemon.bench.ts), in its own process so its CPU time is
 * its own: serves `root` (graph watcher on or off), optionally ingests it and starts the daemon, then
 * sits idle for `idle` seconds and prints its CPU time over that window as one JSON line. In mode
 * `daemon` it then rewrites `burst` files and reports the event loop's worst delay while the
 * daemon's background cycles re-ingest them, and the same for the engine's own incremental ingest of
 * as many changed files (the baseline).
 *
 *   node --import tsx/esm --import ./bench/server-heap.mjs bench/daemon-idle-child.ts <root> <storeDir> <bare|graph-watch|daemon> <idleSeconds> <ingest 0|1> <burst>
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { leanServerHeap, youngGeneration } from '../core/cli-heap.ts';

const [root, storeDir, mode, idleArg, ingestArg, burstArg] = process.argv.slice(2);
// The heap as `m1nd serve` sets it (held from the first line by bench/server-heap.mjs, then grown to its size and held: core/cli-heap.ts; M1ND_LEAN_HEAP=0: V8's default).
const leanHeap = leanServerHeap();
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds the main thread spent on a CPU (Linux), else wall time. */
const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();
/**
 * DAEMON_PROF=<dir>: a CPU profile of the daemon's burst, its reconciliation, the baseline ingest and
 * the graph watcher's burst (`burst.cpuprofile`, `reconcile.cpuprofile`, …), to find which code holds the loop.
 */
async function profiler(name: string): Promise<{ stop: () => Promise<void> }> {
  const dir = process.env.DAEMON_PROF;
  if (!dir) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    stop: async () => {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}
/**
 * The longest main-thread CPU stretch between two 1 ms timers until `stop()` (the loop held by this
 * process's own work). With DAEMON_PROF, stretches over 5 ms are also written to `<name>.gaps.json`
 * (monotonic µs, the CPU profile's clock) so a profile's samples can be cut to them.
 */
function heldCpu(name: string): { stop: () => Promise<number>; gc: { count: number; max_ms: number; max_kind: number } } {
  let on = true;
  let max = 0;
  // The window's garbage collections: the longest pause and its kind (perf_hooks.constants: 1 minor (a scavenge), 4 major (mark-compact), 8 incremental marking, 16 weak callbacks).
  const gc = { count: 0, max_ms: 0, max_kind: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      if (e.duration > gc.max_ms) Object.assign(gc, { max_ms: Math.round(e.duration * 10) / 10, max_kind: ((e as unknown as { detail?: { kind?: number } }).detail?.kind) ?? 0 });
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const gaps: { start: number; end: number; cpu: number }[] = [];
  const us = (): number => Number(process.hrtime.bigint() / 1000n);
  const run = (async () => {
    for (let c = threadMs(), w = us(); on; ) {
      await new Promise((r) => setTimeout(r, 1));
      const now = threadMs();
      const wNow = us();
      max = Math.max(max, now - c);
      if (now - c > 5) gaps.push({ start: w, end: wNow, cpu: now - c });
      c = now;
      w = wNow;
    }
  })();
  return {
    gc,
    stop: async () => {
      on = false;
      await run;
      obs.disconnect();
      if (process.env.DAEMON_PROF) writeFileSync(join(process.env.DAEMON_PROF, `${name}.gaps.json`), JSON.stringify(gaps));
      return max;
    },
  };
}
const idleMs = Number(idleArg) * 1000;
/**
 * Appends a line to `burst` files, asynchronously and 20 at a time: the writes happen inside the
 * measured window, and 200 synchronous appends held this process's own main thread ~10 ms (the
 * stretch measured was then the benchmark's, not the server's).
 */
async function rewrite(tag: string): Promise<void> {
  const n = Number(burstArg);
  for (let i = 0; i < n; i += 20) {
    const batch: Promise<void>[] = [];
    for (let k = i; k < Math.min(n, i + 20); k++) batch.push(appendFile(join(root, `pkg${k % 100}`, `m${Math.floor(k / 100)}.ts`), `\nexport const ${tag}${k} = ${k};\n`));
    await Promise.all(batch);
  }
}
const host = await startHost({
  workspaceRoot: root,
  // DAEMON_FACTS=0: the structure plugin's background facts job off (its stretches apart from the daemon's and the engine's).
  config: { options: { graph: { watch: mode !== 'bare', typeCheck: false }, structure: { backgroundFacts: process.env.DAEMON_FACTS !== '0' } } },
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
// Garbage collections during the idle window (count and pause time): what idle CPU is made of.
const idleGc = { count: 0, ms: 0 };
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) (idleGc.count++, (idleGc.ms += e.duration));
});
gcObserver.observe({ entryTypes: ['gc'] });
/**
 * CPU time (ns, schedstat's first field) of each thread of this process by thread id (Linux; empty
 * elsewhere). Node names every thread `node`, so threads are told apart by id: the main thread's is the
 * process id; the others are V8's platform threads (concurrent marking and sweeping), libuv's pool and
 * the workers (parse pool, store writer, facts pool, each with its own heap and garbage collector).
 */
function threadNs(): Map<string, number> {
  const out = new Map<string, number>();
  const dir = `/proc/${process.pid}/task`;
  if (!existsSync(dir)) return out;
  for (const tid of readdirSync(dir)) {
    try {
      out.set(tid, Number(readFileSync(`${dir}/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended
    }
  }
  return out;
}
const threads0 = threadNs();
// DAEMON_PROF: a profile of the idle window too (`idle.cpuprofile`; the profiler's own sampling costs CPU).
const idleProf = await profiler('idle');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
// The window in segments of up to 10 s: V8's memory reducer collects each isolate's heap a few times
// (seconds apart) once its allocation rate falls after the set-up's work, then stops; the segments
// show that settling apart from the steady state.
const segments: { s: number; cpu_ms: number; gcs: number }[] = [];
for (let done = 0; done < idleMs; ) {
  const len = Math.min(10_000, idleMs - done);
  const c = process.cpuUsage();
  const g = idleGc.count;
  await new Promise((r) => setTimeout(r, len));
  const d = process.cpuUsage(c);
  done += len;
  segments.push({ s: done / 1000, cpu_ms: Math.round((d.user + d.system) / 1000), gcs: idleGc.count - g });
}
const cpu = process.cpuUsage(cpu0);
gcObserver.disconnect();
await idleProf.stop();
// Which threads the idle CPU went to (main thread, workers, libuv pool, V8 helpers, the watcher's).
// Threads that ended during the window are not counted (their last figures are gone).
const idleThreads = { main: 0, others: 0, others_running: 0 };
for (const [tid, ns] of threadNs()) {
  const ms = (ns - (threads0.get(tid) ?? 0)) / 1e6;
  if (tid === String(process.pid)) idleThreads.main = Math.round(ms * 10) / 10;
  else if (ms > 0.5) {
    idleThreads.others = Math.round((idleThreads.others + ms) * 10) / 10;
    idleThreads.others_running++;
  }
}
const wallMs = performance.now() - t0;
const out: Record<string, unknown> = { mode, nodes: health.graph?.node_count ?? 0, setup_ms: Math.round(setupMs), wall_ms: Math.round(wallMs), cpu_ms: (cpu.user + cpu.system) / 1000, cpu_pct: ((cpu.user + cpu.system) / 1000 / wallMs) * 100, rss_mb: Math.round(process.memoryUsage().rss / 1e6), lean_heap: leanHeap, young_generation: youngGeneration(), idle_gc: idleGc, idle_threads_ms: idleThreads, idle_segments: segments };
const burst = Number(burstArg);
if (mode === 'daemon' && burst > 0) {
  // A server in use: one seek first, so its one-time loads (the tokenizer's tables, ~2 × 28 ms on the
  // main thread at the first exact count) are not charged to the bursts' background work.
  await call('seek', { query: 'f1' });
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const prof = await profiler('burst');
  const held = heldCpu('burst');
  const t = performance.now();
  await rewrite('touched');
  // Until the daemon's background cycles have handled the burst (its counters say so).
  // Stopped after 30 s without progress: a burst whose files never all arrive is reported as such.
  let progress = { n: -1, at: t };
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    const s = await call('daemon_status');
    if (s.counters.reingested >= burst && s.queue === 0) break;
    if (s.counters.reingested !== progress.n || s.queue > 0) progress = { n: s.counters.reingested, at: performance.now() };
    else if (performance.now() - progress.at > 30_000) break;
  }
  h.disable();
  const heldMax = await held.stop();
  await prof.stop();
  const drainedMs = Math.round(performance.now() - t);
  // The reconciliation the drain arms (a poll of the whole tree against the store once it has been
  // quiet ~5 s): background work too, measured the same way.
  const recProf = await profiler('reconcile');
  const recHeld = heldCpu('reconcile');
  const tr = performance.now();
  let reconciled = false;
  let reconcileCycleMs = 0;
  for (; !reconciled && performance.now() - tr < 20_000; ) {
    await new Promise((r) => setTimeout(r, 200));
    const last = (await call('daemon_status')).last_cycle;
    reconciled = last?.trigger === 'reconcile';
    if (reconciled) reconcileCycleMs = last.elapsed_ms;
  }
  const recHeldMax = await recHeld.stop();
  await recProf.stop();
  const reconcileMs = Math.round(performance.now() - tr);
  const s = await call('daemon_status');
  // Baseline in the same process: the same number of files changed again, re-ingested by the engine's
  // own incremental ingest (the daemon stopped first), with the same event-loop monitor.
  await call('daemon_stop');
  const base = monitorEventLoopDelay({ resolution: 5 });
  await rewrite('again');
  base.enable();
  const baseProf = await profiler('baseline');
  const baseHeld = heldCpu('baseline');
  const tb = performance.now();
  await call('ingest', { path: '.', incremental: true });
  base.disable();
  const baseHeldMax = await baseHeld.stop();
  await baseProf.stop();
  // The graph's own watcher path: as many files changed again, marked dirty by the graph's watcher
  // (no daemon), re-ingested by the freshness check of the next query.
  await rewrite('watched');
  const watchProf = await profiler('watcher');
  const watchHeld = heldCpu('watcher');
  const watchLoop = monitorEventLoopDelay({ resolution: 5 });
  watchLoop.enable();
  const tw = performance.now();
  for (let i = 0; i < 100 && !(await call('health')).graph?.stale; i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300)); // the rest of the burst's events
  const tq = performance.now();
  await call('seek', { query: `watched${burst - 1}` });
  const watchQueryMs = Math.round(performance.now() - tq);
  watchLoop.disable();
  const watchHeldMax = await watchHeld.stop();
  await watchProf.stop();
  out.burst = {
    watcher_query_ms: watchQueryMs,
    watcher_wall_ms: Math.round(performance.now() - tw),
    watcher_loop_delay_max_ms: watchLoop.max / 1e6,
    watcher_held_cpu_max_ms: watchHeldMax,
    files: burst,
    reingested: s.counters.reingested,
    ...(s.counters.reingested < burst ? { status_when_short: s } : {}),
    drained_ms: drainedMs,
    loop_delay_max_ms: h.max / 1e6,
    loop_delay_p99_ms: h.percentile(99) / 1e6,
    cycles: s.ticks,
    baseline_ingest_ms: Math.round(performance.now() - tb),
    baseline_loop_delay_max_ms: base.max / 1e6,
    baseline_loop_delay_p99_ms: base.percentile(99) / 1e6,
    held_cpu_max_ms: heldMax,
    held_gc: held.gc,
    watcher_gc: watchHeld.gc,
    reconcile: { ran: reconciled, after_ms: reconcileMs, cycle_ms: reconcileCycleMs, found_by_poll: s.counters.found_by_poll, held_cpu_max_ms: recHeldMax },
    baseline_held_cpu_max_ms: baseHeldMax,
  };
}
console.log(JSON.stringify(out));
await host.close();
process.exit(0);
