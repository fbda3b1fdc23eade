/**
 * The weighted fields a node is indexed under for `seek` (name, qualified name, signature, doc,
 * body, path), the source cuts they come from, and the marks a body gets (an accessor's or a
 * stub's). The words themselves (splitting, stop words, stems) are lexical-words.ts's.
 */
import type { GraphNode } from './graph.ts';
import { analyze, clearWordMemos, detached, phrasalCompound, wholeTerm } from './lexical-words.ts';
import { CONSTRUCTORS } from './seek-members.ts';
import { isTestFile } from './test-files.ts';

/** Index fields with their weight (how much a match there says) and length normalisation `b`. */
export const FIELDS = {
  name: { weight: 4, b: 0.3 },
  qualified: { weight: 1.5, b: 0.3 },
  signature: { weight: 1.5, b: 0.5 },
  doc: { weight: 1.5, b: 0.75 },
  body: { weight: 1, b: 0.75 },
  path: { weight: 0.6, b: 0.3 },
} as const;

/** A field name. */
export type FieldName = keyof typeof FIELDS;

/** A node's index fields, and whether its body does no work: an accessor's or a stub's (isAccessorOrStub). */
export type NodeFields = Record<FieldName, Map<string, number>> & { accessor: boolean };

/** Distinct body terms kept per symbol (the most frequent): bounds index memory on big graphs. */
export const MAX_BODY_TERMS = 40;
/** A body term counts at most this often (a loop repeating `buf` is not about buffers thrice over). */
export const MAX_BODY_TF = 3;
/** Doc tokens kept per node. */
export const MAX_DOC_TOKENS = 80;
/** Characters of a node's index-only `text` tokenised (every distinct term of it is kept). */
export const MAX_TEXT_CHARS = 65_536;
/** Lines of a symbol read for its body (long bodies: the start says what it does). */
export const MAX_BODY_LINES = 200;
/** Characters of a symbol's first lines searched for its signature. */
export const MAX_SIGNATURE_CHARS = 400;
/** Where a symbol's signature ends on one of its lines: `{` (C-like), `:` at a line end (Python), or `=>`. */
export const SIGNATURE_END = /\{|:\s*(#.*)?$|=>/;

function count(into: Map<string, number>, terms: Iterable<string>): void {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + 1);
}

const pathMemo = new Map<string, string[]>();

/** Terms of a path without its extension (memoised: every symbol of a file shares them). */
function pathTerms(path: string): string[] {
  let t = pathMemo.get(path);
  if (!t) {
    if (pathMemo.size > 50_000) pathMemo.clear();
    pathMemo.set(detached(path), (t = analyze(path.replace(/\.[^./]+$/, ''))));
  }
  return t;
}

/**
 * Splits a symbol's source (its line range) into signature text and the body's line range, without
 * copying the body (a full build reads every symbol of a large codebase).
 */
export function symbolSource(lines: readonly string[], node: GraphNode): { signature: string; bodyFrom: number; bodyTo: number; bodyHead: string } {
  const first = Math.max(0, node.startLine - 1);
  const last = Math.min(lines.length, node.endLine, first + MAX_BODY_LINES);
  if (last <= first) return { signature: '', bodyFrom: 0, bodyTo: 0, bodyHead: '' };
  // The signature ends where the body opens: `{` (C-like), `:` at a line end (Python), or `=>`.
  let head = '';
  let k = first;
  for (; k < last && head.length < MAX_SIGNATURE_CHARS; k++) {
    const line = lines[k];
    const open = line.search(SIGNATURE_END);
    if (open >= 0) return { signature: head + line.slice(0, open), bodyFrom: k + 1, bodyTo: last, bodyHead: line.slice(open) };
    head += `${line}\n`;
  }
  // No opener found (a one-line declaration, an arrow body on the next line): the first line is the signature.
  return { signature: lines[first], bodyFrom: first + 1, bodyTo: last, bodyHead: '' };
}

/** A call in source text: a name or `)`/`]` right before `(` (`f(`, `a.b(`, `g()(`, `new Foo(`). */
const CALL = /[\w$)\]]\(/;
/** Lines after the signature's line an accessor's body may take (a setter of two fields and its `}`). */
const ACCESSOR_LINES = 3;

/**
 * Whether a function's body does no work: an accessor — it only reads or sets values, at most three
 * lines after its signature's line and no call in it (`getTrim() { return trim; }`, `def name(self):
 * return self._name`, a setter of two fields) — or a stub (isStubBody). Such a function names a thing
 * without doing the work, so seek ranks it behind code that does (a delegating one-liner calls the
 * code that does, and is neither).
 * `bodyFrom` is the 0-based line after the signature's line (symbolSource); `body` gives the body's text.
 */
export function isAccessorOrStub(node: Pick<GraphNode, 'kind' | 'endLine'>, bodyFrom: number, body: () => string): boolean {
  if (node.kind !== 'function' && node.kind !== 'method') return false;
  const lines = node.endLine - bodyFrom;
  if (lines > STUB_LINES) return false;
  const text = body();
  return (lines <= ACCESSOR_LINES && !CALL.test(text)) || (STUB_HINT.test(text) && isStubBody(text));
}

/** Lines after the signature's line a stub's body may take (a long docstring and its `raise`). */
const STUB_LINES = 60;
/** What every stub body holds (a cheap test before the docstrings and comments are stripped). */
const STUB_HINT = /NotImplemented|UnsupportedOperation|not\s+implemented|\bpass\b|\.\.\./i;
/** The one statement of a stub: `pass`, `...`, `raise NotImplementedError`, `throw new UnsupportedOperationException(…)`, `throw new Error("not implemented")`. */
const STUB =
  /^(?:pass|\.\.\.|raise\s+NotImplementedError\b(?:\s*\([^()]*\))?|throw\s+new\s+(?:UnsupportedOperationException|NotImplementedException|NotImplementedError)\s*\([^()]*\)\s*;?|throw\s+new\s+Error\(\s*['"`][^'"`\n]*not\s+implemented[^'"`\n]*['"`]\s*\)\s*;?)$/i;

/**
 * Whether a body does nothing but stand for an implementation elsewhere: past its docstring and
 * comments, one `pass`, `...` or "not implemented" raise/throw (an abstract method, a protocol's
 * member, an `@overload`). Like an accessor, it names the work without doing it.
 */
function isStubBody(text: string): boolean {
  const code = text
    .replace(/^\s*(?::|=>|\{)/, '')
    .replace(/("""|''')[\s\S]*?\1/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)(?:#|\/\/)[^\n]*/g, '$1')
    .replace(/^\s*(['"]).*\1\s*$/gm, '')
    .replace(/[{}]/g, ' ')
    .trim();
  return STUB.test(code);
}

/**
 * A method whose name is one word takes its class's name into its name field: the class is the
 * verb's object (`Entities.escape` escapes entities, `GZipDecoder.decode` decodes gzip,
 * `Range.__call__` checks a range): each of the class's terms the name lacks, once. Constructors
 * (`constructor`, `__init__`, `__new__`, `new`) are left out: they would stand in for the class (a
 * Java one is named as its class already).
 */
export function namedWithClass(n: GraphNode, nameTerms: number): boolean {
  return n.kind === 'method' && nameTerms === 1 && !CONSTRUCTORS.has(n.label);
}

/** The fields a node is indexed under. `lines` is its file's text split into lines, when available. */
export function nodeFields(n: GraphNode, lines: readonly string[] | null): NodeFields {
  const f: NodeFields = { name: new Map(), qualified: new Map(), signature: new Map(), doc: new Map(), body: new Map(), path: new Map(), accessor: false };
  const slash = n.path.lastIndexOf('/');
  const dir = slash > 0 ? n.path.slice(0, slash) : '';
  const name = n.kind === 'file' ? n.label.replace(/\.[^.]+$/, '') : n.label;
  const nameTerms = analyze(name);
  count(f.name, nameTerms);
  const whole = wholeTerm(name);
  if (whole) f.name.set(whole, Math.max(1, f.name.get(whole) ?? 0));
  if (n.kind === 'file' || n.kind === 'module') {
    count(f.path, analyze(dir));
  } else {
    const q = n.qualifiedName ?? '';
    const dot = q.lastIndexOf('.');
    if (dot > 0) count(f.qualified, analyze(q.slice(0, dot)));
    if (dot > 0 && namedWithClass(n, new Set(nameTerms).size)) for (const t of analyze(q.slice(q.lastIndexOf('.', dot - 1) + 1, dot))) if (!f.name.has(t)) f.name.set(t, 1);
    count(f.path, pathTerms(n.path));
  }
  if (n.doc) {
    // A doc's phrasal verbs ("looks up a key") also count as the word a query joins them into (lookup).
    const doc = analyze(n.doc).slice(0, MAX_DOC_TOKENS);
    count(f.doc, doc);
    for (let k = 0; k + 1 < doc.length; k++) {
      const compound = phrasalCompound(doc[k], doc[k + 1]);
      if (compound) f.doc.set(compound, (f.doc.get(compound) ?? 0) + 1);
    }
  }
  if (n.text) {
    for (const t of analyze(n.text.length > MAX_TEXT_CHARS ? n.text.slice(0, MAX_TEXT_CHARS) : n.text)) f.body.set(t, Math.min(MAX_BODY_TF, (f.body.get(t) ?? 0) + 1));
  }
  if (lines && n.kind !== 'file' && n.kind !== 'module') {
    const { signature, bodyFrom, bodyTo, bodyHead } = symbolSource(lines, n);
    const own = new Set(f.name.keys());
    for (const t of analyze(signature, true)) if (!own.has(t)) f.signature.set(t, (f.signature.get(t) ?? 0) + 1);
    // Bodies of functions, methods and doc sections say what they do; a class body is its methods'.
    if (n.kind === 'function' || n.kind === 'method' || n.kind === 'section') {
      const noise = n.kind !== 'section';
      const counts = new Map<string, number>();
      count(counts, analyze(bodyHead, noise));
      for (let k = bodyFrom; k < bodyTo; k++) count(counts, analyze(lines[k], noise));
      f.accessor = isAccessorOrStub(n, bodyFrom, () => [bodyHead, ...lines.slice(bodyFrom, bodyTo)].join('\n'));
      const top = counts.size > MAX_BODY_TERMS ? [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_BODY_TERMS) : counts;
      for (const [t, c] of top) f.body.set(t, Math.min(MAX_BODY_TF, c));
    }
  }
  return f;
}

/** Total term count of a field. */
export function fieldLength(m: Map<string, number>): number {
  let s = 0;
  for (const c of m.values()) s += c;
  return s;
}

/** True when the node lives in a test file (by the language's naming conventions). */
export function isTestNode(n: GraphNode): boolean {
  if (n.isTest !== undefined) return n.isTest;
  return n.language !== null && isTestFile(n.path, n.language);
}

/** Drops the memos (they only speed up one build; queries stem a few words). */
export function clearTextMemos(): void {
  pathMemo.clear();
  clearWordMemos();
}
