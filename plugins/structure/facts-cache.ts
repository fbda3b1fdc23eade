/**
 * File facts (file-facts.ts) kept per file content hash: a scan or `twins` asks for the facts of
 * its files; cached ones come back at once, the rest are computed — across the facts workers when
 * there are many (the event loop stays free), in-process for a few (a worker's start costs more) —
 * until the call's time budget is spent. One parse feeds both the scans and the shapes, so a
 * `twins` after a `scan_all` (or the reverse) parses nothing.
 */
import { grammarPath, type CodeGraph, type GrammarName, type GraphService, type Language } from '../graph/api.ts';
import { GRAMMAR_NAMES } from './code-trees.ts';
import type { Deadline } from './deadline.ts';
import { computeFacts, type FileFacts } from './file-facts.ts';
import { factsPool, type FactsTask } from './facts-pool.ts';
import './grammars.ts';

let grammarPaths: Record<string, string> | null = null;
const GRAMMAR_PATHS = () => (grammarPaths ??= Object.fromEntries(GRAMMAR_NAMES.map((n) => [n, grammarPath(n)])));

/** Below this many files to compute, the work stays in-process. */
export const POOL_MIN_FILES = 48;
const BATCH_FILES = 12;
const MAX_CACHED_FILES = 20_000;

const cache = new Map<string, { root: string; hash: string; facts: FileFacts }>();
/** Class labels per graph version (the dependency-injection rules' context). */
const classCache = new WeakMap<CodeGraph, { version: number; names: string[]; key: string }>();

function classNamesOf(g: CodeGraph): { names: string[]; set: Set<string>; key: string } {
  let c = classCache.get(g);
  if (!c || c.version !== g.version) {
    const names = new Set<string>();
    for (const [, n] of g.nodes()) if (n.kind === 'class') names.add(n.label);
    c = { version: g.version, names: [...names].sort(), key: '' };
    c.key = `${names.size}:${hashText(c.names.join('\n'))}`;
    classCache.set(g, c);
  }
  return { names: c.names, set: new Set(c.names), key: c.key };
}

function hashText(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

export interface FactsOutcome {
  facts: Map<string, FileFacts>;
  /** Files whose facts came from the cache. */
  fromCache: number;
  /** Files not computed because the time budget ran out. */
  skipped: number;
  /** Worker threads used (0: in-process). */
  workers: number;
}

/** Facts of `files` (workspace paths with their language): cached, or computed within the deadline. */
export async function factsOf(graph: GraphService, files: readonly { path: string; language: Language }[], deadline: Deadline, options: { pool?: boolean } = {}): Promise<FactsOutcome> {
  const engine = graph.engine;
  const hashes = engine.storedFiles();
  const facts = new Map<string, FileFacts>();
  const missing: (FactsTask & { hash: string })[] = [];
  let fromCache = 0;
  for (const f of files) {
    const hash = hashes.get(f.path)?.hash ?? '';
    const hit = cache.get(f.path);
    if (hit && hash && hit.hash === hash && hit.root === engine.root) {
      facts.set(f.path, hit.facts);
      fromCache++;
    } else missing.push({ path: f.path, language: f.language, hash });
  }
  const handled = new Set<string>();
  const keep = (task: { path: string; hash: string }, f: FileFacts | null) => {
    handled.add(task.path);
    if (!f) return;
    facts.set(task.path, f);
    if (!task.hash) return;
    if (cache.size >= MAX_CACHED_FILES) cache.clear();
    cache.set(task.path, { root: engine.root, hash: task.hash, facts: f });
  };
  const classes = classNamesOf(engine.graph);
  let computed = 0;
  let workers = 0;
  if (missing.length >= POOL_MIN_FILES && options.pool !== false) {
    const pool = factsPool();
    const batches: (FactsTask & { hash: string })[][] = [];
    for (let i = 0; i < missing.length; i += BATCH_FILES) batches.push(missing.slice(i, i + BATCH_FILES));
    try {
      await pool.run(
        engine.root,
        GRAMMAR_PATHS(),
        batches.map((b) => b.map(({ path, language }) => ({ path, language }))),
        classes.names,
        classes.key,
        (b, list) => {
          for (let k = 0; k < list.length; k++) keep(batches[b][k], list[k]);
          computed += list.length;
        },
        () => !deadline.spent(),
      );
      workers = pool.size;
    } catch {
      // A worker failed (or cannot start here): what is left is computed in-process below.
      await pool.stop();
    }
  }
  for (const task of missing) {
    if (handled.has(task.path)) continue;
    if (deadline.spent()) break;
    await deadline.pace();
    let text: string;
    try {
      text = engine.readFile(task.path).content;
    } catch {
      handled.add(task.path);
      computed++;
      continue; // gone since the last ingest: the next ingest drops it
    }
    keep(task, await computeFacts(task.language, text, task.path, classes.set));
    computed++;
  }
  return { facts, fromCache, skipped: Math.max(0, missing.length - computed), workers };
}
