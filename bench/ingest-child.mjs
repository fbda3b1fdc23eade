/**
 * One full ingest in a fresh process, from the built `dist/` (plain JavaScript, no loader): prints
 * wall time, process CPU (every thread, the parse workers included), peak RSS and the graph's size
 * as JSON. Used by bench/ingest-parallel.bench.ts.
 *
 *   node bench/ingest-child.mjs <dist dir> <root> <store dir> <parse workers | default> <exclude,…> [worker nice | default]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve, join } from 'node:path';

const [dist, root, storeDir, workers, exclude, nice = 'default'] = process.argv.slice(2);
const { CodeGraphEngine } = await import(pathToFileURL(join(resolve(dist), 'graph.js')).href);
const e = new CodeGraphEngine({
  root,
  storeDir,
  exclude: exclude ? exclude.split(',') : [],
  gitMaxCommits: 0,
  typeCheck: false,
  ...(workers === 'default' ? {} : { parseWorkers: Number(workers) }),
  ...(nice === 'default' ? {} : { workerNice: Number(nice) }),
});
/** The main thread's own CPU milliseconds (Linux schedstat; null elsewhere); field 1: its milliseconds runnable but waiting for a core. */
function mainThreadCpuMs(field = 0) {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[field]) / 1e6;
  } catch {
    return null;
  }
}
// Peak RSS and main-isolate heap (MB) by phase, sampled every 20 ms and at each progress call; 'close' is the engine's close.
let phase = 'start';
const peaks = {};
const sample = () => {
  const m = process.memoryUsage();
  const p = (peaks[phase] ??= { rss: 0, heap: 0 });
  p.rss = Math.max(p.rss, Math.round(m.rss / 1048576));
  p.heap = Math.max(p.heap, Math.round(m.heapUsed / 1048576));
};
const sampler = setInterval(sample, 20);
const m0 = mainThreadCpuMs();
const w0 = mainThreadCpuMs(1);
const c0 = process.cpuUsage();
const t0 = performance.now();
// The serial part: the main thread's CPU from the end of the parse (the first 'git' or 'build'
// progress call) to the end of the ingest, i.e. what is left on the critical path after the parse.
let tailStart = null;
let tailWaitStart = null;
const s = await e.ingest({
  onProgress: (_done, _total, ph) => {
    sample();
    phase = ph;
    if (tailStart === null && (ph === 'git' || ph === 'build' || ph === 'persist')) (tailStart = mainThreadCpuMs()), (tailWaitStart = mainThreadCpuMs(1));
  },
});
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
const m1 = mainThreadCpuMs();
const w1 = mainThreadCpuMs(1);
if (process.env.M1ND_BENCH_THREADS) {
  // Per-thread CPU (Linux), by thread name, before the workers stop: where the CPU went.
  const { readdirSync } = await import('node:fs');
  const threads = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const ms = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      threads[`${name}#${tid}`] = Math.round(ms);
    } catch {}
  }
  process.stderr.write(JSON.stringify(threads) + '\n');
}
// Peak RSS of the ingest alone; the one printed as peakRssMb also covers close (which writes the graph snapshot).
const ingestPeakRssMb = process.resourceUsage().maxRSS / 1024;
phase = 'close';
await e.close();
sample();
clearInterval(sampler);
process.stdout.write(
  JSON.stringify({ wallMs, cpuMs: (c.user + c.system) / 1000, mainCpuMs: m0 === null ? null : m1 - m0, tailMainCpuMs: tailStart === null || m1 === null ? null : m1 - tailStart, mainWaitMs: w0 === null ? null : w1 - w0, tailMainWaitMs: tailWaitStart === null || w1 === null ? null : w1 - tailWaitStart, peakRssMb: process.resourceUsage().maxRSS / 1024, ingestPeakRssMb, peaks, files: s.files.parsed, nodes: s.nodes, edges: s.edges, parseWorkers: s.parseWorkers, phases: s.phases }),
);
