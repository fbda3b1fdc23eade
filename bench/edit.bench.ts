/**
 * The edit family on a copy of the Python standard library (site-packages excluded), served by a
 * real host and called through host.call (gates, validation, handler, token count, envelope):
 *   apply of one file with its re-ingest ÷ a plain write plus the engine's re-ingest of that path,
 *   apply_batch of 20 files (no verify)  ÷ 20 plain writes plus one re-ingest of those paths,
 *   surgical_context_v2 (proving)        ÷ view of the same file through the host.
 * The copy is needed because the verbs write; it is made in a temp dir and removed afterwards.
 *
 *   node --import tsx bench/edit.bench.ts [--corpus DIR]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { GraphService } from '../plugins/graph/service.ts';
import { pct, serveStoredGraph } from './bench-host.ts';

const EXCLUDE = ['site-packages/**'];
const FILES = Number(process.env.BENCH_EDIT_FILES ?? 40);
const BATCHES = Number(process.env.BENCH_EDIT_BATCHES ?? 5);

const fmt = (x: number): string => x.toFixed(2);
const line = (label: string, xs: number[], base: number[], baseLabel: string) =>
  console.log(`edit: ${label} p50 ${fmt(pct(xs, 50))} ms, p99 ${fmt(pct(xs, 99))} ms; ${baseLabel} p50 ${fmt(pct(base, 50))} ms; ratio ${fmt(pct(xs, 50) / pct(base, 50))} (n=${xs.length})`);

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const corpusArg = argv.indexOf('--corpus');
  const source = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const tmp = mkdtempSync(join(tmpdir(), 'm1nd-edit-bench-'));
  const root = join(tmp, 'ws');
  const storeDir = join(tmp, 'store');
  try {
    cpSync(source, root, { recursive: true, filter: (p) => !p.includes('site-packages') && !p.includes('__pycache__') });
    const engine = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE });
    await engine.open();
    const t0 = performance.now();
    await engine.ingest();
    console.log(`edit: corpus copy of ${source}, ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await engine.close();
    // The graph as the host serves it (loaded from the store).
    const { host, call } = await serveStoredGraph(root, storeDir, EXCLUDE);
    try {
      const service = host.current.services.get('graph')!.impl as GraphService;
      const g = service.engine.graph;
      // Mid-sized Python modules with symbols, every 3rd so the sample spreads over the library.
      const paths = [...g.nodes()]
        .map(([, n]) => n)
        .filter((n) => n.kind === 'file' && n.path.endsWith('.py') && n.endLine > 80 && n.endLine < 1500 && !n.isTest)
        .map((n) => n.path)
        .sort()
        .filter((_, i) => i % 3 === 0)
        .slice(0, FILES + 20 * BATCHES);
      const text = new Map(paths.map((p) => [p, readFileSync(join(root, p), 'utf8')]));
      console.log(`edit: graph ${g.nodeCount} nodes, ${g.edgeCount} edges; ${paths.length} files sampled`);

      // surgical_context_v2 vs view, same files.
      const sample = paths.slice(0, FILES);
      for (const p of sample.slice(0, 10)) await call('surgical_context_v2', { file_path: p });
      const v2: number[] = [];
      const view: number[] = [];
      for (let r = 0; r < 3; r++) {
        for (const p of sample) {
          v2.push(await call('surgical_context_v2', { file_path: p }));
          view.push(await call('view', { file_path: p }));
        }
      }
      line('surgical_context_v2', v2, view, 'view of the same file');

      // apply (one file + re-ingest) vs plain write + the engine's re-ingest of that path.
      const apply: number[] = [];
      const plain: number[] = [];
      const phases: Record<string, number[]> = {};
      let round = 0;
      for (const p of sample) {
        round++;
        apply.push(await call('apply', { file_path: p, new_content: `${text.get(p)}\n# bench edit ${round}\n` }));
        const t = performance.now();
        writeFileSync(join(root, p), `${text.get(p)}\n# bench plain ${round}\n`);
        const summary = await service.reingestPaths([p]);
        plain.push(performance.now() - t);
        for (const [k, v] of Object.entries(summary.phases)) (phases[k] ??= []).push(v);
      }
      line('apply (1 file + re-ingest)', apply, plain, 'writeFileSync + reingestPaths');
      // Where the engine's one-path re-ingest spends its time (medians), since it dominates apply.
      console.log(`edit: reingestPaths phases p50 ${Object.entries(phases).map(([k, v]) => `${k} ${fmt(pct(v, 50))}`).join(', ')} ms`);

      // apply_batch of 20 files vs 20 plain writes + one re-ingest of the 20 paths.
      const batch: number[] = [];
      const plainBatch: number[] = [];
      for (let b = 0; b < BATCHES; b++) {
        const files = paths.slice(FILES + b * 20, FILES + (b + 1) * 20);
        if (files.length < 20) break;
        batch.push(await call('apply_batch', { edits: files.map((p) => ({ file_path: p, new_content: `${text.get(p)}\n# batch ${b}\n` })) }));
        const t = performance.now();
        for (const p of files) writeFileSync(join(root, p), `${text.get(p)}\n# plain batch ${b}\n`);
        await service.reingestPaths(files);
        plainBatch.push(performance.now() - t);
      }
      line('apply_batch (20 files, atomic, no verify)', batch, plainBatch, '20 × writeFileSync + one reingestPaths');
    } finally {
      await host.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
