/**
 * Search patterns that run in time linear in the text: a user regex is compiled by re2js (pure-JS
 * RE2: no backtracking, so `(a+)+$` cannot pin the CPU), and a literal is an escaped JavaScript
 * RegExp (no alternation or nesting, so V8's backtracking engine is linear on it and faster).
 * RE2 refuses backreferences and lookaround; the refusal names them and the way around them.
 */
import { RE2JS, RE2JSException } from 're2js';
import { EngineError, EngineErrorCodes } from './errors.ts';

/** A compiled search pattern: whether a text matches, and the first match at or after an offset. */
export interface LinearPattern {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** The first match starting at or after `from` (UTF-16 offsets), or null. */
  find(text: string, from: number): { start: number; end: number } | null;
  /** Which engine runs it ('re2' for regexes, 'literal' for escaped literals). */
  readonly engine: 're2' | 'literal';
}

/** How a pattern is compiled. */
export interface PatternFlags {
  regex: boolean;
  caseSensitive: boolean;
  /** `.` matches newlines too (matches may span lines). */
  dotAll: boolean;
}

const REGEX_HINT = 'RE2 syntax: rewrite without backreferences (\\1) and lookaround ((?=…), (?!…), (?<=…), (?<!…)) — e.g. match the wider text and filter, or use mode "literal"';

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Names the unsupported construct a regex uses, when the RE2 parser refused it for that reason. */
function unsupportedConstruct(source: string, message: string): string | null {
  // An unescaped `(?=` `(?!` `(?<=` `(?<!` or `\k<`: preceded by an even number of backslashes.
  if (/(?:^|[^\\])(?:\\\\)*\(\?<?[=!]/.test(source) || /unsupported Perl syntax: `\(\?<?[=!]/.test(message)) return 'lookaround ((?=…), (?!…), (?<=…), (?<!…))';
  if (/invalid escape sequence: `\\[1-9]/.test(message) || /(?:^|[^\\])(?:\\\\)*\\k</.test(source)) return 'backreferences (\\1, \\k<name>)';
  return null;
}

/** Compiles a literal or a regex into a linear-time pattern; throws SEARCH_PATTERN for a bad or unsupported regex. */
export function compileLinearPattern(query: string, flags: PatternFlags): LinearPattern {
  if (!flags.regex && flags.caseSensitive) {
    // A case-sensitive literal is a plain substring search (dotAll changes nothing without a `.`).
    return {
      engine: 'literal',
      test: (text) => text.includes(query),
      find: (text, from) => {
        const i = text.indexOf(query, from);
        return i < 0 ? null : { start: i, end: i + query.length };
      },
    };
  }
  if (!flags.regex) {
    const re = new RegExp(escapeRegex(query), `gm${flags.caseSensitive ? '' : 'i'}${flags.dotAll ? 's' : ''}`);
    return {
      engine: 'literal',
      test: (text) => {
        re.lastIndex = 0;
        return re.test(text);
      },
      find: (text, from) => {
        re.lastIndex = from;
        const m = re.exec(text);
        return m ? { start: m.index, end: m.index + m[0].length } : null;
      },
    };
  }
  // translateRegExp would turn `\k<name>` into a literal `k<name>`: refuse it (and lookaround) first.
  const construct = unsupportedConstruct(query, '');
  if (construct) throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `regex uses ${construct}, which the linear-time regex engine (RE2) does not support`, REGEX_HINT);
  let re: RE2JS;
  try {
    // translateRegExp turns JavaScript-only spellings (named groups `(?<n>…)`, `\u{…}`) into RE2's.
    const source = RE2JS.translateRegExp(query);
    re = RE2JS.compile(source, RE2JS.MULTILINE | (flags.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE) | (flags.dotAll ? RE2JS.DOTALL : 0));
  } catch (err) {
    const message = err instanceof RE2JSException || err instanceof Error ? err.message : String(err);
    const construct = unsupportedConstruct(query, message);
    if (construct) {
      throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `regex uses ${construct}, which the linear-time regex engine (RE2) does not support`, REGEX_HINT);
    }
    throw new EngineError(EngineErrorCodes.SEARCH_PATTERN, `invalid regex: ${message.slice(0, 200)}`, `fix the pattern (${REGEX_HINT})`);
  }
  // One matcher per text: repeated finds over the same file reuse it.
  let lastText: string | null = null;
  let matcher: ReturnType<RE2JS['matcher']> | null = null;
  return {
    engine: 're2',
    // test() runs RE2's DFA (no captures), much faster than a matcher.
    test: (text) => re.test(text),
    find: (text, from) => {
      if (text !== lastText || !matcher) {
        lastText = text;
        matcher = re.matcher(text);
      }
      return matcher.find(from) ? { start: matcher.start(), end: matcher.end() } : null;
    },
  };
}
