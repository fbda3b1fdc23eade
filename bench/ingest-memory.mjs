/**
 * Peak memory of one full ingest, by phase: RSS, the main isolate's heap and external memory
 * sampled every 20 ms and at each progress callback, the peak RSS of the process (every thread), and
 * RSS / heap after a forced GC at the end. Git and the checker pass off. Plain JavaScript, to run the
 * engine from `dist/` (`npx tsc -p tsconfig.build.json` first) without a loader:
 *
 *   node --expose-gc bench/ingest-memory.mjs "$PWD/dist/plugins/graph/engine/engine.js" <root> <store dir> [heap snapshot file]
 *
 * The optional heap snapshot is written when the build phase starts (after a GC). CPU is printed
 * for the whole process (every thread) and for the main thread alone (`/proc/self/task/<pid>/schedstat`),
 * so runs on a loaded machine compare by CPU rather than wall time. `M1ND_HEAP_GROWTH=0` runs the
 * build without its heap growth bound (plugins/graph/engine/heap-growth.ts).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
const [eng, root, store, snap] = process.argv.slice(2);
rmSync(store, { recursive: true, force: true });
const { CodeGraphEngine } = await import(eng);
// BENCH_SEARCH_CACHE_CHARS: the engine's search text cache budget (default 64 M characters), to price what it holds.
const cacheChars = process.env.BENCH_SEARCH_CACHE_CHARS ? Number(process.env.BENCH_SEARCH_CACHE_CHARS) : undefined;
const e = new CodeGraphEngine({ root, storeDir: store, gitMaxCommits: 0, typeCheck: false, ...(cacheChars !== undefined ? { searchCacheChars: cacheChars } : {}) });
const mb = (b) => Math.round(b / 1048576);
let peak = 0, phase = 'start'; const peaks = {};
const sample = () => { const r = process.memoryUsage(); if (r.rss > peak) peak = r.rss; const p = peaks[phase] ??= { rss: 0, heap: 0, ext: 0 }; p.rss = Math.max(p.rss, mb(r.rss)); p.heap = Math.max(p.heap, mb(r.heapUsed)); p.ext = Math.max(p.ext, mb(r.external + r.arrayBuffers)); };
const iv = setInterval(sample, 20);
let snapped = false;
const mainCpuMs = () => { try { return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6; } catch { return NaN; } };
const cpu0 = process.cpuUsage(), main0 = mainCpuMs();
const t0 = performance.now();
const s = await e.ingest({ onProgress: (d, t, ph) => { sample(); if (ph !== phase) { phase = ph; } if (ph === 'build' && d === 0 && snap && !snapped) { snapped = true; globalThis.gc?.(); const m = process.memoryUsage(); console.error('at build start', mb(m.rss), 'heap', mb(m.heapUsed)); v8.writeHeapSnapshot(snap); } } });
sample(); clearInterval(iv);
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0), mainCpu = mainCpuMs() - main0;
globalThis.gc?.(); const after = process.memoryUsage();
console.log(JSON.stringify({ wall: Math.round(wall), cpu: Math.round((cpu.user + cpu.system) / 1000), mainCpu: Math.round(mainCpu), nodes: s.nodes, edges: s.edges, files: s.files.parsed, phases: s.phases, peakRss: mb(process.resourceUsage().maxRSS * 1024), peaks, afterGc: { rss: mb(after.rss), heap: mb(after.heapUsed), ab: mb(after.arrayBuffers) } }));
await e.close();
