/**
 * Doc text for symbols: finding the comment written right above a declaration and reducing a
 * comment or a Python docstring to its first paragraph (at most MAX_DOC characters).
 */
import { lineAt, type LineIndex } from './source-lines.ts';

/** Longest doc string kept on a symbol. */
export const MAX_DOC = 300;

/** A comment node's UTF-16 span in the source. */
export interface CommentSpan {
  start: number;
  end: number;
}

/** How a language's doc comments sit above declarations. */
export interface DocCommentRules {
  /** Only comments whose text passes are docs (Java: Javadoc only). */
  accept?: (text: string) => boolean;
  /** Lines that may stand between the doc and the declaration (Rust `#[attr]`). */
  between?: RegExp;
}

const ONLY_WORDS = /^[\s\w()]*$/;
// Longer line prefixes are code, not indentation or keywords: not worth scanning.
const MAX_PREFIX = 200;
const BLANK = /^\s*$/;

/** The doc of a declaration at `anchor`: the comment (or line-comment run) ending on the line above it; `comments` sorted by start. */
export function docAbove(
  source: string,
  lines: LineIndex,
  comments: readonly CommentSpan[],
  anchor: number,
  rules: DocCommentRules,
): string | undefined {
  if (comments.length === 0) return undefined;
  let anchorLine = lineAt(lines, anchor);
  let lineStart = lines.starts[anchorLine - 1];
  // Keywords before the name on its line (`export const`, `pub(crate)`, `type`) belong to the declaration.
  if (anchor - lineStart <= MAX_PREFIX && ONLY_WORDS.test(source.slice(lineStart, anchor))) anchor = lineStart;
  if (rules.between !== undefined) {
    while (anchorLine > 1) {
      const prevStart = lines.starts[anchorLine - 2];
      if (lineStart - prevStart > MAX_PREFIX || !rules.between.test(source.slice(prevStart, lineStart - 1))) break;
      anchorLine--;
      lineStart = prevStart;
      anchor = prevStart;
    }
  }
  let i = lastStartingBefore(comments, anchor);
  if (i < 0) return undefined;
  let last = comments[i];
  // Line checks come before slicing, so a one-line (minified) file costs no more than a normal one.
  if (last.end > anchor || lineAt(lines, Math.max(last.start, last.end - 1)) < anchorLine - 1) return undefined;
  if (!BLANK.test(source.slice(last.end, anchor)) || !startsOwnLine(source, lines, last.start)) return undefined;
  let first = source.slice(last.start, last.end);
  if (rules.accept !== undefined && !rules.accept(first)) {
    // Plain line comments between a doc and its declaration (`// Note: …` under a Javadoc): the doc
    // is the accepted comment right above their run.
    if (first.startsWith('/*')) return undefined;
    while (i > 0 && !rules.accept(first)) {
      const prev = comments[i - 1];
      if (lineAt(lines, Math.max(prev.start, prev.end - 1)) !== lineAt(lines, last.start) - 1) return undefined;
      if (!BLANK.test(source.slice(prev.end, last.start)) || !startsOwnLine(source, lines, prev.start)) return undefined;
      i--;
      last = prev;
      first = source.slice(prev.start, prev.end);
      if (first.startsWith('/*') && !rules.accept(first)) return undefined;
    }
    if (!rules.accept(first)) return undefined;
  }
  const texts = [first];
  // A run of line comments reads as one doc; a block comment stands alone.
  if (!first.startsWith('/*')) {
    while (i > 0) {
      const prev = comments[i - 1];
      const text = source.slice(prev.start, prev.end);
      if (text.startsWith('/*')) break;
      if (lineAt(lines, Math.max(prev.start, prev.end - 1)) !== lineAt(lines, last.start) - 1) break;
      if (!BLANK.test(source.slice(prev.end, last.start)) || !startsOwnLine(source, lines, prev.start)) break;
      texts.unshift(text);
      last = prev;
      i--;
    }
  }
  return commentDoc(texts);
}

/** First paragraph of one block comment or a run of line comments, markers stripped. */
export function commentDoc(texts: readonly string[]): string | undefined {
  const lines: string[] = [];
  for (const text of texts) {
    if (text.startsWith('/*')) {
      const body = text.replace(/^\/\*+!?/, '').replace(/\*+\/$/, '');
      for (const line of body.split('\n')) lines.push(line.replace(/^\s*\*?/, ''));
    } else {
      lines.push(text.replace(/^(?:\/\/[/!]?|#+)/, ''));
    }
  }
  return firstParagraph(lines, true);
}

/** First paragraph of a Python docstring given as its string literal, quotes and prefixes stripped. */
export function docstringDoc(literal: string): string | undefined {
  const match = /^[A-Za-z]*("""|'''|"|')/.exec(literal);
  if (match === null) return undefined;
  const quote = match[1];
  let body = literal.slice(match[0].length);
  if (body.endsWith(quote)) body = body.slice(0, body.length - quote.length);
  return firstParagraph(body.split('\n'), false);
}

function firstParagraph(lines: readonly string[], stopAtTags: boolean): string | undefined {
  const kept: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') {
      if (kept.length > 0) break;
      continue;
    }
    // JSDoc/Javadoc block tags (`@param`) end the summary.
    if (stopAtTags && line.startsWith('@')) break;
    kept.push(line);
  }
  if (kept.length === 0) return undefined;
  const text = kept.join(' ').replace(/\s+/g, ' ');
  return text.length <= MAX_DOC ? text : `${text.slice(0, MAX_DOC - 1)}…`;
}

function lastStartingBefore(comments: readonly CommentSpan[], offset: number): number {
  let lo = 0;
  let hi = comments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (comments[mid].start < offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

function startsOwnLine(source: string, lines: LineIndex, offset: number): boolean {
  const start = lines.starts[lineAt(lines, offset) - 1];
  return offset - start <= MAX_PREFIX && BLANK.test(source.slice(start, offset));
}
