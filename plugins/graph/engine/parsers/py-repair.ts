/**
 * Offset-preserving repair for tree-sitter-python 0.25: a comment line indented less than the code
 * around it (`@property` / `# note` at column 0 / `def f():`) breaks its indentation scanner, though
 * CPython ignores comment lines. Blanking comment-only lines (spaces, same length) keeps every offset.
 * The extractor tries this only on files that parse with errors and keeps it only when it parses better.
 */

const COMMENT_LINE = /^[ \t]*#[^\r\n]*/gm;

/** Replaces every comment-only line with spaces; returns the same string when there is none. */
export function repairPython(source: string): string {
  return source.replace(COMMENT_LINE, (line) => ' '.repeat(line.length));
}
