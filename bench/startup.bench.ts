/**
 * Start-up of the installed CLI (bin/m1nd.js → the compiled bundle dist/m1nd.js), against a bare SDK
 * server script spawned in the same run, interleaved:
 * - spawn → initialize → tools/list (m1nd with every built-in plugin, empty workspace);
 * - `m1nd call health` in an empty workspace (a whole process: boot, one call, exit);
 * - a graph verb (`impact`) from a cold process on a ~400-file repository whose graph is stored.
 * dist/ is rebuilt first when it is missing or older than the sources, so the figures are of this code.
 * Each whole process's CPU (user + system, from /usr/bin/time when installed) is printed beside its wall
 * time: on a loaded machine the wall time is mostly waiting for a core.
 *
 * `node -e 0` runs interleaved too: `call health` is also printed as a ratio to it (Node's own start).
 *
 * Options (environment): BENCH_RUNS (7), BENCH_REPO_FILES (400); BENCH_GRAPH_REPO=DIR and
 * BENCH_GRAPH_NODE=ID time `impact` on that repository too (ingested first: e.g. nitro); BENCH_BASE_BIN=
 * another build's bin/m1nd.js runs the same processes with it, interleaved (a same-run before/after);
 * BENCH_VALGRIND=1 also counts the instructions of one `call health` and one `node -e 0` (and of the base
 * build's `call health`) under valgrind's cachegrind: ~20 s each, but a figure the machine's load does
 * not change (wall and CPU times on a shared 2-core machine vary by ±30%).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin/m1nd.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const REPO_FILES = Number(process.env.BENCH_REPO_FILES ?? 400);

const BARE = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
const s = new Server({ name: 'bare', version: '0' }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
await s.connect(new StdioServerTransport());
`;

/** The code cache folder of every m1nd process the bench starts (never the user's ~/.cache/m1nd). */
const CACHE_DIR = process.env.M1ND_CACHE_DIR ?? path.join(os.tmpdir(), 'm1nd-startup-cache');

async function timeStart(command: string, args: string[], cwd: string): Promise<number> {
  const t = performance.now();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, cwd, env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: CACHE_DIR }, stderr: 'ignore' }));
  await client.listTools();
  const ms = performance.now() - t;
  await client.close();
  return ms;
}

const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
/** CPU ms (user + system) of each timed process, by label. */
const cpuOf = new Map<string, number[]>();

/** Wall time of one whole `m1nd ARGS` process (its CPU recorded under `label`); throws when it fails. */
function timeProcess(args: string[], cwd: string, label = args[1] ?? args[0], bin = BIN): number {
  const env = { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: CACHE_DIR };
  const argv = [process.execPath, bin, ...args];
  const t = performance.now();
  const out = TIME ? spawnSync(TIME, ['-f', 'm1nd-cpu %U %S', ...argv], { cwd, encoding: 'utf8', env }) : spawnSync(argv[0], argv.slice(1), { cwd, encoding: 'utf8', env });
  const ms = performance.now() - t;
  if (out.status !== 0) throw new Error(`m1nd ${args.join(' ')} failed (${out.status}): ${out.stderr}${out.stdout.slice(0, 400)}`);
  const cpu = /m1nd-cpu ([\d.]+) ([\d.]+)/.exec(out.stderr);
  if (cpu) cpuOf.set(label, [...(cpuOf.get(label) ?? []), (Number(cpu[1]) + Number(cpu[2])) * 1000]);
  return ms;
}

/** Instructions executed by one whole process (all threads; valgrind cachegrind's `I refs`), or NaN when it cannot run. */
function instructions(argv: string[], cwd: string): number {
  const out = spawnSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--smc-check=all-non-file', '--cachegrind-out-file=/dev/null', ...argv], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: CACHE_DIR },
  });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(out.stderr ?? '');
  return out.status === 0 && refs ? Number(refs[1].replaceAll(',', '')) : NaN;
}

/** Wall time of one `node -e 0` (its CPU recorded under `node -e 0`): Node's own start and exit. */
function timeNode(cwd: string): number {
  const argv = [process.execPath, '-e', '0'];
  const t = performance.now();
  const out = TIME ? spawnSync(TIME, ['-f', 'm1nd-cpu %U %S', ...argv], { cwd, encoding: 'utf8' }) : spawnSync(argv[0], argv.slice(1), { cwd, encoding: 'utf8' });
  const ms = performance.now() - t;
  const cpu = /m1nd-cpu ([\d.]+) ([\d.]+)/.exec(out.stderr ?? '');
  if (cpu) cpuOf.set('node -e 0', [...(cpuOf.get('node -e 0') ?? []), (Number(cpu[1]) + Number(cpu[2])) * 1000]);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Rebuilds dist/ when the bundle is missing or older than any source it is built from. */
function ensureBuilt(): void {
  const bundle = path.join(ROOT, 'dist/m1nd.js');
  let newest = 0;
  const visit = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const d of ['core', 'plugins', 'bundles']) visit(path.join(ROOT, d));
  if (!fs.existsSync(bundle) || fs.statSync(bundle).mtimeMs < newest) {
    console.log('startup: building dist/ (npm run build): the bundle is missing or older than the sources');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }
}

/**
 * A TypeScript repository of `files` modules in folders of 20: each imports two earlier modules and
 * calls their functions, so the stored graph has imports, calls and a class per file.
 */
function writeRepo(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const folder = path.join(dir, 'src', `area${Math.floor(i / 20)}`);
    fs.mkdirSync(folder, { recursive: true });
    const deps = i === 0 ? [] : [Math.floor(i / 2), i - 1];
    const rel = (j: number) => path.relative(folder, path.join(dir, 'src', `area${Math.floor(j / 20)}`, `mod${j}.ts`)).replace(/^(?!\.)/, './');
    const imports = deps.map((j) => `import { step${j}, Worker${j} } from '${rel(j)}';`).join('\n');
    const calls = deps.map((j) => `  total += step${j}(n - 1);\n  total += new Worker${j}().run(n);`).join('\n');
    fs.writeFileSync(
      path.join(folder, `mod${i}.ts`),
      `${imports}\n\n/** Step ${i} of the pipeline. */\nexport function step${i}(n: number): number {\n  let total = n;\n${calls}\n  return total;\n}\n\nexport class Worker${i} {\n  run(n: number): number {\n    return step${i}(n) + ${i};\n  }\n}\n`,
    );
  }
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"bench-repo","private":true,"type":"module"}\n');
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  ensureBuilt();
  const bareFile = path.join(ROOT, 'bench', `.bare-server-${process.pid}.mjs`);
  fs.writeFileSync(bareFile, BARE);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-'));
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-repo-'));
  const bare: number[] = [];
  const nodeOnly: number[] = [];
  const m1nd: number[] = [];
  const health: number[] = [];
  const graphVerb: number[] = [];
  const corpusVerb: number[] = [];
  const base = process.env.BENCH_BASE_BIN;
  const baseWall = new Map<string, number[]>();
  const corpus = process.env.BENCH_GRAPH_REPO;
  const corpusNode = process.env.BENCH_GRAPH_NODE;
  const impactArgs = ['call', 'impact', `{"node_id":"step${REPO_FILES - 1}"}`];
  const corpusArgs = ['call', 'impact', JSON.stringify({ node_id: corpusNode })];
  // The base build gets its own empty workspace: a build whose health creates the store would
  // otherwise hand the other an existing (empty) store to open.
  const baseWs = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-base-'));
  const both = (label: string, args: string[], cwd: string, into: number[]) => {
    into.push(timeProcess(args, cwd, label));
    if (base) baseWall.set(label, [...(baseWall.get(label) ?? []), timeProcess(args, cwd === ws ? baseWs : cwd, `${label} (base build)`, base)]);
  };
  try {
    writeRepo(repo, REPO_FILES);
    timeProcess(['call', 'ingest', '{"path":"."}'], repo);
    if (corpus) timeProcess(['call', 'ingest', '{"path":"."}'], corpus);
    // One untimed run of each, so the OS file cache is warm for every measured one.
    await timeStart(process.execPath, [bareFile], ROOT);
    timeProcess(['call', 'health'], ws);
    if (base) timeProcess(['call', 'health'], baseWs, 'health (base build)', base);
    cpuOf.clear();
    for (let i = 0; i < RUNS; i++) {
      bare.push(await timeStart(process.execPath, [bareFile], ROOT));
      nodeOnly.push(timeNode(ws));
      m1nd.push(await timeStart(process.execPath, [BIN, 'serve', '--workspace', ws], ROOT));
      if (base) baseWall.set('tools/list', [...(baseWall.get('tools/list') ?? []), await timeStart(process.execPath, [base, 'serve', '--workspace', baseWs], ROOT)]);
      both('health', ['call', 'health'], ws, health);
      both('impact', impactArgs, repo, graphVerb);
      if (corpus) both('impact on the corpus', corpusArgs, corpus, corpusVerb);
    }
  } finally {
    fs.rmSync(bareFile, { force: true });
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(baseWs, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  }
  const b = median(bare);
  const m = median(m1nd);
  const h = median(health);
  const g = median(graphVerb);
  console.log(`startup: spawn → initialize → tools/list: bare SDK server median ${b.toFixed(0)} ms, m1nd (all built-in plugins, from dist/) median ${m.toFixed(0)} ms over ${RUNS} runs each`);
  console.log(`startup: ratio m1nd/bare = ${(m / b).toFixed(2)}`);
  const n = median(nodeOnly);
  console.log(`startup: m1nd call health (empty workspace, whole process) median ${h.toFixed(0)} ms (ratio to the bare server's start ${(h / b).toFixed(2)}; \`node -e 0\` median ${n.toFixed(0)} ms, ratio ${(h / n).toFixed(2)})`);
  console.log(`startup: m1nd call impact from a cold process, ${REPO_FILES}-file repository with its graph stored: median ${g.toFixed(0)} ms (ratio to the bare server's start ${(g / b).toFixed(2)})`);
  if (corpus) {
    const c = median(corpusVerb);
    console.log(`startup: m1nd call impact ${corpusNode} from a cold process in ${corpus}: median ${c.toFixed(0)} ms (ratio to the bare server's start ${(c / b).toFixed(2)})`);
  }
  if (process.env.BENCH_VALGRIND === '1') {
    const ws2 = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-vg-'));
    try {
      const node0 = instructions([process.execPath, '-e', '0'], ws2);
      const mine = instructions([process.execPath, BIN, 'call', 'health'], ws2);
      const line = `startup: instructions (valgrind): node -e 0 ${(node0 / 1e6).toFixed(0)}M; m1nd call health ${(mine / 1e6).toFixed(0)}M (${(mine / node0).toFixed(2)}× node -e 0; ${((mine - node0) / 1e6).toFixed(0)}M above it)`;
      if (base) {
        const theirs = instructions([process.execPath, base, 'call', 'health'], fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-startup-vgb-')));
        console.log(`${line}; base build ${(theirs / 1e6).toFixed(0)}M (${((theirs - node0) / 1e6).toFixed(0)}M above it; this build's part ÷ base's ${((mine - node0) / (theirs - node0)).toFixed(2)})`);
      } else console.log(line);
    } finally {
      fs.rmSync(ws2, { recursive: true, force: true });
    }
  }
  const cpuNode = cpuOf.get('node -e 0');
  cpuOf.delete('node -e 0');
  if (cpuNode) console.log(`startup: CPU (user + system) of node -e 0: median ${median(cpuNode).toFixed(0)} ms over ${cpuNode.length} runs; m1nd call health ÷ node -e 0 = ${(median(cpuOf.get('health') ?? [NaN]) / median(cpuNode)).toFixed(2)}`);
  for (const [label, xs] of cpuOf) console.log(`startup: CPU (user + system) of m1nd call ${label}: median ${median(xs).toFixed(0)} ms over ${xs.length} runs`);
  const baseList = baseWall.get('tools/list');
  baseWall.delete('tools/list');
  if (baseList) console.log(`startup: spawn → initialize → tools/list, base build ${base}: median ${median(baseList).toFixed(0)} ms; ratio base/bare = ${(median(baseList) / b).toFixed(2)}; this build ÷ base = ${(m / median(baseList)).toFixed(2)}`);
  for (const [label, xs] of baseWall) {
    const mine = label === 'health' ? h : label === 'impact' ? g : median(corpusVerb);
    console.log(`startup: m1nd call ${label}, base build ${base}: median ${median(xs).toFixed(0)} ms wall; this build ÷ base = ${(mine / median(xs)).toFixed(2)} (wall), ${(median(cpuOf.get(label) ?? [NaN]) / median(cpuOf.get(`${label} (base build)`) ?? [NaN])).toFixed(2)} (CPU)`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
