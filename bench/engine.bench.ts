/**
 * Engine benchmark on the Python standard library (a temp copy; the engine's normal skip rules plus
 * the top-level `test/` regression suite and `site-packages/` excluded; sub-package tests such as
 * `ctypes/test/` stay in — the same 970-file, ~394K-line corpus as the parser spike).
 * Prints: full ingest time and lines/s, ingest ÷ (read+parse floor measured in the same run),
 * incremental re-ingest of one changed file, seek and search p50/p99, literal search ÷ ripgrep on
 * the same files (the installed rg's version; its process start measured and shown), RSS after
 * loading the stored graph in a fresh process (median of three) from sources (tsx) and from the built dist/ (built
 * with `npm run build` when missing or older than the sources, or always with --build), node and edge counts.
 *
 *   node --import tsx bench/engine.bench.ts [--corpus DIR] [--build]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import { loadDefaultParser } from '../plugins/graph/engine/source-parser.ts';
import { walkWorkspace } from '../plugins/graph/engine/walk.ts';
import { pct } from './bench-host.ts';

const EXCLUDE = ['test/**', 'site-packages/**'];
const argv = process.argv.slice(2);

const fmt = (x: number, d = 1): string => x.toFixed(d);

async function main(): Promise<void> {
  const corpusArg = argv.indexOf('--corpus');
  const source = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const work = mkdtempSync(join(tmpdir(), 'm1nd-bench-'));
  const root = join(work, 'corpus');
  console.log(`corpus: ${source} (copied to ${root}); excluded: ${EXCLUDE.join(', ')}`);
  cpSync(source, root, { recursive: true, filter: (p) => !p.includes('__pycache__') && !p.includes('site-packages') });

  const parser = await loadDefaultParser();
  const walk = walkWorkspace({ root, maxFileBytes: 1024 * 1024, exclude: EXCLUDE, detectLanguage: parser.detectLanguage });
  const files = walk.files;
  // The floor: what any ingest must do at least — read every file and run the parser on it.
  const extractors = new Map<string, Awaited<ReturnType<typeof parser.extractorFor>>>();
  for (const f of files) if (!extractors.has(f.language)) extractors.set(f.language, await parser.extractorFor(f.language));
  const floor = (): number => {
    const t = performance.now();
    for (const f of files) extractors.get(f.language)!(f.path, readFileSync(join(root, f.path), 'utf8'));
    return performance.now() - t;
  };
  let lines = 0;
  for (const f of files) lines += readFileSync(join(root, f.path), 'utf8').split('\n').length;

  const floors: number[] = [];
  const ingests: number[] = [];
  let summary = null as Awaited<ReturnType<CodeGraphEngine['ingest']>> | null;
  let storeDir = '';
  // Interleaved pairs: this VM drifts between a fast and a slow state, so each ingest is compared
  // with the floor measured right before it.
  for (let run = 0; run < 5; run++) {
    floors.push(floor());
    storeDir = join(work, `store-${run}`);
    const e = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE, parser });
    await e.open();
    const t = performance.now();
    summary = await e.ingest();
    ingests.push(performance.now() - t);
    await e.close();
  }
  const best = Math.min(...ingests);
  const floorBest = Math.min(...floors);
  console.log(`files: ${files.length} (${lines} lines); skipped: ${JSON.stringify(summary!.skippedByReason)}`);
  console.log(`full ingest: best ${fmt(best)} ms of [${ingests.map((x) => fmt(x, 0)).join(', ')}], ${fmt(lines / (best / 1000) / 1000, 0)}k lines/s; phases ${JSON.stringify(summary!.phases)}`);
  const pairRatios = ingests.map((x, i) => x / floors[i]);
  console.log(
    `read+parse floor: best ${fmt(floorBest)} ms of [${floors.map((x) => fmt(x, 0)).join(', ')}]; ratio ingest/floor: best/best ${fmt(best / floorBest, 2)}, ` +
      `median of pairs ${fmt(pct(pairRatios, 50), 2)} [${pairRatios.map((x) => fmt(x, 2)).join(', ')}]`,
  );
  console.log(`graph: ${summary!.nodes} nodes, ${summary!.edges} edges ${JSON.stringify(summary!.edgesByRelation)}; imports ${JSON.stringify(summary!.imports)}`);

  // Incremental: edit one file, re-ingest (walk-based and path-based).
  const e = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE, parser });
  await e.open();
  const target = 'json/decoder.py';
  const incWalk: number[] = [];
  const incPaths: number[] = [];
  const incWalkPhase: number[] = [];
  for (let i = 0; i < 7; i++) {
    appendFileSync(join(root, target), `\n\ndef _bench_added_${i}(x):\n    return JSONDecoder().decode(x)\n`);
    let t = performance.now();
    const s1 = await e.ingest({ incremental: true });
    incWalk.push(performance.now() - t);
    incWalkPhase.push(s1.phases.walk);
    if (s1.files.parsed !== 1) throw new Error(`expected 1 parsed file, got ${s1.files.parsed}`);
    appendFileSync(join(root, target), `\n\ndef _bench_path_${i}(x):\n    return x\n`);
    t = performance.now();
    await e.ingest({ paths: [target] });
    incPaths.push(performance.now() - t);
  }
  console.log(`incremental, one changed file: walk-based p50 ${fmt(pct(incWalk, 50))} ms (its walk ${fmt(pct(incWalkPhase, 50))} ms: the directory cache re-stats the files when no directory changed), path-based (watcher) p50 ${fmt(pct(incPaths, 50))} ms`);

  // seek
  const g = e.graph;
  const labels: string[] = [];
  for (const [, n] of g.nodes()) if (n.kind === 'function' || n.kind === 'class' || n.kind === 'method') labels.push(n.label);
  const seekQueries = ['parse header', 'http client connection', 'json decode', 'thread pool executor', 'email message', 'socket timeout', 'read config file', 'zip file', 'asyncio event loop', 'unicode normalize'];
  for (let i = 0; i < 90; i++) seekQueries.push(labels[(i * 7919) % labels.length].replace(/_/g, ' '));
  let t0 = performance.now();
  e.seek('warm up');
  const firstSeek = performance.now() - t0;
  const seekMs: number[] = [];
  for (const q of seekQueries) {
    const t = performance.now();
    e.seek(q, { topK: 20 });
    seekMs.push(performance.now() - t);
  }
  console.log(`seek (${seekQueries.length} queries): first query (builds the index + PageRank) ${fmt(firstSeek, 0)} ms, then p50 ${fmt(pct(seekMs, 50), 2)} ms, p99 ${fmt(pct(seekMs, 99), 2)} ms; e.g. "http client connection" → ${e.seek('http client connection', { topK: 3 }).results.map((r) => r.id).join(', ')}`);

  // search
  t0 = performance.now();
  e.warmSearchCache();
  console.log(`search cache warm-up (read every file after open): ${fmt(performance.now() - t0, 0)} ms`);
  const literalQueries = ['def __init__', 'import os', 'raise ValueError', 'self._lock', 'XXX', 'socket.timeout', 'zzq_not_there', 'return None', 'encoding=', 'class '];
  const regexQueries = ['def \\w+_test\\(', 'raise \\w+Error\\(', '^import \\w+$', 'self\\.\\w+ = None', '\\bTODO\\b'];
  const searchMs: number[] = [];
  for (const q of literalQueries) for (const cs of [false, true]) {
    const t = performance.now();
    e.search(q, { caseSensitive: cs });
    searchMs.push(performance.now() - t);
  }
  for (const q of regexQueries) {
    const t = performance.now();
    e.search(q, { mode: 'regex' });
    searchMs.push(performance.now() - t);
  }
  console.log(`search (${searchMs.length} queries, top 50 with context): p50 ${fmt(pct(searchMs, 50), 2)} ms, p99 ${fmt(pct(searchMs, 99), 2)} ms`);

  // literal search vs ripgrep, all matches, same files. rg is a process per query: its time includes
  // process start, measured separately (median `rg --version`) and also reported subtracted.
  const rg = spawnSync('rg', ['--version'], { encoding: 'utf8' });
  if (rg.status === 0) {
    const rgVersion = rg.stdout.split('\n')[0].trim();
    const starts: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t = performance.now();
      spawnSync('rg', ['--version']);
      starts.push(performance.now() - t);
    }
    const start = pct(starts, 50);
    const paths = e.filePaths();
    const ratios: string[] = [];
    const ours: number[] = [];
    const theirs: number[] = [];
    for (const q of ['import os', 'def __init__', 'raise ValueError', 'zzq_not_there']) {
      const o: number[] = [];
      const r: number[] = [];
      let oursCount = 0;
      let rgCount = 0;
      for (let i = 0; i < 5; i++) {
        let t = performance.now();
        oursCount = e.search(q, { caseSensitive: true, contextLines: 0, maxResults: 1e9 }).totalMatches;
        o.push(performance.now() - t);
        t = performance.now();
        const out = spawnSync('rg', ['-n', '--no-heading', '-F', '-j2', q, '--', ...paths], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
        r.push(performance.now() - t);
        rgCount = out.stdout ? out.stdout.split('\n').filter(Boolean).length : 0;
      }
      ours.push(pct(o, 50));
      theirs.push(pct(r, 50));
      ratios.push(`"${q}" ${fmt(pct(o, 50), 1)} vs ${fmt(pct(r, 50), 1)} ms (${oursCount}/${rgCount} lines)`);
    }
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    const withoutStart = theirs.map((x) => Math.max(0.1, x - start));
    console.log(
      `literal search vs ${rgVersion} (all matching lines, same ${paths.length} files; rg times include process start, median ${fmt(start, 1)} ms): ` +
        `ratio ${fmt(sum(ours) / sum(theirs), 2)}, ${fmt(sum(ours) / sum(withoutStart), 2)} with rg's process start subtracted; ${ratios.join('; ')}`,
    );
  } else {
    console.log('literal search vs ripgrep: skipped (rg is not installed: `rg --version` failed)');
  }
  await e.close();

  // RSS after loading the stored graph in a fresh process: from sources (through tsx) and from the built dist/.
  const here = dirname(fileURLToPath(import.meta.url));
  const repo = dirname(here);
  const child = join(here, 'load-child.mjs');
  const distEngine = join(repo, 'dist/plugins/graph/engine/engine.js');
  // Rebuilt when missing or older than the engine's sources, so the from-dist figure is of this code.
  const newestSource = Math.max(...['plugins/graph/engine', 'plugins/graph/algorithms', 'core'].flatMap((d) => readdirSync(join(repo, d)).filter((f) => f.endsWith('.ts')).map((f) => statSync(join(repo, d, f)).mtimeMs)));
  if (!existsSync(distEngine) || statSync(distEngine).mtimeMs < newestSource || argv.includes('--build')) {
    console.log('building dist/ (npm run build) for the from-dist measurement');
    execFileSync('npm', ['run', 'build'], { cwd: repo, stdio: 'ignore' });
  }
  const mb = (x: number): string => fmt(x / 1024 / 1024, 0);
  // Three fresh processes per mode, interleaved (RSS after an allocation burst varies by a few MB
  // with what the young generation touched last): the median, with the range.
  // Each as `m1nd serve` runs (its heap setting, core/cli-heap.ts), and dist/ also with V8's default
  // heap (M1ND_LEAN_HEAP=0) as the same-run baseline of that setting.
  const modes = [
    ['from sources through tsx', ['--import', 'tsx'], join(repo, 'plugins/graph/engine/engine.ts'), '1'],
    ['from the built dist/', [], distEngine, '1'],
    ["from the built dist/ with V8's default heap (M1ND_LEAN_HEAP=0)", [], distEngine, '0'],
  ] as const;
  type ChildResult = { openMs: number; rss: number; baseline: number; heapUsed: number; nodes: number; edges: number };
  const results = new Map<string, ChildResult[]>(modes.map(([label]) => [label, []]));
  for (let run = 0; run < 3; run++) {
    for (const [label, nodeArgs, engineModule, lean] of modes) {
      const out = spawnSync(process.execPath, ['--expose-gc', ...nodeArgs, child, engineModule, root, storeDir, EXCLUDE.join(',')], { cwd: repo, encoding: 'utf8', env: { ...process.env, M1ND_LEAN_HEAP: lean } });
      if (out.status !== 0) console.log(`fresh-process load ${label} failed: ${out.stderr}`);
      else results.get(label)!.push(JSON.parse(out.stdout) as ChildResult);
    }
  }
  for (const [label] of modes) {
    const rs = results.get(label)!.sort((a, b) => a.rss - b.rss);
    if (rs.length === 0) continue;
    const r = rs[Math.floor(rs.length / 2)];
    console.log(
      `fresh process ${label} (median of ${rs.length}): open (load stored graph, no parsing) ${fmt(r.openMs, 0)} ms; RSS after load + seek index + search cache ${mb(r.rss)} MB ` +
        `[${rs.map((x) => mb(x.rss)).join(', ')}] (process before importing the engine: ${mb(r.baseline)} MB; engine code + graph + indexes + cache ${mb(r.rss - r.baseline)} MB; JS heap ${mb(r.heapUsed)} MB); ${r.nodes} nodes, ${r.edges} edges`,
    );
  }
  rmSync(work, { recursive: true, force: true });
}

await main();
