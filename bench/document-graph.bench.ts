/**
 * Converted documents in the graph (issue 18): what putting a converted document into the graph
 * costs against a Markdown one, through real hosts and `auto_ingest_tick`.
 *   text vs markdown — 100 documents of the same text as `.txt` (converted inline; nodes and binding
 *                      edges from the documents plugin) and as `.md` (the graph's own ingest by path);
 *   html vs markdown — 5 documents as `.html` (turndown in a worker thread per document) and `.md`;
 *   re-link          — after a code edit and an incremental ingest, the next `seek` (which re-links
 *                      the 100 converted documents first) against the same in the Markdown workspace.
 * Prints each measure and the ratio against the Markdown baseline of the same run.
 *
 *   node --import tsx bench/run.ts document-graph
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';
import { type Host, timedCall as call } from './bench-host.ts';


const CODE: Record<string, string> = {
  'src/cart.ts': "import { add } from './math.ts';\n\nexport function total(prices: number[]): number {\n  let sum = 0;\n  for (const p of prices) sum = add(sum, p);\n  return sum;\n}\n",
  'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n',
};

function markdownDoc(i: number): string {
  return `# Design note ${i}\n\nThe checkout calls total() from src/cart.ts; word${i} marks this note.\n\n## Arithmetic\n\nmul() multiplies and add() sums, both in src/math.ts.\n\n## Operations\n\nRun the nightly job; nothing here names code.\n`;
}

function htmlDoc(i: number): string {
  return `<html><body><h1>Design note ${i}</h1><p>The checkout calls <code>total()</code> from <code>src/cart.ts</code>; word${i} marks this note.</p><h2>Arithmetic</h2><p><code>mul()</code> multiplies and <code>add()</code> sums, both in src/math.ts.</p></body></html>`;
}

function workspace(docs: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'm1nd-docgraph-bench-'));
  for (const [rel, text] of Object.entries({ ...CODE, ...docs })) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

/** Ingests the code, then times the auto-ingest tick that takes in every document. */
async function tickAll(root: string, cache: string): Promise<{ host: Host; ms: number; ingested: number }> {
  const host = await startHost({ workspaceRoot: root, config: { options: { graph: { watch: false } } }, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache }, log: createLogger(() => {}) });
  await call(host, 'ingest', { path: root });
  await call(host, 'auto_ingest_start', { roots: ['docs'], debounce_ms: 60000 });
  const t = await call(host, 'auto_ingest_tick', { max_documents: 1000 });
  return { host, ms: t.ms, ingested: t.json.ingested.length };
}

/** Edits a bound function, ingests it, and times the next seek (which re-links converted documents first). */
async function seekAfterEdit(host: Host, root: string, round: number): Promise<number> {
  const f = join(root, 'src/math.ts');
  writeFileSync(f, readFileSync(f, 'utf8').replace(/return a \* b[^;]*;/, `return a * b * ${round + 1};`));
  await call(host, 'ingest', { path: root, incremental: true });
  return (await call(host, 'seek', { query: 'design note arithmetic', top_k: 5 })).ms;
}

/** Edits a file no document names, ingests it, and times the next seek (the documents' links are checked, none rewritten). */
async function seekAfterOtherEdit(host: Host, root: string, round: number): Promise<number> {
  writeFileSync(join(root, 'src/other.ts'), `export function unrelated(): number {\n  return ${round};\n}\n`);
  await call(host, 'ingest', { path: root, incremental: true });
  return (await call(host, 'seek', { query: 'design note arithmetic', top_k: 5 })).ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x: number) => x.toFixed(1);

export async function run(): Promise<void> {
  const cache = mkdtempSync(join(tmpdir(), 'm1nd-docgraph-bench-cache-'));
  const roots: string[] = [];
  const hosts: Host[] = [];
  try {
    const n = 100;
    const md = workspace(Object.fromEntries(Array.from({ length: n }, (_, i) => [`docs/note${i}.md`, markdownDoc(i)])));
    const txt = workspace(Object.fromEntries(Array.from({ length: n }, (_, i) => [`docs/note${i}.txt`, markdownDoc(i)])));
    roots.push(md, txt);
    const a = await tickAll(md, cache);
    const b = await tickAll(txt, cache);
    hosts.push(a.host, b.host);
    console.log(`tick, ${n} documents: markdown ${f1(a.ms)} ms (${a.ingested} ingested), text ${f1(b.ms)} ms (${b.ingested} ingested); ratio text/markdown ${(b.ms / a.ms).toFixed(2)}`);
    const found = await call(b.host, 'seek', { query: 'word42', top_k: 3 });
    console.log(`seek of a word only in one text document: ${found.json.results[0]?.id ?? 'nothing'}`);

    const resolvedAt = async () => (await call(b.host, 'document_provider_health')).json.graph.resolved as number;
    const r0 = await resolvedAt();
    const relinkMd: number[] = [];
    const relinkTxt: number[] = [];
    for (let r = 0; r < 5; r++) {
      relinkMd.push(await seekAfterEdit(a.host, md, r));
      relinkTxt.push(await seekAfterEdit(b.host, txt, r));
    }
    const r1 = await resolvedAt();
    console.log(`seek after an edit of a bound function (median of 5): markdown workspace ${f1(median(relinkMd))} ms, with ${n} converted documents ${f1(median(relinkTxt))} ms; difference ${f1(median(relinkTxt) - median(relinkMd))} ms; documents resolved again: ${r1 - r0} over 5 edits (every document names src/math.ts)`);
    const otherMd: number[] = [];
    const otherTxt: number[] = [];
    for (let r = 0; r < 5; r++) {
      otherMd.push(await seekAfterOtherEdit(a.host, md, r));
      otherTxt.push(await seekAfterOtherEdit(b.host, txt, r));
    }
    const health = (await call(b.host, 'document_provider_health')).json.graph;
    console.log(`seek after an edit of a file no document names (median of 5): markdown ${f1(median(otherMd))} ms, with ${n} converted documents ${f1(median(otherTxt))} ms; difference ${f1(median(otherTxt) - median(otherMd))} ms; documents rewritten since the tick: ${health.relinked - n} (of ${health.documents}); resolved again: ${health.resolved - r1} over 5 edits`);

    const k = 5;
    const md5 = workspace(Object.fromEntries(Array.from({ length: k }, (_, i) => [`docs/note${i}.md`, markdownDoc(i)])));
    const html5 = workspace(Object.fromEntries(Array.from({ length: k }, (_, i) => [`docs/note${i}.html`, htmlDoc(i)])));
    roots.push(md5, html5);
    const c = await tickAll(md5, cache);
    const d = await tickAll(html5, cache);
    hosts.push(c.host, d.host);
    console.log(`tick, ${k} documents: markdown ${f1(c.ms)} ms, html ${f1(d.ms)} ms (${d.ingested} ingested; one warm worker); ratio html/markdown ${(d.ms / c.ms).toFixed(1)}`);
  } finally {
    for (const h of hosts) await h.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}
