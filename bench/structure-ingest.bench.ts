/**
 * What the structure plugin's parse extensions add to a full ingest of the Python stdlib (1,786
 * files; a raw engine, default parse workers): none, the built-in findings (ingest-findings.ts, what
 * the plugin registers), and the findings plus the definition shapes `twins` reads
 * (structure-shapes-extension.ts, bench only). Runs alternate (none, findings, both) `--reps` times;
 * each prints wall, process CPU (all threads) and main-thread CPU, then the medians and the ratios
 * to "none" of the same run. Target (issue 11/17): stdlib ingest ≤ 6 s.
 *
 *   node --import tsx bench/structure-ingest.bench.ts [--corpus DIR] [--reps 2]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import { findingsExtensionSpec } from '../plugins/structure/ingest-findings.ts';

const EXCLUDE = ['site-packages/**'];
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const mainMs = (): number => (existsSync(schedstat) ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : 0);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x: number): string => x.toFixed(0);

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const root = arg('--corpus') ?? execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
const reps = Number(arg('--reps') ?? 2);
const shapes = { key: 'bench.shapes', version: '1', module: pathToFileURL(join(import.meta.dirname, 'structure-shapes-extension.ts')).href, languages: ['python', 'typescript', 'tsx', 'javascript'] as const, budgetMs: 5000 };
const configs = { none: [], findings: [findingsExtensionSpec()], 'findings+shapes': [findingsExtensionSpec(), { ...shapes, languages: [...shapes.languages] }] };

const results: Record<string, { wall: number[]; cpu: number[]; main: number[] }> = {};
for (let r = 0; r < reps; r++) {
  for (const [name, specs] of Object.entries(configs)) {
    const dir = mkdtempSync(join(tmpdir(), 'm1nd-structure-ingest-'));
    try {
      const engine = new CodeGraphEngine({ root, storeDir: dir, exclude: EXCLUDE, typeCheck: false });
      for (const s of specs) engine.registerParseExtension(s);
      await engine.open();
      const c0 = process.cpuUsage();
      const m0 = mainMs();
      const t0 = performance.now();
      const summary = await engine.ingest();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const cpu = (c.user + c.system) / 1000;
      const main = mainMs() - m0;
      const rep = engine.parseExtensionReport();
      await engine.close();
      (results[name] ??= { wall: [], cpu: [], main: [] }).wall.push(wall);
      results[name].cpu.push(cpu);
      results[name].main.push(main);
      const extra = Object.entries(rep).map(([k, v]) => `${k} ${v.stored}/${v.files} stored, ${fmt(v.ms)} ms`).join('; ');
      console.log(`structure-ingest: ${name.padEnd(15)} run ${r + 1}: ${fmt(wall)} ms wall, cpu ${fmt(cpu)} ms, main thread ${fmt(main)} ms, ${summary.files.parsed} files, ${summary.parseWorkers} workers${extra ? `; ${extra}` : ''}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
const base = results.none;
for (const [name, x] of Object.entries(results)) {
  console.log(`structure-ingest: ${name.padEnd(15)} median ${fmt(median(x.wall))} ms wall (×${(median(x.wall) / median(base.wall)).toFixed(2)}), cpu ${fmt(median(x.cpu))} ms (×${(median(x.cpu) / median(base.cpu)).toFixed(2)}), main thread ${fmt(median(x.main))} ms  (target ≤ 6000 wall)`);
}
