/**
 * The lexer of `twins`' lexical shapes (lexical-shapes.ts): a file's normalised token sequence read
 * straight from its UTF-8 bytes — identifiers become one token, string and number literals one token
 * each, keywords, operators and brackets stay, comments drop out; Python lines add a line token and
 * their indentation changes.
 *
 * It reads bytes, not a decoded string: a cold `twins` lexes every file of the workspace, and a
 * string's `charCodeAt` costs a check of the string's representation at every read (and a large
 * function full of them costs V8 tens of milliseconds to optimise, again in every worker). Every
 * character that decides a token is ASCII, and any byte ≥ 128 counts as a name character as any code
 * unit ≥ 128 did, so the tokens are those of the decoded text.
 */
import type { Language } from '../graph/api.ts';
import { SHINGLE, windowHashes } from './shingles.ts';
import { CLASS, CLIKE, DEDENT, FNV_PRIME, ID, INDENT, LINE, NAME_PART, NAME_START, NUM, OP_PREFIX, OPERATOR, PY, STR, STRING_PREFIX, VALUE_END } from './lexer-tables.ts';

/** A file's tokens: one hash per token, and the index of the first token of every line. */
export interface FileTokens {
  /** Hash of the SHINGLE-token window starting at each token (count − SHINGLE + 1 of them). */
  shingles: Int32Array;
  count: number;
  /** lineStart[i] = index of the first token on 0-based line i or later; length = lines + 1. */
  lineStart: Int32Array;
}


const enum Ch {
  Tab = 9,
  Newline = 10,
  FormFeed = 12,
  Return = 13,
  Space = 32,
  Bang = 33,
  DoubleQuote = 34,
  Hash = 35,
  Dollar = 36,
  Quote = 39,
  OpenParen = 40,
  CloseParen = 41,
  Star = 42,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  Backtick = 96,
  OpenBrace = 123,
  CloseBrace = 125,
}

/** A template literal or f-string being read. */
interface Interpolated {
  quote: number;
  triple: boolean;
  /** Bracket depth outside its expression. */
  depth: number;
}

/** Token and line buffers reused from file to file (grown to the largest file's bound). */
let tokenBuffer = new Int32Array(1 << 16);
let lineBuffer = new Int32Array(1 << 12);

/** The state of one file's lex; the rare constructs are methods, so that the main loop stays small. */
class Lex {
  tokens: Int32Array;
  count = 0;
  lines: Int32Array;
  lineCount = 0;
  /** Open brackets (Python: a line inside brackets is not a logical line). */
  depth = 0;
  /** Templates and f-strings whose `${`/`{` expression is being lexed, innermost last. */
  readonly inside: Interpolated[] = [];

  constructor(
    readonly b: Uint8Array,
    readonly n: number,
    tokenBound: number,
  ) {
    if (tokenBuffer.length < tokenBound) tokenBuffer = new Int32Array(tokenBound);
    if (lineBuffer.length < n + 2) lineBuffer = new Int32Array(n + 2);
    this.tokens = tokenBuffer;
    this.lines = lineBuffer;
    this.lines[this.lineCount++] = 0;
  }

  push(h: number): void {
    this.tokens[this.count++] = h;
  }

  newlineAt(): void {
    this.lines[this.lineCount++] = this.count;
  }

  /** One line start per newline in [from, to). */
  linesIn(from: number, to: number): void {
    const b = this.b;
    for (let k = from; k < to; k++) if (b[k] === Ch.Newline) this.lines[this.lineCount++] = this.count;
  }

  operator(from: number, to: number): number {
    let h = OP_PREFIX;
    for (let k = from; k < to; k++) h = Math.imul(h ^ this.b[k], FNV_PRIME);
    return h | 0;
  }

  /** The end of a `/* … *\/` comment starting at `i`, its newlines counted. */
  blockComment(i: number): number {
    const b = this.b;
    let stop = this.n;
    for (let k = i + 2; k + 1 < this.n; k++) {
      if (b[k] === Ch.Star && b[k + 1] === Ch.Slash) {
        stop = k + 2;
        break;
      }
    }
    this.linesIn(i, stop);
    return stop;
  }

  /** The end of a quoted literal starting at `i` (the quote), with backslash escapes; stops at a newline unless `multiline`. */
  quoted(i: number, quote: number, multiline: boolean): number {
    const b = this.b;
    const n = this.n;
    for (let j = i + 1; j < n; j++) {
      const c = b[j];
      if (c === Ch.Backslash) j++;
      else if (c === quote) return j + 1;
      else if (c === Ch.Newline && !multiline) return j;
    }
    return n;
  }

  /** The end of a Python triple-quoted literal opened at `i`. */
  tripleQuoted(i: number, quote: number): number {
    const b = this.b;
    for (let k = i + 3; k + 2 < this.n; k++) if (b[k] === quote && b[k + 1] === quote && b[k + 2] === quote) return k + 3;
    return this.n;
  }

  /** The end of a regular expression literal starting at `i` (its `/`), flags included; 0 when none ends on this line. */
  regex(i: number): number {
    const b = this.b;
    const n = this.n;
    let inClass = false;
    for (let j = i + 1; j < n; j++) {
      const c = b[j];
      if (c === Ch.Newline) return 0;
      if (c === Ch.Backslash) j++;
      else if (c === Ch.OpenBracket) inClass = true;
      else if (c === Ch.CloseBracket) inClass = false;
      else if (c === Ch.Slash && !inClass) {
        let k = j + 1;
        while (k < n && (CLASS[b[k]] & NAME_PART) !== 0) k++;
        return k;
      }
    }
    return 0;
  }

  /** Whether the `'` at `i` of a Rust file opens a character literal (else it is a lifetime, a name). */
  rustChar(i: number): boolean {
    // Decoded: the pattern counts characters (an escape, then anything up to the closing quote, within 12 code units).
    const text = Buffer.from(this.b.buffer, this.b.byteOffset, this.b.length).toString('utf8', i, Math.min(this.n, i + 48)).slice(0, 12);
    return /^'(\\.[^']*|[^'\\])'/.test(text);
  }

  /**
   * Reads a template or f-string's text from `from` to its end (returns past the closing quote) or
   * to an expression's opening brace (pushes the literal on `inside`, returns past the brace).
   */
  resume(lit: Interpolated, from: number): number {
    const b = this.b;
    const n = this.n;
    const q = lit.quote;
    for (let j = from; j < n; j++) {
      const d = b[j];
      if (d === Ch.Newline) {
        if (!lit.triple && q !== Ch.Backtick) return j;
        this.newlineAt();
      } else if (d === Ch.Backslash) {
        if (b[j + 1] === Ch.Newline) this.newlineAt();
        j++;
      } else if (d === q && (!lit.triple || (b[j + 1] === q && b[j + 2] === q))) return j + (lit.triple ? 3 : 1);
      else if (q === Ch.Backtick ? d === Ch.Dollar && b[j + 1] === Ch.OpenBrace : d === Ch.OpenBrace) {
        if (q !== Ch.Backtick && b[j + 1] === Ch.OpenBrace) {
          j++; // {{ in an f-string: a brace of its text
          continue;
        }
        this.inside.push({ quote: q, triple: lit.triple, depth: this.depth });
        this.depth++;
        return j + (q === Ch.Backtick ? 2 : 1);
      }
    }
    return n;
  }

  /** Python: a logical line's first token at `i`: its line token and indentation change against `indent`; returns the new indentation. */
  logicalLine(i: number, indent: number): number {
    const b = this.b;
    let k = i;
    while (k > 0 && b[k - 1] !== Ch.Newline) k--;
    let col = 0;
    for (; k < i; k++) col += b[k] === Ch.Tab ? 8 - (col % 8) : 1;
    this.push(LINE);
    if (col > indent) this.push(INDENT);
    else if (col < indent) this.push(DEDENT);
    return col;
  }

  /** The 5-token shingles and the line starts, copied out of the shared buffers. */
  result(): FileTokens {
    this.lines[this.lineCount++] = this.count;
    const count = this.count;
    const shingles = windowHashes(this.tokens, count, new Int32Array(Math.max(0, count - SHINGLE + 1)));
    return { shingles, count, lineStart: this.lines.slice(0, this.lineCount) };
  }
}

/**
 * Tokens of a file (UTF-8 bytes, or a string encoded first) and the first token index of each line.
 * `python`: `#` comments, triple-quoted strings, string prefixes, a line token at each logical line
 * and indent/dedent tokens; otherwise C-like: `//` and block comments, quotes and backtick literals
 * (a Rust lifetime is a name).
 */
export function lexFile(language: Language, source: Uint8Array | string): FileTokens {
  const b = typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
  const n = b.length;
  const python = language === 'python';
  const rust = language === 'rust';
  const templates = language === 'javascript' || language === 'typescript' || language === 'tsx';
  const keywords = python ? PY : CLIKE;
  // At most three tokens a byte (Python: a line token and an indent before a logical line's first token).
  const lex = new Lex(b, n, (python ? 3 : 1) * n + 4);
  let atLineStart = true;
  let indent = 0;
  let fString = false;
  let i = 0;
  while (i < n) {
    let c = b[i];
    if (c === Ch.Newline) {
      lex.newlineAt();
      atLineStart = true;
      i++;
      continue;
    }
    if (c === Ch.Space || c === Ch.Tab || c === Ch.Return || c === Ch.FormFeed) {
      i++;
      continue;
    }
    if (python && atLineStart && lex.depth === 0 && c !== Ch.Hash) indent = lex.logicalLine(i, indent);
    atLineStart = false;
    if (python ? c === Ch.Hash : c === Ch.Slash && b[i + 1] === Ch.Slash) {
      while (i < n && b[i] !== Ch.Newline) i++;
      continue;
    }
    if (!python && c === Ch.Slash && b[i + 1] === Ch.Star) {
      i = lex.blockComment(i);
      continue;
    }
    const cls = CLASS[c];
    if ((cls & NAME_START) !== 0) {
      let j = i + 1;
      while (j < n && (CLASS[b[j]] & NAME_PART) !== 0) j++;
      const q = j < n ? b[j] : 0;
      // Python string prefixes (r, b, f, u and pairs) glued to a quote.
      if (python && (q === Ch.DoubleQuote || q === Ch.Quote) && j - i <= 2 && STRING_PREFIX[c] !== 0 && (j - i === 1 || STRING_PREFIX[b[i + 1]] !== 0)) {
        fString = STRING_PREFIX[c] === 2 || (j - i === 2 && STRING_PREFIX[b[i + 1]] === 2);
        i = j;
        c = q;
      } else {
        lex.push(keywords.token(b, i, j));
        i = j;
        continue;
      }
    } else if (c >= Ch.Zero && c <= Ch.Nine) {
      let j = i + 1;
      while (j < n && ((CLASS[b[j]] & NAME_PART) !== 0 || b[j] === Ch.Dot)) j++;
      lex.push(NUM);
      i = j;
      continue;
    }
    if (fString || (c === Ch.Backtick && templates)) {
      // A literal with expressions inside: its text is one token, its expressions are lexed.
      const triple = python && b[i + 1] === c && b[i + 2] === c;
      const open: Interpolated = { quote: c, triple, depth: lex.depth };
      fString = false;
      lex.push(STR);
      i = lex.resume(open, i + (triple ? 3 : 1));
      continue;
    }
    if (c === Ch.DoubleQuote || c === Ch.Quote || (c === Ch.Backtick && !python)) {
      let end: number;
      if (python && b[i + 1] === c && b[i + 2] === c) end = lex.tripleQuoted(i, c);
      else if (c === Ch.Quote && rust && !lex.rustChar(i)) {
        lex.push(ID); // a lifetime ('a), not a character literal
        i++;
        continue;
      } else end = lex.quoted(i, c, c === Ch.Backtick);
      lex.linesIn(i, end);
      lex.push(STR);
      i = end;
      continue;
    }
    if (c === Ch.OpenParen || c === Ch.OpenBracket || c === Ch.OpenBrace) {
      lex.depth++;
      lex.push(lex.operator(i, i + 1));
      i++;
      continue;
    }
    if (c === Ch.CloseBrace && lex.inside.length && lex.inside[lex.inside.length - 1].depth === lex.depth - 1) {
      // The end of an expression inside a template or f-string: the literal goes on.
      lex.depth--;
      i = lex.resume(lex.inside.pop()!, i + 1);
      continue;
    }
    if (c === Ch.CloseParen || c === Ch.CloseBracket || c === Ch.CloseBrace) {
      if (lex.depth > 0) lex.depth--;
      lex.push(lex.operator(i, i + 1));
      i++;
      continue;
    }
    if (c === Ch.Slash && templates && !VALUE_END.has(lex.count ? lex.tokens[lex.count - 1] : 0)) {
      // A regular expression literal (a `/` where no value ends): one token, like a string.
      const end = lex.regex(i);
      if (end > 0) {
        lex.push(STR);
        i = end;
        continue;
      }
    }
    if ((cls & OPERATOR) !== 0) {
      let j = i + 1;
      while (j < n && (CLASS[b[j]] & OPERATOR) !== 0) j++;
      lex.push(lex.operator(i, j));
      i = j;
      continue;
    }
    if (python && c === Ch.Backslash && b[i + 1] === Ch.Newline) {
      // An explicit line join: the next line continues this one.
      lex.newlineAt();
      i += 2;
      continue;
    }
    // , ; : . and anything else: no shape.
    i++;
  }
  return lex.result();
}
