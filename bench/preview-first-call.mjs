/**
 * The first `edit_preview` of a process, from the built `dist/`: a host over a stored graph (loaded,
 * no ingest in this process, so the main thread holds no parser of the file's language), then one
 * preview of `<file>` with a function appended, while a 2 ms interval timer measures the event
 * loop. Prints the call's wall time and the longest loop gap (what another session would wait).
 *
 *   npm run -s build && node bench/preview-first-call.mjs <dist dir> <root> <store dir> <file>
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, root, storeDir, file] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/preview-first-call.mjs <dist dir> <root> <store dir> <file>');
const load = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
const { startHost } = await load('core/index.js');
const { createLogger } = await load('core/log.js');
const host = await startHost({
  workspaceRoot: root,
  config: { options: { structure: { backgroundFacts: false }, graph: { watch: false, exclude: ['site-packages/**'] } } },
  env: { M1ND_STORE_DIR: resolve(storeDir), M1ND_TOOL_TIER: 'full' },
  log: createLogger(() => {}),
});
await host.call('health', { agent_id: 'bench' });
await host.call('seek', { agent_id: 'bench', query: 'parse json' }); // the graph and its indexes loaded
await new Promise((r) => setTimeout(r, 2000));
let last = performance.now();
let worst = 0;
const timer = setInterval(() => {
  const now = performance.now();
  worst = Math.max(worst, now - last - 2);
  last = now;
}, 2);
const started = performance.now();
const text = `${readFileSync(join(root, file), 'utf8')}\n\ndef added(x):\n    return x\n`;
const result = await host.call('edit_preview', { agent_id: 'bench', file_path: file, new_content: text });
const wall = performance.now() - started;
await new Promise((r) => setTimeout(r, 20));
clearInterval(timer);
if (result.isError) throw new Error(JSON.stringify(result).slice(0, 300));
console.log(`first edit_preview of ${file}: ${wall.toFixed(0)} ms wall, longest loop gap ${worst.toFixed(1)} ms`);
process.exit(0);
