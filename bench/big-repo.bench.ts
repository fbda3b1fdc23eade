/**
 * A big repository's graph in a new process: how long the host takes to load the stored graph, the
 * RSS it then holds, and `seek` and `impact` latency on it through the whole pipeline. Run after an
 * ingest into `<store dir>`, e.g. `bench/ingest-parallel.bench.ts --synthetic 50000 --only pool
 * --runs 1 --keep DIR`, then `<root>` = DIR/corpus and `<store dir>` = DIR/store (or any store a full
 * ingest wrote). Each line gives p50 / p99 over N queries (seeded, so every run asks the same ones).
 * The first `seek` reads `<store dir>/seek-index.bin` when an earlier process wrote it (delete it to
 * measure the build).
 *
 *   node --expose-gc --import tsx/esm bench/big-repo.bench.ts <root> <store dir> [queries, default 50]
 */
import { existsSync, readFileSync } from 'node:fs';
import { pct, serveStoredGraph } from './bench-host.ts';
import type { GraphService } from '../plugins/graph/service.ts';

const mb = (b: number): string => (b / 1048576).toFixed(0);
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds of CPU of the main thread (Linux), else NaN. */
const threadCpuMs = (): number => (existsSync(schedstat) ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : NaN);

/** Runs the benchmark and prints its lines. */
export async function run(argv: string[]): Promise<void> {
  const [root, storeDir, n] = argv;
  if (!root || !storeDir) throw new Error('usage: big-repo.bench.ts <root> <store dir> [queries]');
  const queries = Number(n ?? 50);
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // The checker pass off: this measures the graph, not the TypeScript program of 15K files.
  const { host, call } = await serveStoredGraph(root, storeDir, [], { typeCheck: false });
  const openMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  try {
    globalThis.gc?.();
    const loaded = process.memoryUsage();
    const graph = (host.current.services.get('graph')!.impl as GraphService).engine.graph;
    console.log(
      `big-repo: start + load ${(openMs / 1000).toFixed(2)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU; ${graph.nodeCount} nodes, ${graph.edgeCount} edges; RSS ${mb(loaded.rss)} MB (process before the host ${mb(baseline)} MB), heap ${mb(loaded.heapUsed)} MB`,
    );
    // Labels of functions and classes spread over the graph (every k-th such node).
    const picked: { id: string; label: string }[] = [];
    const step = Math.max(1, Math.floor(graph.nodeCount / (queries * 3)));
    for (let i = 0; i < graph.nodeCount && picked.length < queries; i += step) {
      const node = graph.node(i);
      if (node && (node.kind === 'function' || node.kind === 'class' || node.kind === 'method')) picked.push({ id: node.id, label: node.label });
    }
    // From here on the server warms its indexes in the background (the seek index: read from its file,
    // or built in a worker; PageRank in slices): the main thread's CPU until the first seek answers.
    const sinceLoad = threadCpuMs();
    const processSinceLoad = process.cpuUsage();
    // Impact first: it needs no index, so its figures come even when the seek index build is too slow.
    const impact: number[] = [];
    for (const p of picked) impact.push(await call('impact', { node_id: p.id, direction: 'reverse' }));
    console.log(
      `big-repo: impact first ${impact[0].toFixed(1)} ms, then p50 ${pct(impact.slice(1), 50).toFixed(2)} / p99 ${pct(impact.slice(1), 99).toFixed(2)} ms over ${impact.length - 1} (target p50 ≤ 10, p99 ≤ 50 ms)`,
    );
    // The seek index: read from the store's index file when a process before this one built it (a new
    // process's first seek then reads it in slices), else built here. Main-thread CPU beside the wall time.
    const lexical = () => (host.current.services.get('graph')!.impl as GraphService).engine.status().lexical;
    const mainCpu0 = threadCpuMs();
    const first = await call('seek', { query: picked[0].label });
    const firstCpu = threadCpuMs() - mainCpu0;
    const lx = lexical();
    const warmCpu = threadCpuMs() - sinceLoad;
    const warmProcess = process.cpuUsage(processSinceLoad);
    const how = lx.fileLoads ? "read from the store's index file" : lx.workerBuilds ? 'built in a child process' : 'built on the main thread';
    console.log(
      `big-repo: first seek ${first.toFixed(0)} ms wall, ${firstCpu.toFixed(0)} ms main-thread CPU during the call; since the load ${warmCpu.toFixed(0)} ms main-thread CPU (impact calls included), ${((warmProcess.user + warmProcess.system) / 1000).toFixed(0)} ms process CPU: index ${how} (${lx.documents} documents, ${lx.postings} postings, ${lx.tokens} terms)`,
    );
    const seek: number[] = [];
    const seekCpu: number[] = [];
    for (const p of picked) {
      const cpu = threadCpuMs();
      seek.push(await call('seek', { query: p.label.replace(/_/g, ' ') }));
      seekCpu.push(threadCpuMs() - cpu);
    }
    console.log(`big-repo: seek first ${first.toFixed(0)} ms, then p50 ${pct(seek, 50).toFixed(2)} / p99 ${pct(seek, 99).toFixed(2)} ms over ${seek.length} (target p50 ≤ 20 ms); main-thread CPU per call p50 ${pct(seekCpu, 50).toFixed(2)} / p99 ${pct(seekCpu, 99).toFixed(2)} ms`);
    globalThis.gc?.();
    const after = process.memoryUsage();
    console.log(`big-repo: RSS after the queries ${mb(after.rss)} MB, heap ${mb(after.heapUsed)} MB; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await host.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run(process.argv.slice(2));
}
