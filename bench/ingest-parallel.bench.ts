/**
 * Parallel ingest against the single-thread ingest in the same run: a full ingest of a corpus (the
 * Python standard library by default, `test/` and `site-packages/` left out) in a fresh process from
 * the built `dist/`, once with the parse pool (default: one worker per core) and once with
 * `parseWorkers: 0`, alternated `--runs N` times (default 2; git and the checker pass off, so the
 * figure is parsing and building). Prints wall, CPU (every thread), peak RSS, and the ratio
 * single ÷ pool of the median walls (target ≥ 1.6 on 2 cores). `--only pool` runs the pool alone
 * (the 13.7K-file python3 prefix: `--corpus "$(python3 -c 'import sys;print(sys.prefix)')" --only pool --runs 1`).
 * `--synthetic N` ingests a generated repository of N files instead (bench/synthetic-repo.ts: six
 * languages, imports and calls between modules), e.g. `--synthetic 50000 --only pool --runs 1`.
 * Each line also gives the main thread's own CPU and the serial phases (build, commit). `--keep DIR`
 * leaves the corpus and the last run's store in DIR (for bench/big-repo.bench.ts). `--nice 0,10`
 * runs the pool once per listed worker nice (graph option `workerNice`) in each round, alternated,
 * and prints single ÷ pool for each.
 *
 *   node --import tsx/esm bench/ingest-parallel.bench.ts [--corpus DIR | --synthetic N] [--runs N] [--only pool|single] [--keep DIR] [--nice A,B]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticRepo } from './synthetic-repo.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXCLUDE = ['test/**', 'site-packages/**'];

interface Run {
  wallMs: number;
  cpuMs: number;
  mainCpuMs: number | null;
  /** The main thread's CPU after the parse (the serial tail: linking, waiting for the commit). */
  tailMainCpuMs: number | null;
  /** The main thread's time runnable but waiting for a core (whole ingest; after the parse). */
  mainWaitMs: number | null;
  tailMainWaitMs: number | null;
  phases: Record<string, number>;
  peakRssMb: number;
  files: number;
  nodes: number;
  edges: number;
  parseWorkers: number;
}

function ingestOnce(ws: string, store: string, workers: string, exclude: string[], nice = 'default'): Run {
  rmSync(store, { recursive: true, force: true });
  const out = spawnSync(process.execPath, [join(ROOT, 'bench/ingest-child.mjs'), join(ROOT, 'dist'), ws, store, workers, exclude.join(','), nice], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (out.status !== 0) throw new Error(`ingest child failed (${out.status}): ${out.stderr.slice(0, 2000)}`);
  return JSON.parse(out.stdout) as Run;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const s = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '?' : (ms / 1000).toFixed(2));
const line = (label: string, r: Run) =>
  `ingest-parallel: ${label}: ${s(r.wallMs)} s wall, ${s(r.cpuMs)} s CPU (main thread ${s(r.mainCpuMs)} s, of which after the parse ${s(r.tailMainCpuMs)} s; waiting for a core ${s(r.mainWaitMs)} s, after the parse ${s(r.tailMainWaitMs)} s), peak RSS ${r.peakRssMb.toFixed(0)} MB (${r.files} files → ${r.nodes} nodes, ${r.edges} edges; parse workers ${r.parseWorkers}; phases s: read+parse ${s(r.phases.read + r.phases.parse)}, build ${s(r.phases.build)}, commit ${s(r.phases.persist)})`;

/** Runs the benchmark and prints its lines. */
export async function run(argv: string[] = []): Promise<void> {
  const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const synthetic = arg('--synthetic');
  const source = arg('--corpus') ?? execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const runs = Number(arg('--runs') ?? 2);
  const only = arg('--only');
  // --keep DIR: work in DIR (empty or new) and leave the corpus (DIR/corpus) and the last run's store
  // (DIR/store) there, for bench/big-repo.bench.ts.
  const keep = arg('--keep');
  if (keep !== undefined && existsSync(keep) && readdirSync(keep).length) throw new Error(`--keep ${keep}: the folder is not empty`);
  const work = keep !== undefined ? (mkdirSync(keep, { recursive: true }), resolve(keep)) : mkdtempSync(join(os.tmpdir(), 'm1nd-ingest-parallel-'));
  const ws = join(work, 'corpus');
  // The stdlib copy leaves site-packages out (EXCLUDE too); a prefix keeps everything but caches.
  const prefix = arg('--corpus') !== undefined || synthetic !== undefined;
  const exclude = prefix ? [] : EXCLUDE;
  if (synthetic !== undefined) {
    const made = writeSyntheticRepo(ws, Number(synthetic));
    console.log(`ingest-parallel: synthetic repository of ${made.files} files ${JSON.stringify(made.byLanguage)}; ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } else {
    cpSync(source, ws, { recursive: true, verbatimSymlinks: true, filter: (p) => !p.includes('__pycache__') && (prefix || !p.includes('site-packages')) });
    console.log(`ingest-parallel: corpus ${source} (copied${exclude.length ? `; excluded ${exclude.join(', ')}` : ''}); ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  }
  try {
    const single: Run[] = [];
    // One series of pool runs per worker nice asked for ('default': the engine's default).
    const nices = (arg('--nice') ?? 'default').split(',');
    const pools = new Map<string, Run[]>(nices.map((n) => [n, []]));
    const pooled = pools.get(nices[0])!;
    for (let i = 0; i < runs; i++) {
      if (only !== 'single') {
        for (const nice of nices) {
          pools.get(nice)!.push(ingestOnce(ws, join(work, 'store'), 'default', exclude, nice));
          console.log(line(`pool${nice === 'default' ? '' : ` (worker nice ${nice})`}, run ${i + 1}`, pools.get(nice)!.at(-1)!));
        }
      }
      if (only !== 'pool') {
        single.push(ingestOnce(ws, join(work, 'store'), '0', exclude));
        console.log(line(`single-thread (parseWorkers 0, baseline), run ${i + 1}`, single.at(-1)!));
      }
    }
    if (single.length && pooled.length) {
      const a = single[0];
      const b = pooled[0];
      if (a.nodes !== b.nodes || a.edges !== b.edges) throw new Error(`graphs differ: ${a.nodes}/${a.edges} vs ${b.nodes}/${b.edges}`);
      for (const [nice, runsOf] of pools) {
        const ratio = median(single.map((r) => r.wallMs)) / median(runsOf.map((r) => r.wallMs));
        const label = nice === 'default' ? 'pool' : `pool (worker nice ${nice})`;
        console.log(`ingest-parallel: ratio single ÷ ${label} (median wall) = ${ratio.toFixed(2)} (target ≥ 1.6 on 2 cores; CPU single ${(median(single.map((r) => r.cpuMs)) / 1000).toFixed(1)} s, pool ${(median(runsOf.map((r) => r.cpuMs)) / 1000).toFixed(1)} s); load average now ${os.loadavg()[0].toFixed(1)}`);
      }
    }
  } finally {
    if (keep === undefined) rmSync(work, { recursive: true, force: true });
    else console.log(`ingest-parallel: kept the corpus in ${join(work, 'corpus')} and the last run's store in ${join(work, 'store')}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));
