/**
 * One full ingest in a fresh process, from the built `dist/` (plain JavaScript, no loader): prints
 * wall time, process CPU (every thread, the parse workers included), peak RSS and the graph's size
 * as JSON. Used by bench/ingest-parallel.bench.ts.
 *
 *   node bench/ingest-child.mjs <dist dir> <root> <store dir> <parse workers | default> <exclude,…>
 */
import { pathToFileURL } from 'node:url';
import { resolve, join } from 'node:path';

const [dist, root, storeDir, workers, exclude] = process.argv.slice(2);
const { CodeGraphEngine } = await import(pathToFileURL(join(resolve(dist), 'graph.js')).href);
const e = new CodeGraphEngine({
  root,
  storeDir,
  exclude: exclude ? exclude.split(',') : [],
  gitMaxCommits: 0,
  typeCheck: false,
  ...(workers === 'default' ? {} : { parseWorkers: Number(workers) }),
});
const c0 = process.cpuUsage();
const t0 = performance.now();
const s = await e.ingest();
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
await e.close();
process.stdout.write(
  JSON.stringify({ wallMs, cpuMs: (c.user + c.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024, files: s.files.parsed, nodes: s.nodes, edges: s.edges, parseWorkers: s.parseWorkers, phases: s.phases }),
);
