/**
 * grep-like search over the contents of ingested files: literal or regex, case-(in)sensitive,
 * context lines, filename glob, path scope, invert, count-only, multiline. Contents come from a
 * byte-capped in-memory cache filled at ingest (files are read then anyway), falling back to disk,
 * so a search is a scan of strings in memory, not thousands of reads.
 */
import picomatch from 'picomatch';
import { readFileSync } from 'node:fs';
import { runSteps } from './steps.ts';
import { join } from 'node:path';
import { EngineError, EngineErrorCodes } from './errors.ts';
import { compileLinearPattern, type LinearPattern } from './linear-pattern.ts';

/** Search options (defaults match the `search` verb). */
export interface SearchOptions {
  /** 'literal' (default) or 'regex' (RE2 syntax, linear time: no backreferences or lookaround). */
  mode?: 'literal' | 'regex';
  caseSensitive?: boolean;
  /** Lines of context before and after each match (default 2). */
  contextLines?: number;
  /** Glob on the path (`*.py` matches basenames anywhere; `src/**\/*.ts` matches paths). */
  filenamePattern?: string;
  /** Only files under this directory (or this file). */
  scope?: string;
  /** Not the files under these folders (`lib/`, ending in `/`): a federated member's folders that are other members' roots. */
  exclude?: readonly string[];
  /** Report lines that do not match. */
  invert?: boolean;
  /** Only per-file counts. */
  countOnly?: boolean;
  /** Let matches span lines (`.` matches newlines too). */
  multiline?: boolean;
  /** Matches returned with text and context (default 50); counting continues past it. */
  maxResults?: number;
  /** Wall-clock budget of the scan in ms (default 3,000): past it the search stops and says so. */
  timeBudgetMs?: number;
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
  /** True when the time budget ran out before every file was scanned (results are partial). */
  timedOut: boolean;
}

const MAX_LINE_CHARS = 400;
const MAX_PATTERN_CHARS = 2000;
const DEFAULT_TIME_BUDGET_MS = 3000;
/** Lines scanned between two looks at the clock. */
const CLOCK_EVERY_LINES = 512;

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}

/** A long line cut to MAX_LINE_CHARS around `at` (the match's offset in it), so the match is in what is shown. */
function clipAround(line: string, at: number): string {
  if (line.length <= MAX_LINE_CHARS || at < MAX_LINE_CHARS - 100) return clip(line);
  const from = Math.max(0, Math.min(at - 100, line.length - MAX_LINE_CHARS));
  const to = from + MAX_LINE_CHARS;
  return `…${line.slice(from, to)}${to < line.length ? '…' : ''}`;
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

/** Keeps the paths a search should look at: scope prefix, excluded folders and filename glob. */
export function filterSearchPaths(paths: readonly string[], options: Pick<SearchOptions, 'scope' | 'filenamePattern' | 'exclude'>): string[] {
  const scope = (options.scope ?? '').replace(/^\.\/+/, '').replace(/\/+$/, '').replace(/^\.$/, '');
  const glob = options.filenamePattern ? picomatch(options.filenamePattern, { dot: true, basename: !options.filenamePattern.includes('/') }) : null;
  const exclude = options.exclude ?? [];
  return paths.filter((p) => (!scope || p === scope || p.startsWith(`${scope}/`)) && !exclude.some((f) => p.startsWith(f)) && (!glob || glob(p)));
}

/** Compiles the query into a linear-time pattern (throws a coded error for an invalid or unsupported pattern). */
export function compileSearch(query: string, options: SearchOptions): LinearPattern {
  if (query.length === 0) throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, 'the search query is empty', 'pass a non-empty query');
  if (query.length > MAX_PATTERN_CHARS) throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `the search query is longer than ${MAX_PATTERN_CHARS} characters`, 'search for a shorter, distinctive part');
  return compileLinearPattern(query, { regex: options.mode === 'regex', caseSensitive: options.caseSensitive === true, dotAll: options.multiline === true });
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

/** Runs a search over the given files, in order, within a time budget. */
export function searchContents(paths: readonly string[], contents: ContentCache, query: string, options: SearchOptions = {}): SearchResult {
  return runSteps(searchSteps(paths, contents, query, options));
}

/**
 * `searchContents` as steps, one file each (a file read from disk the first time, then scanned), so
 * a caller can pace it: a first search of the stdlib read and scanned ~2,000 files in one ~250 ms
 * stretch. A bad pattern throws on the first step.
 */
export function* searchSteps(paths: readonly string[], contents: ContentCache, query: string, options: SearchOptions = {}): Generator<void, SearchResult> {
  const t0 = performance.now();
  const pattern = compileSearch(query, options);
  const deadline = t0 + (options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
  const maxResults = options.maxResults ?? 50;
  const context = Math.max(0, options.contextLines ?? 2);
  // A user regex is tested line by line (RE2's fast DFA; grep semantics: no match spans lines).
  const perLine = pattern.engine === 're2' && !options.multiline;
  const matches: SearchMatch[] = [];
  const counts: { path: string; count: number }[] = [];
  let total = 0;
  let filesScanned = 0;
  let filesMatched = 0;
  let timedOut = false;

  for (const path of paths) {
    if (filesScanned > 0) yield;
    if (performance.now() > deadline) {
      timedOut = true;
      break;
    }
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
    if (options.invert || perLine) {
      // Whole files without a match are skipped at DFA speed.
      const anyMatch = pattern.test(text);
      if (!options.invert && !anyMatch) continue;
      let pos = 0;
      for (let n = 1; pos <= text.length; n++) {
        if (n % CLOCK_EVERY_LINES === 0 && performance.now() > deadline) {
          timedOut = true;
          break;
        }
        const end = lineEnd(text, pos);
        if (pos === text.length && end === pos && pos > 0) break;
        const line = text.slice(pos, end);
        const matched = anyMatch && pattern.test(line);
        if (options.invert) {
          if (!matched) record(pos, end);
        } else if (matched) {
          const m = pattern.find(line, 0);
          if (m) record(pos + m.start, pos + m.end);
        }
        if (end >= text.length) break;
        pos = end + 1;
      }
    } else {
      let from = 0;
      for (let n = 1; from <= text.length; n++) {
        if (n % CLOCK_EVERY_LINES === 0 && performance.now() > deadline) {
          timedOut = true;
          break;
        }
        const m = pattern.find(text, from);
        if (!m) break;
        const { start } = m;
        let end = m.end;
        if (!options.multiline && text.slice(start, end).includes('\n')) {
          // A line-oriented search must not span lines: retry on the start line alone.
          const ls = lineStart(text, start);
          const le = lineEnd(text, start);
          const mm = pattern.find(text.slice(ls, le), 0);
          if (mm) record(ls + mm.start, ls + mm.end);
          from = le + 1;
          continue;
        }
        record(start, end);
        if (options.multiline) {
          if (end === start) end++;
          from = end;
        } else {
          const le = lineEnd(text, Math.max(start, end - 1));
          if (le >= text.length) break;
          from = le + 1;
        }
      }
    }
    if (count > 0) {
      filesMatched++;
      total += count;
      if (options.countOnly) counts.push({ path, count });
      if (hits.length) matches.push(...describeHits(path, text, hits, context));
    }
    if (timedOut) break;
  }
  return {
    matches,
    totalMatches: total,
    filesScanned,
    filesMatched,
    truncated: timedOut || (!options.countOnly && total > matches.length),
    ...(options.countOnly ? { counts } : {}),
    elapsedMs: Math.round((performance.now() - t0) * 100) / 100,
    timedOut,
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
    const body = text.slice(ls, le).split('\n').map((l, i) => (i === 0 ? clipAround(l, h.start - ls) : clip(l))).join('\n');
    out.push({ path, line: first, column: h.start - ls + 1, endLine, text: body, before, after });
  }
  return out;
}
