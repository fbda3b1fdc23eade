/**
 * The first `edit_preview` of a process, from the built `dist/`: a host over a stored graph (loaded,
 * no ingest in this process, so the main thread holds no parser of the file's language), then one
 * preview of `<file>` with a function appended, while a 2 ms interval timer measures the event
 * loop. Prints the call's wall time and the longest loop gap (what another session would wait).
 *
 *   npm run -s build && node bench/preview-first-call.mjs <dist dir> <root> <store dir> <file>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDistHost } from './dist-host.mjs';

const [dist, root, storeDir, file] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/preview-first-call.mjs <dist dir> <root> <store dir> <file>');
const host = await startDistHost(dist, root, storeDir);
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
