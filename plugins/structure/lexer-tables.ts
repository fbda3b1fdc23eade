/**
 * The lexer's tables (lexer.ts): token hashes (FNV-1a: a keyword is `kw <word>`, an operator
 * `op <run>`, the rest fixed names), keywords looked up by their bytes, and byte classes.
 */

export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** FNV-1a of a string's code units (the token hashes: a keyword is `kw <word>`, an operator `op <run>`). */
export function hashOf(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h | 0;
}

export const ID = hashOf('\u0001id');
export const STR = hashOf('\u0001str');
export const NUM = hashOf('\u0001num');
export const LINE = hashOf('\u0001line');
export const INDENT = hashOf('\u0001indent');
export const DEDENT = hashOf('\u0001dedent');
/** FNV state after `op `: an operator's hash goes on over its (ASCII) bytes. */
export const OP_PREFIX = (() => {
  let h = FNV_OFFSET;
  for (const c of 'op ') h = Math.imul(h ^ c.charCodeAt(0), FNV_PRIME);
  return h;
})();

const PYTHON_KEYWORDS = ['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield', 'match', 'case', 'self', 'cls', 'super'];
/** JavaScript, TypeScript, Go, Rust and Java keywords (one set: a word that is a keyword in one of them and a name in another is rare in both). */
const C_KEYWORDS = [
  'abstract', 'as', 'async', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'of', 'private', 'protected', 'public', 'readonly', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'type', 'typeof', 'undefined', 'var', 'void', 'while', 'yield', 'keyof', 'declare', 'namespace', 'get', 'set',
  'chan', 'defer', 'func', 'go', 'goto', 'map', 'package', 'range', 'select', 'struct', 'nil',
  'crate', 'dyn', 'fn', 'impl', 'loop', 'match', 'mod', 'move', 'mut', 'pub', 'ref', 'self', 'Self', 'trait', 'unsafe', 'use', 'where', 'Some', 'None', 'Ok', 'Err',
  'boolean', 'byte', 'char', 'double', 'final', 'float', 'int', 'long', 'short', 'synchronized', 'throws', 'transient', 'volatile',
];
/** No keyword is longer than this: a longer name needs no lookup. */
const LONGEST_KEYWORD = 12;

/** Keywords by their bytes: an open-addressing table of word indices, checked byte by byte on a hit. */
class Keywords {
  private readonly slots = new Int32Array(512).fill(-1);
  private readonly words: Uint8Array[] = [];
  private readonly tokens: number[] = [];

  constructor(words: readonly string[]) {
    for (const w of words) {
      const bytes = Buffer.from(w, 'latin1');
      let at = Keywords.slot(bytes, 0, bytes.length);
      while (this.slots[at] >= 0) at = (at + 1) & 511;
      this.slots[at] = this.words.length;
      this.words.push(bytes);
      this.tokens.push(hashOf(`kw ${w}`));
    }
  }

  private static slot(b: Uint8Array, from: number, to: number): number {
    let h = FNV_OFFSET;
    for (let k = from; k < to; k++) h = Math.imul(h ^ b[k], FNV_PRIME);
    return (h ^ (h >>> 9)) & 511;
  }

  /** The token of the name bytes [from, to): its keyword's, or ID. */
  token(b: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length > LONGEST_KEYWORD) return ID;
    for (let at = Keywords.slot(b, from, to); ; at = (at + 1) & 511) {
      const w = this.slots[at];
      if (w < 0) return ID;
      const word = this.words[w];
      if (word.length !== length) continue;
      let k = 0;
      while (k < length && word[k] === b[from + k]) k++;
      if (k === length) return this.tokens[w];
    }
  }
}

export const PY = new Keywords(PYTHON_KEYWORDS);
export const CLIKE = new Keywords(C_KEYWORDS);

/** Character classes of bytes: 1 name start, 2 name part, 4 operator (a byte ≥ 128 is a name character). */
export const CLASS = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  if (c >= 128 || /[A-Za-z_$]/.test(ch)) CLASS[c] |= 3;
  else if (/[0-9]/.test(ch)) CLASS[c] |= 2;
  if ('+-*/%=<>!&|^~?@'.includes(ch)) CLASS[c] |= 4;
}
export const NAME_START = 1;
export const NAME_PART = 2;
export const OPERATOR = 4;
/** Python string prefix letters (r, b, u, f in either case). */
export const STRING_PREFIX = new Uint8Array(256);
for (const c of 'rRbBuUfF') STRING_PREFIX[c.charCodeAt(0)] = c === 'f' || c === 'F' ? 2 : 1;

/** Tokens after which a `/` divides (a value ends there); after any other, it starts a regular expression. */
export const VALUE_END: ReadonlySet<number> = new Set([ID, STR, NUM, hashOf('op )'), hashOf('op ]'), hashOf('op }'), ...['this', 'super', 'true', 'false', 'null', 'undefined'].map((w) => hashOf(`kw ${w}`))]);

