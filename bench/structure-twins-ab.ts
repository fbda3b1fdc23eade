/**
 * A truly cold `twins` (a new process, no facts table, background job off, `twins` the first call)
 * served by another checkout's code over the same store: the baseline of the `twins-cold` phase of
 * bench/structure.bench.ts in the same minutes (run the two alternately). Run from that checkout's
 * directory (its tsx); removes the facts table before and after.
 *
 *   (cd OTHER && node --import tsx /path/to/bench/structure-twins-ab.ts OTHER CORPUS STORE)
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, root, store] = process.argv.slice(2).map((p) => resolve(p));
const from = (rel: string) => import(pathToFileURL(join(checkout, rel)).href);
const { serveStoredGraph } = await from('bench/bench-host.ts');
const { useTokenizerCache } = await from('core/tokens.ts');
const { cacheDir } = await from('core/cache-file.ts');
const dropFacts = () => {
  rmSync(join(store, 'structure-facts.db'), { force: true });
  rmSync(join(store, 'structure-facts.db-wal'), { force: true });
};
dropFacts();
useTokenizerCache(cacheDir(process.env));
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const mainMs = (): number => (existsSync(schedstat) ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : 0);
const { host } = await serveStoredGraph(root, store, ['site-packages/**'], {}, { structure: { backgroundFacts: false, ingestFindings: true } });
const c0 = process.cpuUsage();
const m0 = mainMs();
const t0 = performance.now();
const r = await host.call('twins', { agent_id: 'bench', time_budget_ms: 100_000 });
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const json = JSON.parse((r.content as { text: string }[])[0].text);
console.log(`${checkout}: twins first call, new process, no facts anywhere (truly cold): ${ms.toFixed(0)} ms wall, cpu ${((c.user + c.system) / 1000).toFixed(0)} ms, main thread ${(mainMs() - m0).toFixed(0)} ms, compared ${JSON.stringify(json.compared)}, ${json.total} pairs`);
await host.close();
dropFacts();
process.exit(0);
