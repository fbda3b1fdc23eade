/**
 * Lexical shapes for `twins`: a file's normalised token sequence read straight from its text, no
 * syntax tree — identifiers become one token, string and number literals one token each, keywords,
 * operators and brackets stay, comments drop out; Python lines add a line token and their indentation
 * changes. Every symbol's shape is the 5-token shingles of the tokens on its lines (graph ranges), so
 * two copies of a function with renamed variables have the same shingles. One pass of a character
 * loop costs a few per cent of a tree-sitter parse, so a cold `twins` needs no parse at all.
 * Pure: runs in a facts worker (facts-worker.ts) or in-process for a few files.
 */
import type { Language } from '../graph/api.ts';
import type { Shape } from './file-facts.ts';
import { minhashOf } from './minhash.ts';

/** A file's tokens: one hash per token, and the index of the first token of every line. */
export interface FileTokens {
  /** Hash of the SHINGLE-token window starting at each token (count − SHINGLE + 1 of them). */
  shingles: Int32Array;
  count: number;
  /** lineStart[i] = index of the first token on 0-based line i or later; length = lines + 1. */
  lineStart: Int32Array;
}

const SHINGLE = 5;
/** A symbol's shape reads at most this many tokens (a huge class costs no more than this). */
const MAX_SHAPE_TOKENS = 6000;

const PYTHON_KEYWORDS = ['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield', 'match', 'case', 'self', 'cls', 'super'];
/** JavaScript, TypeScript, Go, Rust and Java keywords (one set: a word that is a keyword in one of them and a name in another is rare in both). */
const C_KEYWORDS = [
  'abstract', 'as', 'async', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'of', 'private', 'protected', 'public', 'readonly', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'type', 'typeof', 'undefined', 'var', 'void', 'while', 'yield', 'keyof', 'declare', 'namespace', 'get', 'set',
  'chan', 'defer', 'func', 'go', 'goto', 'map', 'package', 'range', 'select', 'struct', 'nil',
  'crate', 'dyn', 'fn', 'impl', 'loop', 'match', 'mod', 'move', 'mut', 'pub', 'ref', 'self', 'Self', 'trait', 'unsafe', 'use', 'where', 'Some', 'None', 'Ok', 'Err',
  'boolean', 'byte', 'char', 'double', 'final', 'float', 'int', 'long', 'short', 'synchronized', 'throws', 'transient', 'volatile',
];

function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

const ID = hashOf('\u0001id');
const STR = hashOf('\u0001str');
const NUM = hashOf('\u0001num');
const LINE = hashOf('\u0001line');
const INDENT = hashOf('\u0001indent');
const DEDENT = hashOf('\u0001dedent');
const keywordHashes = (words: readonly string[]) => new Map(words.map((w) => [w, hashOf(`kw ${w}`)]));
const PY = keywordHashes(PYTHON_KEYWORDS);
const CLIKE = keywordHashes(C_KEYWORDS);
/** Hash per operator or bracket character run, filled as met. */
const OPERATORS = new Map<string, number>();

// Character classes (ASCII; any code unit ≥ 128 counts as a name character).
const NAME_START = new Uint8Array(128);
const NAME_PART = new Uint8Array(128);
const OPERATOR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_$]/.test(ch)) NAME_START[c] = 1;
  if (/[A-Za-z0-9_$]/.test(ch)) NAME_PART[c] = 1;
  if ('+-*/%=<>!&|^~?@'.includes(ch)) OPERATOR[c] = 1;
}
const isNameStart = (c: number) => (c < 128 ? NAME_START[c] === 1 : true);
const isNamePart = (c: number) => (c < 128 ? NAME_PART[c] === 1 : true);

/** A template literal or f-string being read. */
interface Interpolated {
  quote: number;
  triple: boolean;
  /** Bracket depth outside its expression. */
  depth: number;
}

class Tokens {
  hashes = new Int32Array(1024);
  count = 0;
  last(): number {
    return this.count ? this.hashes[this.count - 1] : 0;
  }
  push(h: number): void {
    if (this.count === this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.count++] = h;
  }
}

function operatorHash(text: string, from: number, to: number): number {
  const op = text.slice(from, to);
  let h = OPERATORS.get(op);
  if (h === undefined) OPERATORS.set(op, (h = hashOf(`op ${op}`)));
  return h;
}

/** Tokens after which a `/` divides (a value ends there); after any other, it starts a regular expression. */
const VALUE_END: ReadonlySet<number> = new Set([ID, STR, NUM, hashOf('op )'), hashOf('op ]'), hashOf('op }'), ...['this', 'super', 'true', 'false', 'null', 'undefined'].map((w) => CLIKE.get(w)!)]);

/** The end of a regular expression literal starting at `i` (its `/`), flags included; 0 when none ends on this line. */
function skipRegex(text: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 10) return 0;
    if (c === 92) j++;
    else if (c === 91) inClass = true;
    else if (c === 93) inClass = false;
    else if (c === 47 && !inClass) {
      let k = j + 1;
      while (k < text.length && isNamePart(text.charCodeAt(k))) k++;
      return k;
    }
  }
  return 0;
}

/** The end of a quoted literal starting at `i` (the quote), with backslash escapes; stops at a newline unless `multiline`. */
function skipQuoted(text: string, i: number, quote: number, multiline: boolean): number {
  const n = text.length;
  for (let j = i + 1; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === quote) return j + 1;
    else if (c === 10 && !multiline) return j;
  }
  return n;
}

/**
 * Tokens of a file and the first token index of each line. `python`: `#` comments, triple-quoted
 * strings, string prefixes, a line token at each logical line and indent/dedent tokens; otherwise
 * C-like: `//` and block comments, quotes and backtick literals (a Rust lifetime is a name).
 */
export function lexFile(language: Language, text: string): FileTokens {
  const python = language === 'python';
  const keywords = python ? PY : CLIKE;
  const out = new Tokens();
  const lineStarts: number[] = [0];
  const n = text.length;
  let depth = 0; // open brackets (Python: a line inside brackets is not a logical line)
  let atLineStart = true;
  let indent = 0;
  const templates = language === 'javascript' || language === 'typescript' || language === 'tsx';
  let fString = false;
  /** Templates and f-strings whose `${`/`{` expression is being lexed, innermost last. */
  const inside: Interpolated[] = [];
  /**
   * Reads a template or f-string's text from `from` to its end (returns past the closing quote) or
   * to an expression's opening brace (pushes the literal on `inside`, returns past the brace).
   */
  const resume = (lit: Interpolated, from: number): number => {
    const q = lit.quote;
    for (let j = from; j < n; j++) {
      const d = text.charCodeAt(j);
      if (d === 10) {
        if (!lit.triple && q !== 96) return j;
        lineStarts.push(out.count);
      } else if (d === 92) {
        if (text.charCodeAt(j + 1) === 10) lineStarts.push(out.count);
        j++;
      } else if (d === q && (!lit.triple || (text.charCodeAt(j + 1) === q && text.charCodeAt(j + 2) === q))) return j + (lit.triple ? 3 : 1);
      else if (q === 96 ? d === 36 && text.charCodeAt(j + 1) === 123 : d === 123) {
        if (q !== 96 && text.charCodeAt(j + 1) === 123) {
          j++; // {{ in an f-string: a brace of its text
          continue;
        }
        inside.push({ quote: q, triple: lit.triple, depth });
        depth++;
        return j + (q === 96 ? 2 : 1);
      }
    }
    return n;
  };
  const newline = () => {
    lineStarts.push(out.count);
    atLineStart = true;
  };
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c === 10) {
      newline();
      i++;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12) {
      i++;
      continue;
    }
    if (python && atLineStart && depth === 0) {
      // A logical line's first token: its indentation against the previous one's.
      let col = 0;
      let k = lineStarts.length > 0 ? text.lastIndexOf('\n', i - 1) + 1 : 0;
      for (; k < i; k++) col += text.charCodeAt(k) === 9 ? 8 - (col % 8) : 1;
      if (c !== 35) {
        out.push(LINE);
        if (col > indent) out.push(INDENT);
        else if (col < indent) out.push(DEDENT);
        indent = col;
      }
    }
    atLineStart = false;
    if (python ? c === 35 : c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (!python && c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = text.indexOf('\n', i); k >= 0 && k < stop; k = text.indexOf('\n', k + 1)) lineStarts.push(out.count);
      i = stop;
      continue;
    }
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(text.charCodeAt(j))) j++;
      const q = text.charCodeAt(j);
      // Python string prefixes (r, b, f, u and pairs) glued to a quote.
      if (python && (q === 34 || q === 39) && j - i <= 2 && /^[rRbBuUfF]+$/.test(text.slice(i, j))) {
        fString = /[fF]/.test(text.slice(i, j));
        i = j;
        c = q;
      } else {
        // No keyword is longer than 12 characters: a longer name needs no lookup.
        out.push(j - i > 12 ? ID : (keywords.get(text.slice(i, j)) ?? ID));
        i = j;
        continue;
      }
    }
    if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isNamePart(d) || d === 46) j++;
        else break;
      }
      out.push(NUM);
      i = j;
      continue;
    }
    if (fString || (c === 96 && templates)) {
      // A literal with expressions inside: its text is one token, its expressions are lexed.
      const triple = python && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c;
      const open: Interpolated = { quote: c, triple, depth };
      fString = false;
      out.push(STR);
      i = resume(open, i + (triple ? 3 : 1));
      continue;
    }
    if (c === 34 || c === 39 || (c === 96 && !python)) {
      let end: number;
      if (python && text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c) {
        const close = text.indexOf(String.fromCharCode(c, c, c), i + 3);
        end = close < 0 ? n : close + 3;
      } else if (c === 39 && language === 'rust' && !/^'(\\.[^']*|[^'\\])'/.test(text.slice(i, i + 12))) {
        // A lifetime ('a), not a character literal.
        out.push(ID);
        i++;
        continue;
      } else end = skipQuoted(text, i, c, c === 96);
      for (let k = text.indexOf('\n', i); k >= 0 && k < end; k = text.indexOf('\n', k + 1)) lineStarts.push(out.count);
      out.push(STR);
      i = end;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) {
      depth++;
      out.push(operatorHash(text, i, i + 1));
      i++;
      continue;
    }
    if (c === 125 && inside.length && inside[inside.length - 1].depth === depth - 1) {
      // The end of an expression inside a template or f-string: the literal goes on.
      depth--;
      i = resume(inside.pop()!, i + 1);
      continue;
    }
    if (c === 41 || c === 93 || c === 125) {
      if (depth > 0) depth--;
      out.push(operatorHash(text, i, i + 1));
      i++;
      continue;
    }
    if (c === 47 && templates && !VALUE_END.has(out.last())) {
      // A regular expression literal (a `/` where no value ends): one token, like a string.
      const end = skipRegex(text, i);
      if (end > 0) {
        out.push(STR);
        i = end;
        continue;
      }
    }
    if (c < 128 && OPERATOR[c] === 1) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) < 128 && OPERATOR[text.charCodeAt(j)] === 1) j++;
      out.push(operatorHash(text, i, j));
      i = j;
      continue;
    }
    if (python && c === 92 && text.charCodeAt(i + 1) === 10) {
      // An explicit line join: the next line continues this one.
      lineStarts.push(out.count);
      i += 2;
      continue;
    }
    // , ; : . and anything else: no shape.
    i++;
  }
  lineStarts.push(out.count);
  const count = out.count;
  const shingles = new Int32Array(Math.max(0, count - SHINGLE + 1));
  const t = out.hashes;
  for (let k = 0; k < shingles.length; k++) {
    let h = 0x811c9dc5;
    for (let m = k; m < k + SHINGLE; m++) h = Math.imul(h ^ t[m], 0x01000193);
    shingles[k] = h;
  }
  return { shingles, count, lineStart: Int32Array.from(lineStarts) };
}

/** The shape of a symbol on 1-based lines [startLine, endLine] of a lexed file. */
export function rangeShape(file: FileTokens, startLine: number, endLine: number): Shape {
  const lines = file.lineStart.length - 1;
  const from = file.lineStart[Math.min(Math.max(0, startLine - 1), lines)];
  const to = Math.min(file.lineStart[Math.min(Math.max(0, endLine), lines)], from + MAX_SHAPE_TOKENS);
  const end = Math.max(from, to - SHINGLE + 1);
  const sorted = file.shingles.slice(from, Math.min(end, file.shingles.length)).sort();
  let k = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[k++] = sorted[i];
  return { shingles: sorted.slice(0, k), tokens: Math.max(0, to - from) };
}

/** Shapes of a file's symbols (1-based line ranges, in the order given); `minTokens`: those of at least that many tokens also get their MinHash signature. */
export function lexicalShapes(language: Language, text: string, ranges: readonly (readonly [number, number])[], minTokens = Infinity): Shape[] {
  const file = lexFile(language, text);
  return ranges.map(([a, b]) => {
    const shape = rangeShape(file, a, b);
    if (shape.tokens >= minTokens) shape.minhash = minhashOf(shape.shingles);
    return shape;
  });
}

/**
 * A batch's shapes as one Int32Array (one transfer between threads, not one per shape): per file
 * −1 (unreadable) or its shape count, then per shape tokens, shingle count, 1 when a MinHash
 * signature follows (else 0), the shingles, the signature.
 */
export function packShapes(files: readonly (readonly Shape[] | null)[]): Int32Array {
  let size = 0;
  for (const list of files) {
    size++;
    for (const s of list ?? []) size += 3 + s.shingles.length + (s.minhash?.length ?? 0);
  }
  const out = new Int32Array(size);
  let at = 0;
  for (const list of files) {
    out[at++] = list ? list.length : -1;
    for (const s of list ?? []) {
      out[at++] = s.tokens;
      out[at++] = s.shingles.length;
      out[at++] = s.minhash ? 1 : 0;
      out.set(s.shingles, at);
      at += s.shingles.length;
      if (s.minhash) {
        out.set(s.minhash, at);
        at += s.minhash.length;
      }
    }
  }
  return out;
}

/** The shapes `packShapes` packed, as views of its buffer (no copy). */
export function unpackShapes(packed: Int32Array, signature: number): (Shape[] | null)[] {
  const files: (Shape[] | null)[] = [];
  for (let at = 0; at < packed.length; ) {
    const count = packed[at++];
    if (count < 0) {
      files.push(null);
      continue;
    }
    const list: Shape[] = [];
    for (let k = 0; k < count; k++) {
      const tokens = packed[at++];
      const n = packed[at++];
      const hasMinhash = packed[at++] === 1;
      const shape: Shape = { tokens, shingles: packed.subarray(at, at + n) };
      at += n;
      if (hasMinhash) {
        shape.minhash = packed.subarray(at, at + signature);
        at += signature;
      }
      list.push(shape);
    }
    files.push(list);
  }
  return files;
}
