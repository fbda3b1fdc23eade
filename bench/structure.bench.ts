/**
 * Structure verbs on the Python standard library (site-packages excluded), through a real host
 * (the whole dispatch pipeline). Cold = first call after load (parses every file), warm = the same
 * call again (per-file caches keyed by content hash). Baselines measured in the same run:
 *   scan_all, twins ÷ parsing every code file with tree-sitter and nothing else (their cold floor),
 *   layers          ÷ one plain pass over every edge of the graph (the least a layering must read),
 *   taint_trace     ÷ impact on the same entry nodes (a bounded walk of the same graph, through the host).
 * Targets (issue 17): scan_all and layers ≤ 2 s, twins ≤ 3 s, taint_trace p50 ≤ 100 ms.
 *
 * Each line also gives the CPU time of the call (process.cpuUsage), steadier than wall time on a
 * loaded machine. `--store DIR` reuses a store already ingested from the corpus (else a temp one).
 *
 *   node --import tsx bench/structure.bench.ts [--corpus DIR] [--store DIR] [--only layers,scan_all,twins,taint_trace]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import { createParser, loadGrammar } from '../plugins/graph/engine/parsers/tree-sitter.ts';
import type { GraphService } from '../plugins/graph/service.ts';
import { pct, serveStoredGraph } from './bench-host.ts';

const EXCLUDE = ['site-packages/**'];
const fmt = (x: number): string => x.toFixed(0);

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const corpusArg = argv.indexOf('--corpus');
  const root = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const onlyArg = argv.indexOf('--only');
  const only = onlyArg >= 0 ? new Set(argv[onlyArg + 1].split(',')) : null;
  const wants = (verb: string) => !only || only.has(verb);
  const storeArg = argv.indexOf('--store');
  const storeDir = storeArg >= 0 ? argv[storeArg + 1] : mkdtempSync(join(tmpdir(), 'm1nd-structure-bench-'));
  try {
    if (storeArg < 0) {
      const engine = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE });
      await engine.open();
      await engine.ingest();
      await engine.close();
    }
    const { host, call } = await serveStoredGraph(root, storeDir, EXCLUDE);
    try {
      const service = host.current.services.get('graph')!.impl as GraphService;
      const g = service.engine.graph;
      const files: string[] = [];
      for (const [, n] of g.nodes()) if (n.kind === 'file' && n.language === 'python') files.push(n.path);
      await call('metrics', { top_k: 1 }); // loads the graph and its indexes, so the first timed call is the verb's own work
      console.log(`structure: corpus ${root}, graph ${g.nodeCount} nodes, ${g.edgeCount} edges, ${files.length} Python files`);

      // Baseline: parse every file, nothing else.
      const parser = createParser(await loadGrammar('python'));
      let t = performance.now();
      const p0 = process.cpuUsage();
      for (const f of files) parser.parse(readFileSync(join(root, f), 'utf8'))?.delete();
      const parseAll = performance.now() - t;
      const p1 = process.cpuUsage(p0);
      console.log(`structure: parse-only baseline wall ${fmt(parseAll)} ms, cpu ${fmt((p1.user + p1.system) / 1000)} ms`);
      t = performance.now();
      let sum = 0;
      for (let e = 0; e < g.edgeCapacity; e++) if (g.edgeAlive[e]) sum += g.edgeSource[e] ^ g.edgeTarget[e];
      const edgePass = Math.max(0.01, performance.now() - t);
      if (sum === 0.5) console.log('');

      const cpuOf = async (verb: string, args: Record<string, unknown>) => {
        const c0 = process.cpuUsage();
        const wall = await call(verb, args);
        const c = process.cpuUsage(c0);
        return { wall, cpu: (c.user + c.system) / 1000 };
      };
      const timed = async (verb: string, args: Record<string, unknown>) => {
        const cold = await cpuOf(verb, args);
        const warm = await cpuOf(verb, args);
        return { cold: cold.wall, warm: warm.wall, coldCpu: cold.cpu, warmCpu: warm.cpu };
      };
      const cpuNote = (x: { coldCpu: number; warmCpu: number }) => `cpu cold ${fmt(x.coldCpu)} ms warm ${fmt(x.warmCpu)} ms`;
      // Under the host's 120 s handler timeout, so a slow machine gets a partial answer, not a timeout.
      const big = { time_budget_ms: 100_000 };
      if (wants('layers')) {
      const layers = await timed('layers', big);
      console.log(`structure: layers      cold ${fmt(layers.cold)} ms  warm ${fmt(layers.warm)} ms  (target ≤ 2000)   ${cpuNote(layers)}   edge pass ${edgePass.toFixed(1)} ms   ratio ${(layers.cold / edgePass).toFixed(0)}`);
      }
      if (wants('scan_all')) {
      const scan = await timed('scan_all', big);
      console.log(`structure: scan_all    cold ${fmt(scan.cold)} ms  warm ${fmt(scan.warm)} ms  (target ≤ 2000)   ${cpuNote(scan)}   parse-only ${fmt(parseAll)} ms   ratio cold ${(scan.cold / parseAll).toFixed(2)}`);
      }
      if (wants('twins')) {
      const twins = await timed('twins', big);
      console.log(`structure: twins       cold ${fmt(twins.cold)} ms  warm ${fmt(twins.warm)} ms  (target ≤ 3000)   ${cpuNote(twins)}   parse-only ${fmt(parseAll)} ms   ratio cold ${(twins.cold / parseAll).toFixed(2)}`);
      }

      if (!wants('taint_trace')) return;
      // Taint from functions that call something, a fixed sample.
      const entries: string[] = [];
      for (const [i, n] of g.nodes()) if ((n.kind === 'function' || n.kind === 'method') && g.outDegree(i) > 3 && i % 7 === 0) entries.push(n.id);
      const sample = entries.slice(0, 100);
      for (const id of sample.slice(0, 10)) await call('taint_trace', { entry_nodes: [id] });
      const taint: number[] = [];
      const impact: number[] = [];
      for (const id of sample) {
        taint.push(await call('taint_trace', { entry_nodes: [id] }));
        impact.push(await call('impact', { node_id: id }));
      }
      console.log(
        `structure: taint_trace p50 ${pct(taint, 50).toFixed(1)} ms  p99 ${pct(taint, 99).toFixed(1)} ms  (target p50 ≤ 100)   impact p50 ${pct(impact, 50).toFixed(1)} ms   ratio ${(pct(taint, 50) / pct(impact, 50)).toFixed(2)}   (${sample.length} entries)`,
      );
    } finally {
      await host.close();
    }
  } finally {
    if (storeArg < 0) rmSync(storeDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
