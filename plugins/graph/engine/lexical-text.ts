/**
 * Text analysis shared by `seek` and semantic `search`: identifier splitting, stop words, stemming,
 * and the weighted fields a node is indexed under (name, qualified name, signature, doc, body, path).
 * Index and query go through the same `analyze` so "retries" meets `retryRequest` and "is" meets nothing.
 */
import { stemmer } from 'stemmer';
import type { GraphNode } from './graph.ts';
import { isTestFile } from './test-files.ts';

/**
 * Splits identifiers, paths and prose into lowercase tokens: `parseHTTPRequest_v2` → parse, http,
 * request, v2. With `halves`, a word with a number on its end is also its two halves (`ISO8601Utils`
 * → iso8601, iso, 8601, utils), so prose that spells them apart ("ISO 8601", "UTF-8", "SHA-256")
 * meets the name (the seek index and its queries).
 */
export function tokenize(text: string, halves = false): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    // `IPv6` before the acronym rule, which would leave `I` | `Pv6`.
    const parts = word.match(/[A-Z]{2,}[a-z]\d+|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+/g);
    if (!parts) continue;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      if (p.length < 2 && !/\d/.test(p)) {
        // A lone capital before a capitalised word is a prefix of it, not a word: `GZip` → gzip (and zip), `XPath` → xpath.
        const next = parts[k + 1];
        if (/[A-Z]/.test(p) && next !== undefined && /^[A-Z][a-z]/.test(next)) out.push((p + next).toLowerCase());
        continue;
      }
      const lower = p.toLowerCase();
      out.push(lower);
      const split = halves ? /^([a-z]{2,})(\d+)$/.exec(lower) : null;
      if (split) out.push(split[1], split[2]);
    }
  }
  return out;
}

/**
 * English words that carry no meaning in a "where/how" question, dropped from queries and from every
 * indexed field except the whole identifier (so `is_draft` is found by "draft", never by "is").
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being by can could did do does doing done for from had has have how if in into is it its ' +
    'of on or our should so such than that the their them then there these they this those to was we were what when where ' +
    'which while who whom why will with would you your not no me my i about via also just any some all each ' +
    'over through upon onto whose ' +
    'code logic implemented implementation happen happens work works'
  ).split(' '),
);

/** Keywords and builtin type names of the supported languages: noise in signatures and bodies. */
const CODE_NOISE: ReadonlySet<string> = new Set(
  (
    'def return returns const let var function if else elif for while import export from class new await async try ' +
    'finally self this none null undefined true false typeof instanceof void any string number ' +
    'boolean bool int str dict list tuple pass lambda yield case switch break continue default static public private ' +
    'protected readonly extends implements interface type enum func defer chan fn pub mut impl struct use mod package ' +
    'object unknown never nil err len range go println print todo args kwargs cls'
  ).split(' '),
);

/** Irregular past forms common in questions about code ("where is it thrown"), mapped to the verb. */
const IRREGULAR: ReadonlyMap<string, string> = new Map(
  Object.entries({
    found: 'find', thrown: 'throw', threw: 'throw', built: 'build', written: 'write', wrote: 'write', sent: 'send',
    chosen: 'choose', chose: 'choose', ran: 'run', got: 'get', gotten: 'get', made: 'make', held: 'hold', kept: 'keep',
    taken: 'take', took: 'take', given: 'give', gave: 'give', begun: 'begin', began: 'begin',
    hidden: 'hide', shown: 'show', drawn: 'draw', frozen: 'freeze',
    lost: 'lose', sought: 'seek', caught: 'catch', brought: 'bring',
  }),
);

const stemMemo = new Map<string, string>();

/**
 * A string that shares no memory with the text it was cut from. V8 keeps a slice of 13+ characters
 * as a view of its parent, so a memoised token cut from a file would keep the whole file's text
 * alive after the content cache dropped it (measured: 7.8 MB of stdlib sources held by the memos).
 */
function detached(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** Porter stem of a lowercase token, memoised (the vocabulary of a codebase is small and repeats). */
export function stem(token: string): string {
  let s = stemMemo.get(token);
  if (s === undefined) {
    if (stemMemo.size > 200_000) stemMemo.clear();
    const base = IRREGULAR.get(token) ?? token;
    s = base.length <= 3 || /\d/.test(base) ? base : stemmer(base);
    // Porter undoubles after cutting -ed/-ing (`added` → `ad`) while `add` stays `add`: keep 3+ letters.
    if (s.length < 3) s = base.replace(/(ing|ed|es|s)$/, '');
    // Porter keeps -able/-ible on short stems (`draftable` → `draftabl`); code names adjectives after
    // their verbs (`isDraftable`, `callable`), so fold them onto the verb.
    if (/[^aeiou][ai]bl$/.test(s) && s.length >= 7) s = s.slice(0, -3);
    s = detached(s);
    stemMemo.set(detached(token), s);
  }
  return s;
}

const wordMemo = new Map<string, string[]>();
let noiseStems: Set<string> | null = null;

/** Content terms of one word (`parseHeaders` → pars, header), memoised: code repeats its words. */
function wordTerms(word: string): string[] {
  let terms = wordMemo.get(word);
  if (!terms) {
    if (wordMemo.size > 200_000) wordMemo.clear();
    terms = [];
    for (const t of tokenize(word, true)) if (!STOP_WORDS.has(t)) terms.push(stem(t));
    wordMemo.set(detached(word), terms);
  }
  return terms;
}

/**
 * Words programmers use for one another in questions and in code ("wait" for a delay, "compute" for
 * calculate). A query word also matches its group's other stems, at a reduced weight (seek-scoring).
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['wait', 'delay', 'sleep', 'backoff'],
  ['compute', 'calculate', 'calc'],
  ['find', 'search', 'lookup', 'locate', 'get'],
  ['check', 'validate', 'verify', 'ensure'],
  ['create', 'make', 'build', 'construct'],
  ['remove', 'delete', 'drop'],
  ['start', 'begin', 'launch'],
  ['stop', 'halt', 'terminate', 'abort', 'cancel', 'kill'],
  ['error', 'exception', 'failure'],
  ['parse', 'decode', 'deserialize'],
  ['encode', 'serialize', 'marshal'],
  ['send', 'emit', 'dispatch'],
  ['fetch', 'retrieve', 'download'],
  ['configuration', 'config', 'settings', 'options'],
  ['guess', 'detect', 'infer', 'sniff'],
  ['run', 'execute', 'invoke'],
  ['convert', 'transform'],
  ['merge', 'combine'],
  ['copy', 'clone', 'duplicate'],
  ['save', 'persist', 'store'],
  ['subscribe', 'observe', 'listen'],
  ['directory', 'folder', 'dir'],
  ['authentication', 'auth', 'login', 'credentials'],
  ['throw', 'raise'],
  ['catch', 'except', 'rescue'],
  // Abbreviations code uses for the words a question spells out.
  ['minimum', 'min'],
  ['maximum', 'max'],
  ['number', 'num'],
  ['message', 'msg'],
  ['argument', 'arg'],
  ['parameter', 'param'],
  ['attribute', 'attr'],
  ['index', 'idx'],
  ['request', 'req'],
  ['response', 'resp'],
  ['context', 'ctx'],
  ['environment', 'env'],
  ['buffer', 'buf'],
  ['previous', 'prev'],
  ['current', 'cur'],
  ['connection', 'conn'],
  ['database', 'db'],
  ['document', 'doc'],
  ['package', 'pkg'],
  ['repository', 'repo'],
  ['reference', 'ref'],
  ['address', 'addr'],
  ['temporary', 'tmp', 'temp'],
  ['destination', 'dst', 'dest'],
  ['source', 'src'],
];

/**
 * Phrasal verbs code spells as one word ("look up" → lookup, "clean up" → cleanup, "shut down" →
 * shutdown), keyed by the stems of the verb and its particle. "up to the latest" stays two words.
 */
const PHRASAL: ReadonlyMap<string, string> = new Map(
  [
    ['look', 'up', 'lookup'],
    ['set', 'up', 'setup'],
    ['clean', 'up', 'cleanup'],
    ['tear', 'down', 'teardown'],
    ['shut', 'down', 'shutdown'],
    ['start', 'up', 'startup'],
    ['log', 'out', 'logout'],
    ['sign', 'up', 'signup'],
    ['sign', 'out', 'signout'],
    ['back', 'up', 'backup'],
    ['roll', 'back', 'rollback'],
  ].map(([verb, particle, compound]) => [`${stem(verb)} ${stem(particle)}`, compound]),
);

/** The one word code uses for a phrasal verb given as the stems of its two words (`look`, `up` → lookup), if any. */
export function phrasalCompound(verbStem: string, particleStem: string): string | undefined {
  return PHRASAL.get(`${verbStem} ${particleStem}`);
}

/** A query's words with each phrasal verb ("looks up", "cleaned up") joined into the word code uses for it. */
export function phrasalCompounds(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const compound = i + 1 < words.length ? phrasalCompound(stem(words[i]), stem(words[i + 1])) : undefined;
    if (compound) {
      out.push(compound);
      i++;
    } else out.push(words[i]);
  }
  return out;
}

let synonymIndex: Map<string, string[]> | null = null;

/** Stems that mean the same as this stem in code (not including itself). */
export function synonymsOf(term: string): readonly string[] {
  if (!synonymIndex) {
    synonymIndex = new Map();
    for (const group of SYNONYM_GROUPS) {
      const stems = [...new Set(group.map((w) => stem(w)))];
      for (const s of stems) synonymIndex.set(s, [...new Set([...(synonymIndex.get(s) ?? []), ...stems.filter((x) => x !== s)])]);
    }
  }
  return synonymIndex.get(term) ?? [];
}

/** Content terms of one word of letters and digits, not memoised (the full build keeps its own table: lexical-fields.ts). */
export function termsOfWord(word: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(word, true)) if (!STOP_WORDS.has(t)) out.push(stem(t));
  return out;
}

/** Whether a term is a keyword or builtin type name (dropped from signatures and code bodies). */
export function isCodeNoise(term: string): boolean {
  noiseStems ??= new Set([...CODE_NOISE].map(stem));
  return noiseStems.has(term);
}

/** Content terms of free text: split, stop words dropped, stemmed; `dropCodeNoise` also drops keywords. */
export function analyze(text: string, dropCodeNoise = false): string[] {
  noiseStems ??= new Set([...CODE_NOISE].map(stem));
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    for (const t of wordTerms(word)) if (!dropCodeNoise || !noiseStems.has(t)) out.push(t);
  }
  return out;
}

/** A whole identifier as one term (`get_attr` and `getAttr` → `getattr`); '' when too short. */
export function wholeTerm(name: string): string {
  const w = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return w.length >= 2 ? w : '';
}

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

/** Constructors: named by their class already (Java), or boilerplate that stands for the class rather than an action on it. */
const CONSTRUCTOR_NAMES = new Set(['constructor', '__init__', '__new__']);

/**
 * A method whose name is one word takes its class's name into its name field: the class is the
 * verb's object (`Entities.escape` escapes entities, `GZipDecoder.decode` decodes gzip,
 * `Range.__call__` checks a range): each of the class's terms the name lacks, once. Constructors
 * are left out (they would stand in for the class).
 */
export function namedWithClass(n: GraphNode, nameTerms: number): boolean {
  return n.kind === 'method' && nameTerms === 1 && !CONSTRUCTOR_NAMES.has(n.label);
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
  wordMemo.clear();
  stemMemo.clear();
}
