/**
 * Is the server responsive during an ingest? `m1nd serve --http` is spawned on a copy of the Python
 * standard library (the engine benchmark's corpus, or --corpus DIR); one MCP session runs a full
 * ingest while another sends an MCP ping every 10 ms on a fixed schedule (not waiting for answers,
 * so a held event loop delays every ping it holds up). Prints the ping latency p50/p99/max while
 * idle and during the ingest, the ingest's wall time, and the server's peak RSS — once with the
 * parse workers off (single-threaded: the baseline, same run) and once with the default pool.
 *
 * `--nice 0,10` runs the pool once per listed worker nice (graph option `workerNice`).
 *
 *   node --import tsx/esm bench/run.ts ingest-ping      (or: bench/ingest-ping.bench.ts [--corpus DIR] [--only pool] [--nice A,B])
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pct } from './bench-host.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXCLUDE = ['test/**', 'site-packages/**'];
const PING_EVERY_MS = 10;
const IDLE_PINGS = 200;


async function startServer(ws: string, storeDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/m1nd.js'), 'serve', '--http', '--port', '0', '--workspace', ws], {
    cwd: ws,
    env: { ...process.env, M1ND_STORE_DIR: storeDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.once('exit', (code) => {
    if (code) console.error(`m1nd serve exited with ${code}: ${err.slice(-2000)}`);
  });
  const url = await new Promise<string>((res, rej) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+)/.exec(err);
      if (m) res(m[1]);
    });
    child.once('exit', () => rej(new Error(`m1nd serve exited: ${err}`)));
  });
  return { child, url };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench-ingest-ping', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * Pings every PING_EVERY_MS until `stop()`, one at a time. A ping that takes L ms stands for the
 * pings that would have been due meanwhile too: they are recorded as L − 10, L − 20, … ms (the
 * usual correction for coordinated omission), so a held server loop weighs by how long it held.
 */
function pinger(client: Client, serverPid: number): { stop: () => Promise<number[]>; held: number[]; waited: number[] } {
  const latencies: number[] = [];
  const held: number[] = [];
  const waited: number[] = [];
  let cpu = mainThreadMs(serverPid);
  let queued = mainThreadWaitMs(serverPid);
  let stopped = false;
  let resets = 0;
  const loop = (async () => {
    let next = performance.now();
    while (!stopped) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (stopped) break;
      const sent = performance.now();
      try {
        await client.ping();
      } catch {
        // A keep-alive connection the server closed while idle resets once; the ping is resent.
        resets++;
        await client.ping();
      }
      const took = performance.now() - sent;
      latencies.push(took);
      const c = mainThreadMs(serverPid);
      held.push(c - cpu);
      cpu = c;
      const w = mainThreadWaitMs(serverPid);
      waited.push(w - queued);
      queued = w;
      for (let missed = took - PING_EVERY_MS; missed > PING_EVERY_MS; missed -= PING_EVERY_MS) latencies.push(missed);
      next = Math.max(sent + PING_EVERY_MS, performance.now());
    }
  })();
  return {
    held,
    waited,
    stop: async () => {
      stopped = true;
      await loop;
      if (resets > 0) console.log(`ingest-ping: ${resets} ping(s) resent after a connection reset`);
      return latencies;
    },
  };
}

/**
 * Milliseconds the server's main thread has run on a CPU so far (Linux schedstat). Between two ping
 * answers it is the main-thread work a ping could have waited on, without the time a loaded machine
 * kept the thread off the CPU (which inflates the wall-clock latencies).
 */
function mainThreadMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/**
 * Milliseconds the server's main thread has waited for a CPU while runnable so far (schedstat's
 * second field): between two ping answers, how long a ping waited for a core rather than for work.
 */
function mainThreadWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system, every thread) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface ModeResult {
  ingestMs: number;
  files: number;
  nodes: number;
  edges: number;
  workers: number;
}

async function measure(label: string, ws: string, storeDir: string, parseWorkers: number | undefined, workerNice?: number): Promise<ModeResult> {
  const options = { graph: { watch: false, typeCheck: false, exclude: EXCLUDE, ...(parseWorkers === undefined ? {} : { parseWorkers }), ...(workerNice === undefined ? {} : { workerNice }) } };
  writeFileSync(join(ws, 'm1nd.config.mjs'), `export default ${JSON.stringify({ options })};\n`);
  const { child, url } = await startServer(ws, storeDir);
  const fmt = (xs: number[]): string => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} samples)`;
  try {
    const worker = await connect(url);
    const probe = await connect(url);
    await probe.ping();
    // First-use start-up that is not the ingest's: the tokenizer's tables load with the first tool result's token count.
    await worker.callTool({ name: 'health', arguments: { agent_id: 'bench' } });
    const idle = pinger(probe, child.pid!);
    await new Promise((r) => setTimeout(r, IDLE_PINGS * PING_EVERY_MS));
    const idleLat = await idle.stop();
    const during = pinger(probe, child.pid!);
    const cpu0 = cpuSeconds(child.pid!);
    const t = performance.now();
    const res = await worker.callTool({ name: 'ingest', arguments: { agent_id: 'bench', path: ws, wait_precise: false } }, undefined, { timeout: 3_600_000 });
    const ingestMs = performance.now() - t;
    const cpu = cpuSeconds(child.pid!) - cpu0;
    const duringLat = await during.stop();
    if (res.isError) throw new Error(`ingest failed: ${JSON.stringify(res.content)}`);
    const text = (res.content as { type: string; text: string }[]).find((c) => c.type === 'text')!.text;
    const s = JSON.parse(text.slice(text.indexOf('{'))) as { files: { parsed: number }; nodes: number; edges: number; parseWorkers: number };
    console.log(`ingest-ping: ${label}: ingest ${(ingestMs / 1000).toFixed(2)} s (${s.files.parsed} files → ${s.nodes} nodes, ${s.edges} edges; parse workers ${s.parseWorkers}); server CPU ${cpu.toFixed(1)} s (${(cpu / (ingestMs / 1000)).toFixed(2)} cores busy on average); server peak RSS ${peakRssMb(child.pid!).toFixed(0)} MB`);
    console.log(`ingest-ping: ${label}: ping idle ${fmt(idleLat)}; during ingest ${fmt(duringLat)}; target p99 ≤ 50 ms ${pct(duringLat, 99) <= 50 ? 'met' : 'missed'}`);
    const heldMs = during.held.filter((x) => Number.isFinite(x));
    if (heldMs.length > 0) {
      console.log(`ingest-ping: ${label}: server main-thread CPU between two ping answers during the ingest: p50 ${pct(heldMs, 50).toFixed(1)} ms, p99 ${pct(heldMs, 99).toFixed(1)} ms, max ${Math.max(...heldMs).toFixed(0)} ms (the longest the loop was held, machine load aside)`);
    }
    const waitedMs = during.waited.filter((x) => Number.isFinite(x));
    if (waitedMs.length > 0) {
      console.log(`ingest-ping: ${label}: server main thread waiting for a core between two ping answers during the ingest: p50 ${pct(waitedMs, 50).toFixed(1)} ms, p99 ${pct(waitedMs, 99).toFixed(1)} ms, max ${Math.max(...waitedMs).toFixed(0)} ms, ${(waitedMs.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s in all`);
    }
    await worker.close();
    await probe.close();
    return { ingestMs, files: s.files.parsed, nodes: s.nodes, edges: s.edges, workers: s.parseWorkers };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Runs the benchmark and prints its lines. */
export async function run(argv: string[] = []): Promise<void> {
  const corpusArg = argv.indexOf('--corpus');
  const onlyArg = argv.indexOf('--only');
  const source = corpusArg >= 0 ? argv[corpusArg + 1] : execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const work = mkdtempSync(join(tmpdir(), 'm1nd-ingest-ping-'));
  const ws = join(work, 'corpus');
  cpSync(source, ws, { recursive: true, filter: (p) => !p.includes('__pycache__') && !p.includes('site-packages') });
  writeFileSync(join(ws, 'package.json'), '{"type":"module"}\n');
  console.log(`ingest-ping: corpus ${source} (copied; excluded ${EXCLUDE.join(', ')}); ping every ${PING_EVERY_MS} ms`);
  try {
    const only = onlyArg >= 0 ? argv[onlyArg + 1] : null;
    const single = only === 'pool' ? null : await measure('single-thread (parseWorkers 0, baseline)', ws, join(work, 'store-single'), 0);
    const niceArg = argv.indexOf('--nice');
    const nices = niceArg >= 0 ? argv[niceArg + 1].split(',').map(Number) : [undefined];
    for (const nice of only === 'single' ? [] : nices) {
      const label = `parse pool (default: one worker per core${nice === undefined ? '' : `, worker nice ${nice}`})`;
      const pooled = await measure(label, ws, join(work, `store-pool-${nice ?? 'default'}`), undefined, nice);
      if (!single) continue;
      if (single.nodes !== pooled.nodes || single.edges !== pooled.edges) throw new Error(`graphs differ: ${single.nodes}/${single.edges} vs ${pooled.nodes}/${pooled.edges}`);
      console.log(`ingest-ping: single-thread ÷ ${label} ingest time ${(single.ingestMs / pooled.ingestMs).toFixed(2)} (${pooled.workers} workers)`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));
