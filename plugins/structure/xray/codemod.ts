/**
 * xray_apply's deterministic codemods over the files a selector picks: a header tag comment at the
 * top of each file, or an annotation comment above each symbol of a kind. Idempotent: a file that
 * already carries the tag (a symbol whose line above already carries the annotation) is unchanged.
 * Planning reads every file once and fingerprints the plan, so a commit can insist on the plan the
 * agent saw (expect_version).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ErrorCodes, M1ndError } from '../../../core/index.ts';
import type { GraphNode, GraphService } from '../../graph/api.ts';
import { engineCall, slicePace } from '../../graph/api.ts';
import { hashBytes } from '../../edit/api.ts';
import { CODE_LANGUAGES } from '../code-trees.ts';

export interface Transform {
  kind: 'ensure_header_tag' | 'annotate_symbol';
  tag?: string;
  annotation?: string;
  node_type?: string;
  position?: 'above';
}

export interface Selector {
  path_prefix?: string;
  extensions?: string[];
}

export interface PlannedFile {
  path: string;
  absolute: string;
  oldHash: string;
  content: string;
  /** Lines inserted (1-based line numbers in the new file) with their text. */
  inserted: { line: number; text: string }[];
}

export interface CodemodPlan {
  version: string;
  changed: PlannedFile[];
  unchanged: number;
  selected: number;
}

const MAX_FILES = 200;
/** Budget of one turn of the plan before other calls get the loop. */
const PLAN_SLICE_MS = 8;

function comment(language: string): string {
  return language === 'python' ? '#' : '//';
}

function checkText(what: string, text: string | undefined): string {
  const t = (text ?? '').trim();
  if (!t) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `transform.${what} is required for this kind`, { hint: `pass transform.${what}, e.g. "@layer service"` });
  if (/[\r\n]/.test(t) || t.includes('*/')) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `transform.${what} must be one line of comment text`, { hint: 'drop line breaks and comment delimiters' });
  return t;
}

/** A line that starts a decorator or attribute: `@retry(…)` (Python, TS/JS, Java), `#[inline]` (Rust). */
const DECORATOR_START: Readonly<Record<string, RegExp>> = { python: /^\s*@/, typescript: /^\s*@/, tsx: /^\s*@/, javascript: /^\s*@/, java: /^\s*@/, rust: /^\s*#\[/ };
/** Lines above a symbol searched for its decorators. */
const MAX_DECORATOR_LINES = 40;

/** Closing minus opening brackets on a line. */
function bracketBalance(line: string): number {
  let b = 0;
  for (const ch of line) {
    if (ch === '(' || ch === '[' || ch === '{') b--;
    else if (ch === ')' || ch === ']' || ch === '}') b++;
  }
  return b;
}

/**
 * The first line (0-based) of the decorators or attributes right above line `idx`, or `idx`: a
 * Python function's graph line is its `def`, a Rust fn's its `fn`, so a comment put there split
 * `@property` or `#[inline]` from what it decorates. A decorator spread over lines
 * (`@mark.parametrize(\n…\n)`) is taken whole: from a line closing more brackets than it opens, up
 * to the line that balances them, when that line starts a decorator.
 */
function aboveDecorators(lines: readonly string[], idx: number, language: string): number {
  const start = DECORATOR_START[language];
  if (!start) return idx;
  const floor = Math.max(0, idx - MAX_DECORATOR_LINES);
  let top = idx;
  let k = idx - 1;
  while (k >= floor) {
    if (start.test(lines[k])) {
      top = k--;
      continue;
    }
    let depth = bracketBalance(lines[k]);
    if (depth <= 0) break;
    let j = k - 1;
    for (; j >= floor && depth > 0; j--) depth += bracketBalance(lines[j]);
    const first = j + 1;
    if (depth !== 0 || !start.test(lines[first])) break;
    top = first;
    k = first - 1;
  }
  return top;
}

/** The code files a selector picks, in path order. */
export function selectFiles(graph: GraphService, selector: Selector): GraphNode[] {
  const engine = graph.engine;
  const prefix = selector.path_prefix ? engineCall(() => engine.resolvePath(selector.path_prefix!)).relative.replace(/\/+$/, '') : '';
  const exts = (selector.extensions ?? []).map((e) => (e.startsWith('.') ? e : `.${e}`));
  const out: GraphNode[] = [];
  for (const [, n] of engine.graph.nodes()) {
    if (n.kind !== 'file' || !n.language || !CODE_LANGUAGES.includes(n.language)) continue;
    if (prefix && n.path !== prefix && !n.path.startsWith(`${prefix}/`)) continue;
    if (exts.length && !exts.some((e) => n.path.endsWith(e))) continue;
    out.push(n);
  }
  out.sort((a, b) => a.path.localeCompare(b.path));
  if (out.length > MAX_FILES) {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `the selector picks ${out.length} files, more than ${MAX_FILES} in one codemod`, { hint: 'narrow selector.path_prefix or selector.extensions and apply in several runs' });
  }
  return out;
}

/** Plans the transform over the selected files (reads each once), in slices of PLAN_SLICE_MS: 200 files are read, hashed and rewritten in memory. */
export async function planCodemod(graph: GraphService, files: readonly GraphNode[], t: Transform): Promise<CodemodPlan> {
  const pace = slicePace(PLAN_SLICE_MS);
  const text = checkText(t.kind === 'ensure_header_tag' ? 'tag' : 'annotation', t.kind === 'ensure_header_tag' ? t.tag : t.annotation);
  const kind = t.node_type ?? 'function';
  const changed: PlannedFile[] = [];
  const fingerprint = createHash('sha1').update(JSON.stringify([t.kind, text, kind]));
  let unchanged = 0;
  for (const f of files) {
    await pace();
    const p = engineCall(() => graph.engine.resolvePath(f.path));
    let bytes: Buffer;
    try {
      bytes = readFileSync(p.absolute);
    } catch {
      continue; // gone since the last ingest
    }
    const oldHash = hashBytes(bytes);
    fingerprint.update(`${f.path}\0${oldHash}\n`);
    // Each line keeps its own ending and a byte-order mark stays first: only the inserted lines change.
    const raw = bytes.toString('utf8');
    const bom = raw.startsWith('\uFEFF') ? '\uFEFF' : '';
    const parts = raw.slice(bom.length).split(/(\r?\n)/);
    const lines = parts.filter((_, k) => k % 2 === 0);
    const ends = lines.map((_, k) => parts[2 * k + 1] ?? '');
    const insert = (idx: number, text: string) => {
      ends.splice(idx, 0, ends[idx] || ends[idx - 1] || '\n');
      lines.splice(idx, 0, text);
    };
    const line = `${comment(f.language!)} ${text}`;
    const inserted: { line: number; text: string }[] = [];
    if (t.kind === 'ensure_header_tag') {
      if (!lines.slice(0, 10).some((l) => l.includes(text))) {
        let at = 0;
        if (lines[0]?.startsWith('#!')) at = 1;
        if (f.language === 'python' && /^#.*coding[:=]/.test(lines[at] ?? '')) at++;
        insert(at, line);
        inserted.push({ line: at + 1, text: line });
      }
    } else {
      const symbols = graph.fileSymbols(f.path).filter((s) => s.kind === kind && s.startLine >= 1 && s.startLine <= lines.length);
      // Above the symbol's decorators or attributes; bottom-up, so earlier insertions do not move later targets.
      const tops = [...new Set(symbols.map((s) => aboveDecorators(lines, s.startLine - 1, f.language!)))].sort((a, b) => b - a);
      for (const idx of tops) {
        if (idx > 0 && lines[idx - 1].includes(text)) continue;
        const indent = /^\s*/.exec(lines[idx])![0];
        insert(idx, `${indent}${line}`);
        inserted.push({ line: idx + 1, text: `${indent}${line}` });
      }
      // Report in file order, in new-file line numbers.
      inserted.reverse();
      inserted.forEach((ins, k) => (ins.line += k));
    }
    if (inserted.length === 0) {
      unchanged++;
      continue;
    }
    changed.push({ path: f.path, absolute: p.absolute, oldHash, content: bom + lines.map((l, k) => l + ends[k]).join(''), inserted });
  }
  return { version: fingerprint.digest('hex').slice(0, 16), changed, unchanged, selected: files.length };
}
