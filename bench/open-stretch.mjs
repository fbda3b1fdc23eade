/**
 * Opens a stored graph in a fresh process from a built `dist/` and prints the open's CPU and wall
 * time and the longest main-thread CPU stretch between two ticks of a 1 ms timer during the open
 * (Linux schedstat: time the thread was descheduled by a loaded machine does not count), i.e. the
 * longest the event loop was held. Plain JavaScript: no loader.
 *
 *   node bench/open-stretch.mjs <dist dir> <workspace root> [store dir]
 * BENCH_SNAPSHOTS=0 ignores the stored graph snapshot (the load re-links every stored extraction).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, root, storeDir] = process.argv.slice(2);
const stat = `/proc/self/task/${process.pid}/schedstat`;
const threadMs = existsSync(stat) ? () => Number(readFileSync(stat, 'utf8').split(' ')[0]) / 1e6 : () => performance.now();
const c0 = process.cpuUsage();
const { CodeGraphEngine } = await import(pathToFileURL(join(resolve(dist), 'graph.js')).href);
const importCpu = process.cpuUsage(c0);
const e = new CodeGraphEngine({ root, storeDir: storeDir ?? join(root, '.m1nd'), readOnly: true, snapshots: process.env.BENCH_SNAPSHOTS !== '0' });
let last = threadMs();
let longest = 0;
let ticks = 0;
const timer = setInterval(() => {
  const now = threadMs();
  longest = Math.max(longest, now - last);
  last = now;
  ticks++;
}, 1);
const c1 = process.cpuUsage();
const t = performance.now();
const o = await e.open();
const wallMs = performance.now() - t;
const openCpu = process.cpuUsage(c1);
clearInterval(timer);
longest = Math.max(longest, threadMs() - last);
const ms = (c) => (c.user + c.system) / 1000;
process.stdout.write(
  JSON.stringify({ importCpuMs: Math.round(ms(importCpu)), openCpuMs: Math.round(ms(openCpu)), openWallMs: Math.round(wallMs), longestHeldMs: Math.round(longest), ticks, nodes: o.nodes, edges: o.edges, files: o.files, snapshot: e.loadStats?.().snapshotLoads === 1 }) + '\n',
);
await e.close();
