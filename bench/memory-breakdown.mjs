/**
 * Where the memory of a loaded graph goes: RSS and V8 heap after each step of a fresh process
 * (import, open, search cache, seek index), what the RSS is made of (/proc/self/smaps, Linux: the
 * node binary, V8's heap spaces as committed against used, array buffers, malloc), then the JS heap and array buffers
 * freed by dropping one structure at a time (in order; a structure shared with an earlier one counts
 * where it is dropped last). Reads private fields of the engine on purpose: it is a measurement.
 *
 *   node --expose-gc [--import tsx] bench/memory-breakdown.mjs <engine module> <root> <store dir> [exclude,…]
 * The store must hold an ingest of <root> (e.g. the stdlib copy bench/engine.bench.ts makes).
 * BENCH_SNAPSHOTS=0 ignores the stored graph snapshot (the graph is re-linked from the stored
 * extractions and the builder's per-file state is built, as before snapshots).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

const [enginePath, root, storeDir, exclude = 'test/**,site-packages/**'] = process.argv.slice(2);
const mb = (x) => (x / 1048576).toFixed(1);
const steps = [];
const mark = (label) => {
  globalThis.gc();
  const m = process.memoryUsage();
  steps.push({ step: label, rss: mb(m.rss), peakRss: mb(process.resourceUsage().maxRSS * 1024), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) });
};
mark('baseline');
const { CodeGraphEngine } = await import(pathToFileURL(resolve(enginePath)).href);
mark('engine imported');
const snapshots = process.env.BENCH_SNAPSHOTS !== '0';
const e = new CodeGraphEngine({ root, storeDir, exclude: exclude.split(','), snapshots, typeCheck: false });
const cpu0 = process.cpuUsage();
const o = await e.open();
const cpu = process.cpuUsage(cpu0);
mark(`open (${e.loadStats?.().snapshotLoads ? 'from the snapshot' : 'graph re-linked'})`);
console.log(`open: main-thread CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms; load stats ${JSON.stringify(e.loadStats?.())}`);
e.warmSearchCache();
mark('search cache warm');
await e.prepareSeek?.();
e.seek('parse header');
mark('seek index + PageRank');
e.search('def __init__');
mark('search');
console.log(`${o.nodes} nodes, ${o.edges} edges, ${e.status().lexical.postings} postings`);
console.table(steps);
console.table(v8.getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => ({ space: s.space_name, size: mb(s.space_size), used: mb(s.space_used_size) })));

/** Resident memory by mapping: the node binary, anonymous memory (V8's heap, array buffers, large malloc blocks), the malloc heap, libraries. */
function rssByMapping() {
  let text;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return null;
  }
  const kb = new Map();
  let name = null;
  for (const line of text.split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const path = m[1];
      name = path === '' ? 'anonymous (V8 heap, array buffers, large malloc blocks, stacks)' : path === '[heap]' ? 'malloc heap ([heap])' : path.endsWith('/node') ? 'node binary' : path.startsWith('[') ? path : path.includes('.so') || path.endsWith('.node') ? 'shared libraries and addons' : 'other files';
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r && name) kb.set(name, (kb.get(name) ?? 0) + Number(r[1]));
  }
  return [...kb].sort((a, b) => b[1] - a[1]).filter(([, v]) => v >= 512).map(([mapping, v]) => ({ mapping, MB: (v / 1024).toFixed(1) }));
}
const mapped = rssByMapping();
if (mapped) console.table(mapped);

const used = () => {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const L = e.loaded;
const b = L.builder;
const g = b.graph;
// A graph loaded from the snapshot has no builder state: its read view holds only the file table.
const files = b.files instanceof Map && !L.lazy ? [...b.files.values()] : [];
let last = used();
const rows = [];
const drop = (label, fn) => {
  fn();
  const now = used();
  rows.push({ structure: label, MB: mb(last - now) });
  last = now;
};
drop('search content cache (file texts)', () => L.contents.clear());
drop('seek index (postings, vocabulary)', () => L.lexical.reset());
drop('PageRank cache', () => L.ranks.clear());
if (L.lazy) drop('snapshot view: file table', () => (b.files = null));
else drop('builder: file scopes', () => b.fileScopes.clear());
drop('FileState.typeFacts', () => files.forEach((s) => (s.typeFacts = null)));
drop('FileState.imports', () => files.forEach((s) => (s.imports = null)));
drop('FileState.members', () => files.forEach((s) => (s.members = null)));
drop('FileState.symbolParents', () => files.forEach((s) => (s.symbolParents = null)));
drop('FileState.symbols', () => files.forEach((s) => (s.symbols = null)));
drop('FileState.ownedEdges', () => files.forEach((s) => (s.ownedEdges = null)));
drop('FileState name/stem/target keys', () => files.forEach((s) => (s.globalNames = s.missStems = s.importTargets = null)));
if (!L.lazy) drop('builder: FileDependents', () => (b.dependents = null));
if (!L.lazy) drop('builder: SymbolNames', () => (b.byName = null));
if (!L.lazy) drop('builder: parents', () => b.parents.clear());
if (!L.lazy) drop('builder: FileIndex + ModuleTree + files map', () => (b.paths = b.modules = b.files = null));
drop('loaded rows (path → extraction key)', () => (L.loadedRows = new Map()));
drop('graph: id → index map', () => (g.byId = null));
drop('graph: node.doc', () => g.slots.forEach((n) => n && delete n.doc));
drop('graph: node objects (ids, labels, qualified names)', () => (g.slots.length = 0));
drop('graph: edge arrays + CSR', () => (g.edgeSource = g.edgeTarget = g.edgeWeight = g.edgeRelation = g.edgeAlive = g.outEdges = g.inEdges = g.outOffsets = g.inOffsets = null));
rows.push({ structure: 'left: code, modules, store, runtime', MB: mb(last) });
console.table(rows);
await e.close();
