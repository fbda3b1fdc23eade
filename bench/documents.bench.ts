/**
 * Federation on the Python standard library split in two halves (top-level entries alphabetically,
 * each half a temp copy with its own pyproject.toml; the second depends on the first by package
 * name). Served from real hosts (the whole dispatch pipeline):
 *   singles — `ingest` of each half in its own workspace (best of two full ingests);
 *   federate — `ingest` of the first half, then `federate` of both (the second half ingested by
 *              the same engine, cross edges computed and stored);
 * prints federate ÷ the sum of the single ingests (target ≤ 1.2) and the cross-edge counts; then
 * the federated view: the first `seek` after federate (builds the namespaced graph, its seek index
 * and PageRank) and a warm one, against a `seek` on the workspace graph in the same host, with the
 * event loop's longest stall while the view builds.
 *
 *   node --import tsx bench/run.ts documents      (DOCS_VIEW_ONLY=1: no single ingests; DOCS_PROF=<dir>: CPU profiles + stretches; DOCS_TRACE=1: stretches over 8 ms and GCs over 2 ms;
 *   DOCS_ISOLATE=1: a scavenge empties the young generation before each measured phase, so a phase is not charged for
 *   tenuring what the one before it left there — federate's ingest of the second half, before the view's build;
 *   run in a child process with the young generation of `m1nd serve`, core/cli-heap.ts; M1ND_LEAN_HEAP=0: V8's default,
 *   M1ND_SEMI_SPACE_MB=<n>: held at n MB)
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { leanServerHeap, youngGeneration } from '../core/cli-heap.ts';
import { type Host, timedCall as timed } from './bench-host.ts';

const SKIP = new Set(['site-packages', '__pycache__', 'test', 'idlelib', 'tkinter', 'lib2to3', 'ensurepip']);

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds the main thread spent on a CPU (Linux), else wall time. */
const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();

async function serve(root: string, env: Record<string, string> = {}): Promise<Host> {
  return startHost({ workspaceRoot: root, config: { options: { graph: { watch: false } } }, env: { M1ND_TOOL_TIER: 'full', ...env }, log: createLogger(() => {}) });
}

/**
 * Main-thread CPU between two 1 ms timers while `work` runs: what held the event loop was this
 * process's own work (a loaded machine also deschedules the thread, which wall-clock stalls count).
 */
async function held<T>(work: () => Promise<T>, name?: string): Promise<{ result: T; max: number; over10: number; top: string[]; gc: string }> {
  let running = true;
  const stretches: number[] = [];
  // DOCS_PROF=<dir>: a CPU profile of the work (`<name>.cpuprofile`) and its stretches over 5 ms
  // (`<name>.gaps.json`, monotonic µs, the profile's clock) to cut it with.
  const dir = name ? process.env.DOCS_PROF : undefined;
  const trace = process.env.DOCS_TRACE === '1';
  const gaps: { start: number; end: number; cpu: number }[] = [];
  const us = (): number => Number(process.hrtime.bigint() / 1000n);
  let session: Session | null = null;
  if (dir) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const pinger = (async () => {
    for (let c = threadMs(), w = us(); running; ) {
      await new Promise((r) => setTimeout(r, 1));
      const now = threadMs();
      const wNow = us();
      stretches.push(now - c);
      if (now - c > 5) gaps.push({ start: w, end: wNow, cpu: now - c });
      // DOCS_TRACE=1: each stretch over 8 ms with its wall interval (performance.now, the clock of the GC lines below).
      if (trace && now - c > 8) console.log(`[stretch] ${name ?? ''} from ${(performance.now() - (wNow - w) / 1000).toFixed(0)} to ${performance.now().toFixed(0)} ms: ${(now - c).toFixed(1)} ms CPU`);
      c = now;
      w = wNow;
    }
  })();
  // DOCS_TRACE=1 also lists the GCs over 2 ms (same clock as the stretches): 1 scavenge, 4 mark-compact, 8 incremental marking.
  // Every GC's wall time by kind (scavenges, the rest), for the summary line.
  const scavenges: number[] = [];
  const others: number[] = [];
  const gcs = new PerformanceObserver((l) =>
    l.getEntries().forEach((x) => {
      const kind = (x as unknown as { detail?: { kind?: number } }).detail?.kind;
      (kind === 1 ? scavenges : others).push(x.duration);
      if (trace && x.duration > 2) console.log(`[gc] ${name ?? ''} kind ${kind} at ${x.startTime.toFixed(0)} ms: ${x.duration.toFixed(1)} ms wall`);
    }),
  );
  gcs.observe({ entryTypes: ['gc'] });
  if (trace) console.log(`[stretch] ${name ?? ''} starts at ${performance.now().toFixed(0)} ms; young generation ${youngMb()}`);
  const result = await work();
  running = false;
  gcs.disconnect();
  if (trace) console.log(`[stretch] ${name ?? ''} ends at ${performance.now().toFixed(0)} ms; young generation ${youngMb()}`);
  await pinger;
  if (session && dir) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    writeFileSync(join(dir, `${name}.gaps.json`), JSON.stringify(gaps));
    session.disconnect();
  }
  stretches.sort((a, b) => b - a);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const gc = `${scavenges.length} scavenges (${sum(scavenges).toFixed(0)} ms wall, longest ${Math.max(0, ...scavenges).toFixed(1)} ms), ${others.length} other GCs (${sum(others).toFixed(0)} ms, longest ${Math.max(0, ...others).toFixed(1)} ms)`;
  return { result, max: stretches[0] ?? 0, over10: stretches.filter((s) => s > 10).length, top: stretches.slice(0, 3).map((s) => s.toFixed(1)), gc };
}

/** DOCS_ISOLATE=1 (the child then runs with --expose-gc): a scavenge now, before a measured phase. */
function emptyYoungGeneration(): void {
  const gc = (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc;
  if (process.env.DOCS_ISOLATE === '1' && gc) gc({ type: 'minor' });
}

/** The young generation's committed size (the semi-spaces), for the DOCS_TRACE lines. */
function youngMb(): string {
  const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  return s ? `${(s.space_size / 2 ** 20).toFixed(1)} MB` : '?';
}

/**
 * Runs the benchmark in a child process started as `m1nd serve` starts (bench/server-heap.mjs holds the
 * young generation from its first line): this process's own has grown while the bench's modules loaded.
 */
async function inServerHeap(): Promise<void> {
  const isolate = process.env.DOCS_ISOLATE === '1' ? ['--expose-gc'] : [];
  const child = spawn(process.execPath, [...isolate, '--import', 'tsx', '--import', fileURLToPath(new URL('./server-heap.mjs', import.meta.url)), fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, DOCS_CHILD: '1' } });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`documents bench child exited with ${code}`);
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  if (process.env.DOCS_CHILD !== '1') return inServerHeap();
  // The young generation as `m1nd serve` keeps it (its scavenges are what pause the loop between slices).
  leanServerHeap();
  const young = youngGeneration();
  console.log(`heap: as \`m1nd serve\`: ${young.policy}${young.target_mb ? ` (grown to 2 × ${young.target_mb} MB, then held)` : ''}; now 2 × ${young.semi_space_mb} MB${process.env.DOCS_ISOLATE === '1' ? '; the young generation emptied before each measured phase (DOCS_ISOLATE=1)' : ''}`);
  const stdlib = execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const entries = readdirSync(stdlib).filter((e) => !SKIP.has(e) && !e.startsWith('.')).sort();
  const half = Math.ceil(entries.length / 2);
  const parent = mkdtempSync(join(tmpdir(), 'm1nd-federate-bench-'));
  const copy = (dir: string, names: string[], manifest: string) => {
    mkdirSync(dir, { recursive: true });
    for (const e of names) cpSync(join(stdlib, e), join(dir, e), { recursive: true, filter: (p) => !p.includes('__pycache__') });
    writeFileSync(join(dir, 'pyproject.toml'), manifest);
  };
  const first = entries.slice(0, half);
  const second = entries.slice(half);
  const libManifest = '[project]\nname = "stdlib_a"\n';
  const appManifest = '[project]\nname = "stdlib_b"\ndependencies = ["stdlib_a"]\n';
  copy(join(parent, 'a'), first, libManifest);
  copy(join(parent, 'b'), second, appManifest);
  copy(join(parent, 'b2'), second, appManifest);
  console.log(`halves: ${first.length} + ${second.length} top-level entries of ${stdlib}`);
  try {
    // Best of two full ingests: the first one in a process also pays the parsers' start-up.
    // DOCS_VIEW_ONLY=1 skips them (the view build's figures alone): the ratio line then says so.
    const best = async (h: Host) => [await timed(h, 'ingest', { path: '.' }), await timed(h, 'ingest', { path: '.' })].sort((x, y) => x.ms - y.ms)[0];
    const single = async (root: string) => {
      if (process.env.DOCS_VIEW_ONLY === '1') return { ms: 0, json: {} as any };
      const host = await serve(root);
      const r = await best(host);
      await host.close();
      return r;
    };
    const singleA = await single(join(parent, 'a'));
    const singleB = await single(join(parent, 'b'));
    // The federating workspace is a fresh copy of the second half, so nothing is reused.
    const hostF = await serve(join(parent, 'b2'), { M1ND_ALLOW_ROOTS: parent });
    const own = await timed(hostF, 'ingest', { path: '.' });
    const query = { query: 'parse an email header', top_k: 10 };
    // The workspace graph's first seek (its seek index and PageRank built by the engine's own slices,
    // before federate starts the view's build) is the same-run baseline for the view's build.
    emptyYoungGeneration();
    const plainHeld = await held(() => timed(hostF, 'seek', { ...query, agent_id: 'other' }), 'plain');
    const plain = plainHeld.result;
    const fed = await timed(hostF, 'federate', { repos: [{ name: 'b', path: '.' }, { name: 'a', path: join(parent, 'a') }], top_k: 0 });
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    emptyYoungGeneration();
    const viewHeld = await held(() => timed(hostF, 'seek', query), 'view');
    const viewFirst = viewHeld.result;
    lag.disable();
    const heldMax = viewHeld.max;
    const viewWarm = await timed(hostF, 'seek', query);
    const plainWarm = await timed(hostF, 'seek', { ...query, agent_id: 'other' });
    await hostF.close();
    const sum = singleA.ms + singleB.ms;
    const total = own.ms + fed.ms;
    console.log(`single ingests: a ${(singleA.ms / 1000).toFixed(2)} s (${singleA.json.nodes ?? '?'} nodes), b ${(singleB.ms / 1000).toFixed(2)} s; sum ${(sum / 1000).toFixed(2)} s`);
    console.log(`federate: own ingest ${(own.ms / 1000).toFixed(2)} s + federate ${(fed.ms / 1000).toFixed(2)} s = ${(total / 1000).toFixed(2)} s; ratio federate/sum ${sum > 0 ? `${(total / sum).toFixed(2)} (target ≤ 1.2)` : '— (DOCS_VIEW_ONLY: no single ingests)'}`);
    console.log(`view: first seek ${viewFirst.ms.toFixed(0)} ms (builds the namespaced graph; longest event-loop stall ${(lag.max / 1e6).toFixed(0)} ms wall, ${heldMax.toFixed(0)} ms of main-thread CPU), warm seek ${viewWarm.ms.toFixed(1)} ms vs workspace seek ${plainWarm.ms.toFixed(1)} ms (first ${plain.ms.toFixed(0)} ms); top hits ${viewWarm.json.results.slice(0, 3).map((r: any) => r.id).join(', ')}`);
    console.log(`main-thread stretches over 10 ms: view build ${viewHeld.over10} (top ${viewHeld.top.join(', ')} ms), workspace graph's first seek ${plainHeld.over10} (top ${plainHeld.top.join(', ')} ms)`);
    console.log(`GCs: view build ${viewHeld.gc}; workspace graph's first seek ${plainHeld.gc}; young generation now 2 × ${youngGeneration().semi_space_mb} MB`);
    console.log(`federated: ${fed.json.repos.map((r: any) => `${r.name} ${r.nodes} nodes`).join(', ')}; cross edges ${JSON.stringify(fed.json.cross_edges)}`);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
