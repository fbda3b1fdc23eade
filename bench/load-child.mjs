/**
 * The engine benchmark's fresh process: opens a stored graph, warms the seek index and the search
 * cache, and prints RSS as JSON. Plain JavaScript so it can load the engine from the built `dist/`
 * without the tsx loader (from sources, run it with `--import tsx`).
 *
 *   node --expose-gc [--import tsx] bench/load-child.mjs <engine module> <root> <store dir> <exclude,…>
 * BENCH_SNAPSHOTS=0 ignores the stored graph snapshot (re-links every stored extraction, as before
 * snapshots); the output says which load ran (`loadStats`) and the open's main-thread CPU.
 * M1ND_LEAN_HEAP=0: without the server's heap setting (core/cli-heap.ts), as `m1nd serve` with it.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [enginePath, root, storeDir, exclude] = process.argv.slice(2);
globalThis.gc?.();
// Measured before the engine module is imported: the runtime (and the tsx loader, if any) only.
const baseline = process.memoryUsage().rss;
// The process as `m1nd serve` runs it: its heap setting (core/cli-heap.ts) from the same build as the engine.
const { leanServerHeap } = await import(pathToFileURL(resolve(enginePath, `../../../../core/cli-heap.${enginePath.endsWith('.ts') ? 'ts' : 'js'}`)).href);
const lean = process.env.M1ND_LEAN_HEAP !== '0' && leanServerHeap();
const { CodeGraphEngine } = await import(pathToFileURL(resolve(enginePath)).href);
const snapshots = process.env.BENCH_SNAPSHOTS !== '0';
const e = new CodeGraphEngine({ root, storeDir, exclude: exclude ? exclude.split(',') : [], snapshots, typeCheck: false });
const t = performance.now();
const cpu0 = process.cpuUsage();
const o = await e.open();
const openMs = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
const openCpuMs = (cpu.user + cpu.system) / 1000;
const openHeap = process.memoryUsage().heapUsed;
e.warmSearchCache();
e.seek('parse header');
e.search('def __init__');
globalThis.gc?.();
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ lean, openMs, openCpuMs, openHeap, rss: m.rss, baseline, heapUsed: m.heapUsed, heapTotal: m.heapTotal, nodes: o.nodes, edges: o.edges, loadStats: e.loadStats?.() }));
await e.close();
