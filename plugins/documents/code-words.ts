/**
 * Names a document gives that the graph has no node for, yet the code has: a parameter (`uds`), an
 * attribute or variable (`response.text`), an outside package it imports (`anyio.run`), a string
 * (`HTTP_PROXY`). Such a mention is "unindexed", not missing: the code does not lack it. A dotted
 * name under a module of the workspace itself (`pkg.Mounts`, `pkg/` a folder) stays missing: the
 * package would define it. The words of the code are read once per graph version, from the graph's
 * files that are not documents.
 */
import { slicePace, type CodeGraph, type GraphService } from '../graph/api.ts';
import type { Binding } from './bindings.ts';

/** Documents and prose: their words are no evidence that the code has a name. */
const DOCUMENT_FILE = /\.(?:md|markdown|mdx|rst|txt|text|html?|xhtml|pdf|docx)$/i;
/** Main-thread time per slice of reading (ms), bytes per file and in all at most. */
const SLICE_MS = 8;
const MAX_FILE_BYTES = 1 << 20;
const MAX_TOTAL_CHARS = 64 << 20;

interface CodeWords {
  words: Set<string>;
  /** Folder names and file stems of the workspace's files (`pkg`, `_client`). */
  modules: Set<string>;
}

const cache = new WeakMap<CodeGraph, { version: number; words: Promise<CodeWords> }>();

/** The bindings whose mention names nothing in the graph but a word of the code: split from the rest. */
export async function splitUnindexed(graph: GraphService, bindings: readonly Binding[]): Promise<{ bindings: Binding[]; unindexed: Binding[] }> {
  const open = bindings.filter((b) => b.status === 'missing' && b.kind === 'symbol');
  if (open.length === 0) return { bindings: [...bindings], unindexed: [] };
  const code = await codeWords(graph);
  const unindexed = new Set(open.filter((b) => inCode(code, b.text)));
  return { bindings: bindings.filter((b) => !unindexed.has(b)), unindexed: [...unindexed] };
}

/** Whether a written name is the code's though no node: a word of it, or a name on a receiver or package the code uses that is not the workspace's. */
function inCode(code: CodeWords, text: string): boolean {
  const parts = text.replace(/\(\)$/, '').split(/::|[.#]/).filter(Boolean);
  if (parts.length === 0) return false;
  if (parts.length === 1) return code.words.has(parts[0]);
  return !code.modules.has(parts[0]) && code.words.has(parts[0]);
}

function codeWords(graph: GraphService): Promise<CodeWords> {
  const g = graph.engine.graph;
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit.words;
  const words = read(graph);
  cache.set(g, { version: g.version, words });
  return words;
}

async function read(graph: GraphService): Promise<CodeWords> {
  const words = new Set<string>();
  const modules = new Set<string>();
  const paths = graph.engine.filePaths();
  let total = 0;
  // By time, not by count: 64 files of up to 1 MB each were one slice.
  const pace = slicePace(SLICE_MS);
  for (let i = 0; i < paths.length; i++) {
    await pace();
    const path = paths[i];
    const segments = path.split('/');
    for (const s of segments.slice(0, -1)) modules.add(s);
    modules.add(segments[segments.length - 1].replace(/\..*$/, ''));
    if (DOCUMENT_FILE.test(path) || total > MAX_TOTAL_CHARS) continue;
    let text: string;
    try {
      text = graph.engine.readFile(path).content;
    } catch {
      continue;
    }
    if (text.length > MAX_FILE_BYTES) continue;
    total += text.length;
    for (const m of text.matchAll(/[A-Za-z_$][\w$]*/g)) words.add(m[0]);
  }
  return { words, modules };
}
