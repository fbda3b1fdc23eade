/**
 * Daemon overhead on a 10,000-file tree (100 folders of small TypeScript files, ingested unless DAEMON_INGEST=0): three
 * servers run at once, each in its own process over its own copy-free view of the same tree — a bare
 * server (graph watcher off), the default server (the graph's watcher on) and the default server with
 * the daemon started over the whole workspace — and each reports its CPU time while idle for the same
 * window (process.cpuUsage; native file events, no polling). Prints each server's CPU % and the
 * daemon's overhead over the default server (target ≤ 1 % of one CPU), then the event loop's worst
 * delay while the daemon's background cycles re-ingest a burst of changed files. The window is also
 * reported in 10 s segments: V8's memory reducer collects each heap a few times, seconds apart, once
 * the set-up's allocations stop (a one-off of every Node process after work), so the first segments
 * hold that settling and the second half of the window the steady state ("settled").
 *
 *   node --import tsx/esm bench/run.ts daemon     (env: DAEMON_IDLE_S=60 DAEMON_FILES=10000 DAEMON_BURST=200 DAEMON_INGEST=1 DAEMON_ONLY=0;
 *   DAEMON_FACTS=0 turns the structure plugin's background facts job off; DAEMON_PROF=<dir> writes CPU profiles of the bursts)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function child(root: string, store: string, mode: string, idle: number, ingest: boolean, burst: number): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx/esm', '--import', join(here, 'server-heap.mjs'), join(here, 'daemon-idle-child.ts'), root, store, mode, String(idle), ingest ? '1' : '0', String(burst)], { cwd: join(here, '..'), maxBuffer: 1 << 20, timeout: 1_800_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${mode}: ${error.message}\n${stderr.slice(-2000)}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    });
  });
}

/** CPU % over the second half of the idle window's segments (the first ones hold V8's memory-reducing collections after the set-up). */
function settledPct(r: { idle_segments: { s: number; cpu_ms: number }[] }): number {
  const seg = r.idle_segments;
  const tail = seg.slice(Math.floor(seg.length / 2));
  const ms = (tail.at(-1)?.s ?? 0) - (seg[Math.floor(seg.length / 2) - 1]?.s ?? 0);
  return (tail.reduce((a, x) => a + x.cpu_ms, 0) / (ms * 1000)) * 100;
}

export async function run(): Promise<void> {
  const idle = Number(process.env.DAEMON_IDLE_S ?? 60);
  const files = Number(process.env.DAEMON_FILES ?? 10_000);
  const burst = Number(process.env.DAEMON_BURST ?? 200);
  // Ingesting 3 × 10,000 files takes minutes on a shared machine; DAEMON_INGEST=0 measures the watchers over an empty graph.
  const ingest = process.env.DAEMON_INGEST !== '0';
  const parent = mkdtempSync(join(tmpdir(), 'm1nd-daemon-bench-'));
  try {
    // DAEMON_ONLY=1: the daemon's server alone (burst figures without two other servers competing).
    const modes = process.env.DAEMON_ONLY === '1' ? ['daemon'] : ['bare', 'graph-watch', 'daemon'];
    const roots = modes.map((mode) => {
      const root = join(parent, mode);
      for (let i = 0; i < files; i++) {
        const dir = join(root, `pkg${i % 100}`);
        if (i < 100) mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `m${Math.floor(i / 100)}.ts`), `import { f${(i + 1) % 100} } from './m${(Math.floor(i / 100) + 1) % 100}.ts';\nexport function f${i % 100}(x: number): number {\n  return x + ${i};\n}\n`);
      }
      writeFileSync(join(root, 'package.json'), '{"type":"module","private":true}\n');
      return { mode, root, store: join(parent, `${mode}-store`) };
    });
    console.log(`tree: ${files} files in 100 folders, ${modes.length} cop${modes.length === 1 ? 'y' : 'ies'}${ingest ? ', ingested' : ', not ingested'}; idle window ${idle} s; burst ${ingest ? burst : 0} files`);
    const results = await Promise.all(roots.map((r) => child(r.root, r.store, r.mode, idle, ingest, r.mode === 'daemon' && ingest ? burst : 0)));
    const by = Object.fromEntries(results.map((r) => [r.mode, r]));
    for (const r of results) console.log(`daemon idle: ${r.mode.padEnd(11)} ${r.nodes} nodes (heap ${r.lean_heap ? `as \`m1nd serve\`, young generation 2 × ${r.young_generation.semi_space_mb} MB` : "V8 default"}), CPU ${r.cpu_ms.toFixed(0)} ms over ${(r.wall_ms / 1000).toFixed(1)} s = ${r.cpu_pct.toFixed(3)} % (setup ${(r.setup_ms / 1000).toFixed(1)} s, RSS ${r.rss_mb} MB; ${r.idle_gc.count} GCs, ${r.idle_gc.ms.toFixed(0)} ms; CPU ms main thread ${r.idle_threads_ms.main}, other threads ${r.idle_threads_ms.others} in ${r.idle_threads_ms.others_running} threads over 0.5 ms)`);
    for (const r of results) console.log(`daemon idle: ${r.mode.padEnd(11)} CPU ms by ${r.idle_segments.length > 1 ? '10 s segment' : 'segment'} ${r.idle_segments.map((x: { cpu_ms: number; gcs: number }) => `${x.cpu_ms}${x.gcs ? ` (${x.gcs} GC)` : ''}`).join(', ')}; settled (second half of the window) ${settledPct(r).toFixed(3)} %`);
    const overhead = by.daemon.cpu_pct - (by['graph-watch']?.cpu_pct ?? NaN);
    if (by.bare) console.log(`daemon idle: overhead over the default server ${overhead.toFixed(3)} % of one CPU (target ≤ 1 %); over the bare server ${(by.daemon.cpu_pct - by.bare.cpu_pct).toFixed(3)} %; settled ${(settledPct(by.daemon) - settledPct(by['graph-watch'])).toFixed(3)} / ${(settledPct(by.daemon) - settledPct(by.bare)).toFixed(3)} %`);
    const b = by.daemon.burst;
    if (b) {
      console.log(`daemon burst: ${b.files} files rewritten → ${b.reingested} re-ingested by ${b.cycles} background cycles in ${b.drained_ms} ms; event loop delay max ${b.loop_delay_max_ms.toFixed(1)} ms, p99 ${b.loop_delay_p99_ms.toFixed(1)} ms`);
      if (b.status_when_short) console.log(`daemon burst: SHORT — daemon_status ${JSON.stringify(b.status_when_short).slice(0, 1500)}`);
      console.log(`daemon burst baseline: ingest {incremental} of ${b.files} changed files ${b.baseline_ingest_ms} ms; event loop delay max ${b.baseline_loop_delay_max_ms.toFixed(1)} ms, p99 ${b.baseline_loop_delay_p99_ms.toFixed(1)} ms; ratio of maxima ${(b.loop_delay_max_ms / b.baseline_loop_delay_max_ms).toFixed(2)}`);
      console.log(`daemon burst main-thread CPU held at most: ${b.held_cpu_max_ms.toFixed(1)} ms (baseline ingest ${b.baseline_held_cpu_max_ms.toFixed(1)} ms); ${b.held_gc.count} GC pauses, longest ${b.held_gc.max_ms} ms (kind ${b.held_gc.max_kind}); graph watcher burst: ${b.watcher_gc.count} GC pauses, longest ${b.watcher_gc.max_ms} ms (kind ${b.watcher_gc.max_kind})`);
      const rc = b.reconcile;
      console.log(`daemon reconciliation after the burst: ${rc.ran ? `ran ${rc.after_ms} ms after the drain, its cycle ${rc.cycle_ms} ms` : `did not run within ${rc.after_ms} ms`}; changes no event reported ${rc.found_by_poll}; main-thread CPU held at most ${rc.held_cpu_max_ms.toFixed(1)} ms`);
      console.log(`graph watcher burst: ${b.files} files changed, marked by the graph's own watcher, re-ingested by the next query's freshness check (${b.watcher_query_ms} ms); event loop delay max ${b.watcher_loop_delay_max_ms.toFixed(1)} ms; main-thread CPU held at most ${b.watcher_held_cpu_max_ms.toFixed(1)} ms`);
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
