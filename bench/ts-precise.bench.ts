/**
 * The TS/JS checker pass against the tree-sitter ingest of the same repository, in the same run.
 * Copies a TS repository (`--corpus DIR`, or M1ND_TS_CORPUS) to a temp dir, ingests it (tree-sitter
 * graph, the baseline), then ingests it again with the checker and prints the wall time the pass adds
 * and its CPU, each ÷ the baseline ingest's (target ≤ 2), where the worker's time goes, its memory,
 * how many files became precise, the calls edges before and after, and an incremental re-check after
 * editing one widely imported file.
 *
 * `--dist` runs the compiled engine (dist/, built by `npm run build`) instead of the sources, as an
 * installed server does. The worker loads the compiler through its code cache (compiler-cache.ts);
 * `M1ND_CACHE_DIR=off` measures it without one.
 *
 *   node --import tsx bench/ts-precise.bench.ts --corpus DIR [--dist]
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { RELATION_CODE as RelationCode } from '../plugins/graph/engine/graph.ts';

const fromDist = process.argv.includes('--dist');
/** `--parse-workers N` sets the ingest's parse pool (default: the engine's, one per core) for both runs. */
const workersAt = process.argv.indexOf('--parse-workers');
const parseWorkers = workersAt >= 0 ? Number(process.argv[workersAt + 1]) : undefined;
const engineModule = (await import(fromDist ? '../dist/plugins/graph/engine/engine.js' : '../plugins/graph/engine/engine.ts')) as typeof import('../plugins/graph/engine/engine.ts');
const { RELATION_CODE } = (await import(fromDist ? '../dist/plugins/graph/engine/graph.js' : '../plugins/graph/engine/graph.ts')) as typeof import('../plugins/graph/engine/graph.ts');

function edgesOf(e: CodeGraphEngine, relation: keyof typeof RelationCode): number {
  const g = e.graph;
  let n = 0;
  for (let i = 0; i < g.edgeCapacity; i++) if (g.edgeAlive[i] && g.edgeRelation[i] === RELATION_CODE[relation]) n++;
  return n;
}

export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--corpus');
  const source = at >= 0 ? argv[at + 1] : process.env.M1ND_TS_CORPUS;
  if (!source) {
    console.log('skipped: pass --corpus DIR (or M1ND_TS_CORPUS) naming a TypeScript repository');
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'm1nd-bench-ts-'));
  const root = join(work, 'corpus');
  cpSync(source, root, { recursive: true, filter: (p) => !p.includes('node_modules') && !p.endsWith('/.git') });
  try {
    const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
    // Baseline: the tree-sitter ingest alone (checker off), in its own store.
    const base = new engineModule.CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, storeDir: join(work, 'store-base'), parseWorkers });
    await base.open();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const summary = await base.ingest();
    const ingestMs = performance.now() - t0;
    const ingestCpu = cpuMs(process.cpuUsage(c0));
    const callsBefore = edgesOf(base, 'calls');
    await base.close();
    // The same ingest with the checker pass, waited for. The worker starts (and builds its programs)
    // when the ingest starts, so part of the pass overlaps the tree-sitter parse: the figure to hold
    // against the target is the wall time the pass adds to the ingest; the pass's own cost is its CPU
    // (process CPU less the baseline ingest's; the main thread idles while it waits) and the worker's
    // busy time (start-up, warm-up, check).
    const e = new engineModule.CodeGraphEngine({ root, gitMaxCommits: 0, storeDir: join(work, 'store'), parseWorkers });
    await e.open();
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    await e.ingest();
    const ingestWithMs = performance.now() - t1;
    const status = await e.preciseIdle();
    const totalMs = performance.now() - t1;
    const extraMs = totalMs - ingestMs;
    const passCpu = cpuMs(process.cpuUsage(c1)) - ingestCpu;
    const last = status.lastPass;
    const busyMs = last ? last.startupMs + last.warmMs + last.elapsedMs : 0;
    console.log(`corpus: ${source} (engine from ${fromDist ? 'dist/' : 'sources'}); files ingested ${summary.files.parsed}, TS/JS ${status.files}`);
    console.log(`tree-sitter ingest: ${ingestMs.toFixed(0)} ms wall, ${ingestCpu.toFixed(0)} ms CPU (baseline)`);
    console.log(`ingest with the checker: ingest ${ingestWithMs.toFixed(0)} ms, pass done at ${totalMs.toFixed(0)} ms: ${extraMs.toFixed(0)} ms wall over the baseline = ${(extraMs / ingestMs).toFixed(2)}x its wall (target <= 2x)`);
    console.log(`checker pass CPU: ${passCpu.toFixed(0)} ms = ${(passCpu / ingestCpu).toFixed(2)}x the ingest CPU`);
    console.log(`worker busy: ${busyMs} ms = ${(busyMs / ingestMs).toFixed(2)}x the ingest wall (start-up ${last?.startupMs}, warm-up ${last?.warmMs}, pass ${last?.elapsedMs} of which programs ${last?.buildMs}; ${last?.checked} files, ${last?.programs} programs; compiler ${last?.compiler})`);
    const cpu = last?.cpu;
    if (cpu) {
      const sum = cpu.startup + cpu.warm + cpu.pass;
      console.log(`worker thread CPU: ${sum.toFixed(0)} ms = ${(sum / ingestCpu).toFixed(2)}x the ingest CPU (start-up ${cpu.startup.toFixed(0)}, warm-up ${cpu.warm.toFixed(0)}, pass ${cpu.pass.toFixed(0)})`);
    }
    console.log(`worker memory after the pass: rss ${status.lastPass?.rssMb} MiB, heap ${status.lastPass?.heapMb} MiB`);
    console.log(`files: precise ${status.precise}, failed ${status.failed}, pending ${status.pending}`);
    console.log(`calls edges: ${callsBefore} name-resolved -> ${edgesOf(e, 'calls')} after the pass; references ${edgesOf(e, 'references')}, dispatches ${edgesOf(e, 'dispatches')}`);
    // Incremental: edit the most imported file; it and its importers are re-checked.
    let hub = '';
    let most = -1;
    for (const p of e.filePaths()) {
      const n = e.graph.incoming(`file:${p}`).filter((x) => x.relation === 'imports').length;
      if (n > most && /\.[cm]?[jt]sx?$/.test(p)) [hub, most] = [p, n];
    }
    if (hub) {
      const abs = join(root, hub);
      writeFileSync(abs, `${readFileSync(abs, 'utf8')}\n// edited\n`);
      const t2 = performance.now();
      await e.ingest({ incremental: true });
      const inc = await e.preciseIdle();
      console.log(`edit ${hub} (${most} importers): incremental ingest + re-check ${(performance.now() - t2).toFixed(0)} ms, ${inc.lastPass?.checked} files re-checked in ${inc.lastPass?.elapsedMs} ms`);
    }
    await e.close();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
