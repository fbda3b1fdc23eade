/**
 * A truly cold `twins` as an MCP host meets it: `bin/m1nd.js serve` (the built `dist/`, with the
 * server's heap settings) spawned over stdio by an SDK client, over a stored graph whose structure
 * facts table is removed, the background facts job and the watcher off; `health` first (the graph
 * loads), then `twins` timed from request to answer. Compare with bench/twins-cold-child.mjs (the
 * same call in-process); `M1ND_CACHE_DIR` as there.
 *
 *   npm run -s build && node bench/twins-serve-child.mjs <root> <store dir> [runs]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [root, storeArg, runsArg] = process.argv.slice(2);
const store = resolve(storeArg);
const bin = fileURLToPath(new URL('../bin/m1nd.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'm1nd-twins-serve-'));
const config = join(dir, 'm1nd.config.mjs');
writeFileSync(config, `export default { options: { structure: { backgroundFacts: false }, graph: { watch: false, exclude: ['site-packages/**'] } } };\n`);
try {
  for (let run = 0; run < Number(runsArg ?? 1); run++) {
    for (const f of ['structure-facts.db', 'structure-facts.db-wal', 'structure-facts.db-shm']) rmSync(join(store, f), { force: true });
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--workspace', root, '--config', config, '--tier', 'full'], env: { ...process.env, M1ND_STORE_DIR: store }, stderr: 'ignore' });
    const client = new Client({ name: 'twins-serve-bench', version: '1' });
    await client.connect(transport);
    await client.callTool({ name: 'health', arguments: { agent_id: 'bench' } });
    const t0 = performance.now();
    const r = await client.callTool({ name: 'twins', arguments: { agent_id: 'bench', time_budget_ms: 100_000 } }, undefined, { timeout: 120_000 });
    const ms = performance.now() - t0;
    const text = r.content[0].text;
    if (r.isError) throw new Error(text);
    const json = JSON.parse(text);
    console.log(`twins truly cold (m1nd serve over stdio): ${ms.toFixed(0)} ms; ${json.total} pairs, ${json.compared.candidates} candidates, ${json.compared.files_parsed} files parsed  (target ≤ 3000)`);
    await client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
