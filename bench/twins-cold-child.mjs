/**
 * A truly cold `twins` from the built `dist/` (what an installed server runs: no loader): a new
 * process over a stored graph, the structure facts table removed, the background facts job off, the
 * first call `twins`. Prints its wall time, the process's CPU and each thread's CPU (Linux: the
 * main thread first, then V8's helpers and the facts workers), and the answer's size.
 * The store comes from `node --import tsx bench/structure.bench.ts --store DIR --only layers`;
 * `M1ND_CACHE_DIR` decides whether the tokenizer's rank table is cached already (an empty folder: a first run).
 *
 *   npm run -s build && node bench/twins-cold-child.mjs <dist dir> <root> <store dir>
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startDistHost } from './dist-host.mjs';

const [dist, root, storeDir] = process.argv.slice(2);
for (const f of ['structure-facts.db', 'structure-facts.db-wal', 'structure-facts.db-shm']) rmSync(join(storeDir, f), { force: true });
const host = await startDistHost(dist, root, storeDir);
await host.call('health', { agent_id: 'bench' });
/** CPU ms per thread (Linux /proc), by thread id. */
const threads = () => {
  const out = new Map();
  if (!existsSync('/proc/self/task')) return out;
  for (const t of readdirSync('/proc/self/task')) {
    const fields = readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
    out.set(t, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
};
const before = threads();
const c0 = process.cpuUsage();
const t0 = performance.now();
const r = await host.call('twins', { agent_id: 'bench', time_budget_ms: 100_000 });
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const text = r.content[0].text;
if (r.isError) throw new Error(text);
const json = JSON.parse(text);
const perThread = [...threads()].map(([t, v]) => v - (before.get(t) ?? 0)).filter((v) => v > 0);
console.log(`twins truly cold (dist): ${ms.toFixed(0)} ms wall, cpu ${((c.user + c.system) / 1000).toFixed(0)} ms; threads ${perThread.join(' / ')} ms; ${json.total} pairs, ${json.compared.candidates} candidates, ${json.compared.files_parsed} files parsed  (target ≤ 3000)`);
await host.close();
