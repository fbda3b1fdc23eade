/**
 * The memory family on the Python standard library with 1,000 claims stored. Ingests with the
 * engine into a temp store, serves it from a real host (the whole dispatch pipeline), then:
 *   memorize — one claim per call, anchored to a symbol (hash of its text, near-duplicate scan over
 *              every stored claim, one transaction), ÷ a bare store write of the same row;
 *   orient / north — over ~100 task texts with 1,000 claims stored, ÷ seek through the host.
 * The stdlib is not ours to write into, so the Markdown mirror is off there; a second run on a
 * temp copy of a few stdlib files measures memorize with the mirror on.
 *
 *   node --import tsx bench/memory.bench.ts
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import type { GraphService } from '../plugins/graph/service.ts';
import { pct } from './bench-host.ts';

const EXCLUDE = ['site-packages/**'];
const CLAIMS = 1000;
const TASKS = 100;

const fmt = (x: number) => x.toFixed(2);

type Host = Awaited<ReturnType<typeof startHost>>;

async function timed(host: Host, verb: string, args: Record<string, unknown>): Promise<number> {
  const t = performance.now();
  const r = await host.call(verb, { agent_id: 'bench', ...args });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${verb} failed: ${(r.content as { text: string }[])[0].text}`);
  return ms;
}

/** Stores one claim per symbol (the first `count` functions), timing each memorize and a bare store write. */
async function fill(host: Host, count: number): Promise<{ memorize: number[]; bare: number[]; symbols: string[] }> {
  const service = host.current.services.get('graph')!.impl as GraphService;
  const symbols = [...service.engine.filePaths()]
    .flatMap((p) => service.engine.graph.outgoing(`file:${p}`, 'contains').map((e) => e.target))
    .filter((id) => id.startsWith('function:'))
    .slice(0, count);
  const memorize: number[] = [];
  const bare: number[] = [];
  for (const [i, id] of symbols.entries()) {
    const text = `claim ${i}: ${id.split('#')[1]} in ${id.split(':')[1].split('#')[0]} handles case ${i * 7919} of its input`;
    memorize.push(await timed(host, 'memorize', { agent_id: `agent${i % 5}`, claims: [{ text, evidence: [id] }] }));
    const t = performance.now();
    service.engine.memory.set('bench.bare', `k${i}`, { text, evidence: [{ kind: 'node', node: id, hash: '0'.repeat(16) }] });
    bare.push(performance.now() - t);
  }
  return { memorize, bare, symbols };
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const root = execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const storeDir = mkdtempSync(join(tmpdir(), 'm1nd-memory-bench-'));
  try {
    const engine = new CodeGraphEngine({ root, storeDir, exclude: EXCLUDE, typeCheck: false });
    await engine.open();
    const t0 = performance.now();
    await engine.ingest();
    console.log(`memory: corpus ${root}, ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await engine.close();
    const host = await startHost({
      workspaceRoot: root,
      config: { options: { graph: { watch: false, exclude: EXCLUDE }, memory: { mirror: false, maxClaimsPerAgent: 10_000 } } },
      env: { M1ND_STORE_DIR: storeDir, M1ND_TOOL_TIER: 'full' },
      log: createLogger(() => {}),
    });
    try {
      await timed(host, 'health', {});
      const { memorize, bare, symbols } = await fill(host, CLAIMS);
      const late = memorize.slice(-200);
      console.log(`memory: ${symbols.length} claims stored`);
      console.log(`memory: memorize (1 claim)  p50 ${fmt(pct(memorize, 50))} ms  p99 ${fmt(pct(memorize, 99))} ms  last 200 p50 ${fmt(pct(late, 50))} ms  (target ≤ 10)   bare store write p50 ${fmt(pct(bare, 50))} ms   ratio ${(pct(memorize, 50) / pct(bare, 50)).toFixed(1)}`);
      const tasks = symbols.filter((_, i) => i % Math.max(1, Math.floor(symbols.length / TASKS)) === 0).slice(0, TASKS).map((id) => `change how ${id.split('#')[1].replace(/_/g, ' ')} handles its input`);
      const measure = async (verb: string) => {
        const args = (task: string) => (verb === 'seek' ? { query: task } : { task });
        for (const task of tasks.slice(0, 10)) await timed(host, verb, args(task));
        const times: number[] = [];
        for (const task of tasks) times.push(await timed(host, verb, args(task)));
        return times;
      };
      const seek = await measure('seek');
      for (const verb of ['orient', 'north']) {
        const times = await measure(verb);
        console.log(`memory: ${verb.padEnd(8)} p50 ${fmt(pct(times, 50))} ms  p99 ${fmt(pct(times, 99))} ms  (target p50 ≤ 30, ${CLAIMS} claims)   seek (host) p50 ${fmt(pct(seek, 50))} ms   ratio ${(pct(times, 50) / pct(seek, 50)).toFixed(2)}`);
      }
    } finally {
      await host.close();
    }

    // The mirror on: a small workspace copied from the stdlib, 1,000 claims, each written as Markdown.
    const ws = mkdtempSync(join(tmpdir(), 'm1nd-memory-bench-ws-'));
    for (const f of ['json', 'email', 'http', 'logging', 'asyncio']) cpSync(join(root, f), join(ws, f), { recursive: true });
    const small = await startHost({ workspaceRoot: ws, config: { options: { graph: { watch: false }, memory: { maxClaimsPerAgent: 10_000 } } }, env: { M1ND_TOOL_TIER: 'full' }, log: createLogger(() => {}) });
    try {
      await timed(small, 'ingest', { path: ws });
      const { memorize, bare, symbols } = await fill(small, CLAIMS);
      console.log(`memory: memorize with Markdown mirror (${symbols.length} claims)  p50 ${fmt(pct(memorize, 50))} ms  p99 ${fmt(pct(memorize, 99))} ms  (target ≤ 10)   bare store write p50 ${fmt(pct(bare, 50))} ms   ratio ${(pct(memorize, 50) / pct(bare, 50)).toFixed(1)}`);
    } finally {
      await small.close();
      rmSync(ws, { recursive: true, force: true });
    }
  } finally {
    rmSync(storeDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
