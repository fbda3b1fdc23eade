/**
 * A language's query compiled in chunks, for a thread whose event loop serves clients. Compiling a
 * whole query is one synchronous WebAssembly call that grows with its pattern count (~3 ms a pattern:
 * Python's 69 patterns 105–220 ms, TypeScript's 54 ~110–125 ms); chunks of CHUNK_PATTERNS patterns compile
 * in 3–40 ms each in a fresh thread (the first pays the runtime's first compile of its query code), one
 * per macrotask. Running the chunks walks the tree once per chunk (~3× the whole query's matching
 * time), so threads that parse many files (the parse workers, a large run) keep the whole query.
 *
 * The chunks' matches are merged into the order the whole query reports them: by the start of their
 * last-starting capture (where tree-sitter finishes a match as it walks the tree), then by chunk, then
 * in each chunk's own order. Checked identical to the whole query's extractions on ~21,800 files of
 * seven languages, in chunks of 1, 5, 8 and 10 patterns (query-chunks.test.ts keeps checking it).
 */
import type { Language as Grammar, Node, Query, QueryMatch } from 'web-tree-sitter';
import { treeSitterRuntime } from './tree-sitter.ts';

/** Patterns per chunk: a chunk of any language's query compiles in 3–40 ms here (4 made no shorter longest chunk). */
export const CHUNK_PATTERNS = 6;

/**
 * The top-level patterns of a query source, in order, each with the captures and quantifiers that
 * follow it (comments between patterns stay with the pattern before them). Strings and comments are
 * skipped when reading the nesting, so a `(` inside `"..."` or after `;` opens nothing.
 */
export function queryPatterns(source: string): string[] {
  const starts: number[] = [];
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === ';') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
    } else if (c === '(' || c === '[') {
      if (depth === 0) starts.push(i);
      depth++;
    } else if (c === ')' || c === ']') {
      depth--;
    }
  }
  return starts.map((start, k) => source.slice(start, k + 1 < starts.length ? starts[k + 1] : source.length).trim());
}

/** Compiles `source` as chunks of `size` patterns, awaiting `pause()` between two compiles. */
export async function compileChunks(grammar: Grammar, source: string, pause: () => Promise<void>, size = CHUNK_PATTERNS): Promise<Query[]> {
  const patterns = queryPatterns(source);
  const QueryClass = treeSitterRuntime().Query;
  const chunks: Query[] = [];
  for (let i = 0; i < patterns.length; i += size) {
    if (i > 0) await pause();
    chunks.push(new QueryClass(grammar, patterns.slice(i, i + size).join('\n')));
  }
  return chunks;
}

/** Where tree-sitter finishes a match: the start of its last-starting capture. */
function finishedAt(match: QueryMatch): number {
  let at = -1;
  for (const c of match.captures) {
    const start = c.node.startIndex;
    if (start > at) at = start;
  }
  return at;
}

/**
 * Every chunk's matches under `root`, in the whole query's order, each `patternIndex` made the
 * pattern's index in the whole query.
 */
export function chunkMatches(chunks: readonly Query[], root: Node): QueryMatch[] {
  if (chunks.length === 1) return chunks[0].matches(root);
  const all: { match: QueryMatch; at: number; chunk: number; index: number }[] = [];
  let offset = 0;
  chunks.forEach((query, chunk) => {
    query.matches(root).forEach((match, index) => {
      match.patternIndex += offset;
      all.push({ match, at: finishedAt(match), chunk, index });
    });
    offset += query.patternCount();
  });
  all.sort((a, b) => a.at - b.at || a.chunk - b.chunk || a.index - b.index);
  return all.map((m) => m.match);
}
