/**
 * grep-like search over the contents of ingested files: literal or regex, case-(in)sensitive,
 * context lines, filename glob, path scope, invert, count-only, multiline. Contents come from a
 * byte-capped in-memory cache filled at ingest (files are read then anyway), falling back to disk,
 * so a search is a scan of strings in memory, not thousands of reads.
 */
import picomatch from 'picomatch';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError, EngineErrorCodes } from './errors.ts';

/** Search options (defaults match the `search` verb). */
export interface SearchOptions {
  /** 'literal' (default) or 'regex' (JavaScript syntax). */
  mode?: 'literal' | 'regex';
  caseSensitive?: boolean;
  /** Lines of context before and after each match (default 2). */
  contextLines?: number;
  /** Glob on the path (`*.py` matches basenames anywhere; `src/**\/*.ts` matches paths). */
  filenamePattern?: string;
  /** Only files under this directory (or this file). */
  scope?: string;
  /** Report lines that do not match. */
  invert?: boolean;
  /** Only per-file counts. */
  countOnly?: boolean;
  /** Let matches span lines (`.` matches newlines too). */
  multiline?: boolean;
  /** Matches returned with text and context (default 50); counting continues past it. */
  maxResults?: number;
}

/** One match (a matching line, or a span in multiline mode). */
export interface SearchMatch {
  path: string;
  /** 1-based first line. */
  line: number;
  /** 1-based column of the match start (1 for inverted lines). */
  column: number;
  endLine: number;
  /** The matching line(s), long lines cut at 400 characters. */
  text: string;
  before: string[];
  after: string[];
}

/** Search outcome. */
export interface SearchResult {
  matches: SearchMatch[];
  /** Matching lines (or spans in multiline mode) over all files. */
  totalMatches: number;
  filesScanned: number;
  filesMatched: number;
  /** True when more matches exist than were returned. */
  truncated: boolean;
  /** countOnly: matches per matching file. */
  counts?: { path: string; count: number }[];
  elapsedMs: number;
}

const MAX_LINE_CHARS = 400;
const MAX_PATTERN_CHARS = 2000;

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}

/** Contents of ingested files, kept in memory up to a byte budget. */
export class ContentCache {
  private readonly texts = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly root: string,
    /** Budget in UTF-16 code units × 2 (what V8 may need at worst). */
    readonly maxBytes: number,
  ) {}

  /** Remembers a file's text if the budget allows. */
  put(path: string, text: string): void {
    this.drop(path);
    if (this.bytes + text.length > this.maxBytes) return;
    this.texts.set(path, text);
    this.bytes += text.length;
  }

  /** Forgets a file (changed or deleted). */
  drop(path: string): void {
    const t = this.texts.get(path);
    if (t !== undefined) {
      this.bytes -= t.length;
      this.texts.delete(path);
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.texts.clear();
    this.bytes = 0;
  }

  /** A file's text from memory, else from disk (cached when it fits); null when unreadable. */
  get(path: string): string | null {
    const t = this.texts.get(path);
    if (t !== undefined) return t;
    try {
      const text = readFileSync(join(this.root, path), 'utf8');
      this.put(path, text);
      return text;
    } catch {
      return null;
    }
  }

  /** Characters held in memory. */
  get size(): number {
    return this.bytes;
  }
}

/** Keeps the paths a search should look at: scope prefix and filename glob. */
export function filterSearchPaths(paths: readonly string[], options: Pick<SearchOptions, 'scope' | 'filenamePattern'>): string[] {
  const scope = (options.scope ?? '').replace(/^\.\/+/, '').replace(/\/+$/, '').replace(/^\.$/, '');
  const glob = options.filenamePattern ? picomatch(options.filenamePattern, { dot: true, basename: !options.filenamePattern.includes('/') }) : null;
  return paths.filter((p) => (!scope || p === scope || p.startsWith(`${scope}/`)) && (!glob || glob(p)));
}

/** Compiles the query into a global regex (throws a coded error for an invalid pattern). */
export function compileSearch(query: string, options: SearchOptions): RegExp {
  if (query.length === 0) throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, 'the search query is empty', 'pass a non-empty query');
  if (query.length > MAX_PATTERN_CHARS) throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `the search query is longer than ${MAX_PATTERN_CHARS} characters`, 'search for a shorter, distinctive part');
  const source = options.mode === 'regex' ? query : escapeRegex(query);
  const flags = `gm${options.caseSensitive ? '' : 'i'}${options.multiline ? 's' : ''}`;
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `invalid regex: ${(err as Error).message}`, 'fix the pattern (JavaScript syntax), or use mode "literal"');
  }
}

interface FileHit {
  start: number;
  end: number;
}

/** Line-start offset of the line containing `offset`. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset just past the line containing `offset` (after its newline), or text.length. */
function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl;
}

/** Runs a search over the given files, in order. */
export function searchContents(paths: readonly string[], contents: ContentCache, query: string, options: SearchOptions = {}): SearchResult {
  const t0 = performance.now();
  const re = compileSearch(query, options);
  const maxResults = options.maxResults ?? 50;
  const context = Math.max(0, options.contextLines ?? 2);
  const literal = options.mode !== 'regex' && options.caseSensitive === true && !options.multiline ? query : null;
  const matches: SearchMatch[] = [];
  const counts: { path: string; count: number }[] = [];
  let total = 0;
  let filesScanned = 0;
  let filesMatched = 0;

  for (const path of paths) {
    const text = contents.get(path);
    if (text === null) continue;
    filesScanned++;
    const wantDetails = !options.countOnly && matches.length < maxResults;
    const hits: FileHit[] = [];
    let count = 0;
    const record = (start: number, end: number): void => {
      count++;
      if (wantDetails && matches.length + hits.length < maxResults) hits.push({ start, end });
    };
    if (options.invert) {
      const single = new RegExp(re.source, re.flags.replace('g', '').replace('s', ''));
      let pos = 0;
      while (pos <= text.length) {
        const end = lineEnd(text, pos);
        if (!(pos === text.length && end === pos && pos > 0) && !single.test(text.slice(pos, end))) record(pos, end);
        if (end >= text.length) break;
        pos = end + 1;
      }
    } else if (literal !== null) {
      // Fast path: plain indexOf, then jump to the next line (one hit per line, like grep).
      let i = text.indexOf(literal);
      while (i >= 0) {
        record(i, i + literal.length);
        const next = text.indexOf('\n', i + literal.length);
        if (next < 0) break;
        i = text.indexOf(literal, next + 1);
      }
    } else {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text)) !== null) {
        const start = m.index;
        let end = start + m[0].length;
        if (!options.multiline && m[0].includes('\n')) {
          // A line-oriented search must not span lines: retry on the start line alone.
          const ls = lineStart(text, start);
          const le = lineEnd(text, start);
          const single = new RegExp(re.source, re.flags.replace('g', ''));
          const mm = single.exec(text.slice(ls, le));
          if (mm) record(ls + mm.index, ls + mm.index + mm[0].length);
          re.lastIndex = le + 1;
          if (le >= text.length) break;
          continue;
        }
        record(start, end);
        if (options.multiline) {
          if (end === start) end++;
          re.lastIndex = end;
        } else {
          const le = lineEnd(text, Math.max(start, end - 1));
          if (le >= text.length) break;
          re.lastIndex = le + 1;
        }
      }
    }
    if (count === 0) continue;
    filesMatched++;
    total += count;
    if (options.countOnly) counts.push({ path, count });
    if (hits.length) matches.push(...describeHits(path, text, hits, context));
  }
  return {
    matches,
    totalMatches: total,
    filesScanned,
    filesMatched,
    truncated: !options.countOnly && total > matches.length,
    ...(options.countOnly ? { counts } : {}),
    elapsedMs: Math.round((performance.now() - t0) * 100) / 100,
  };
}

/** Line numbers, text and context for the hits of one file (one forward pass over its newlines). */
function describeHits(path: string, text: string, hits: FileHit[], context: number): SearchMatch[] {
  const out: SearchMatch[] = [];
  let cursor = 0;
  let line = 1;
  const lineAt = (offset: number): number => {
    // Hits are in offset order, so count newlines from the previous one.
    for (let i = text.indexOf('\n', cursor); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
      line++;
      cursor = i + 1;
    }
    return line;
  };
  for (const h of hits) {
    const first = lineAt(h.start);
    const ls = lineStart(text, h.start);
    const endOffset = Math.max(h.start, h.end - 1);
    const le = lineEnd(text, endOffset);
    let endLine = first;
    for (let i = text.indexOf('\n', ls); i >= 0 && i < endOffset; i = text.indexOf('\n', i + 1)) endLine++;
    const before: string[] = [];
    let b = ls;
    for (let k = 0; k < context && b > 0; k++) {
      const prevStart = lineStart(text, b - 1);
      before.unshift(clip(text.slice(prevStart, b - 1)));
      b = prevStart;
    }
    const after: string[] = [];
    let a = le;
    for (let k = 0; k < context && a < text.length; k++) {
      const nextEnd = lineEnd(text, a + 1);
      if (a + 1 > text.length || (a + 1 === text.length && nextEnd === text.length)) break;
      after.push(clip(text.slice(a + 1, nextEnd)));
      a = nextEnd;
    }
    const body = text.slice(ls, le).split('\n').map(clip).join('\n');
    out.push({ path, line: first, column: h.start - ls + 1, endLine, text: body, before, after });
  }
  return out;
}
