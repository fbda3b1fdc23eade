/**
 * Offset-preserving repair of valid Python that tree-sitter-python 0.25 (@vscode/tree-sitter-wasm 0.3.1)
 * does not parse; every rewrite keeps each byte offset and line, so extracted facts still point at the file:
 * - a comment line indented less than the code around it (`@property` / `# note` at column 0 / `def f():`)
 *   breaks the grammar's indentation scanner, though CPython ignores comment lines: comment-only lines
 *   are blanked;
 * - PEP 696 type parameter defaults (3.13) `class C[T = int]:` → `class C[T      ]:`.
 * The extractor tries this only on files that parse with errors and keeps it only when it parses better.
 */

const COMMENT_LINE = /^[ \t]*#[^\r\n]*/gm;
// The `[` of a PEP 695 parameter list: `def f[`, `class C[`, `type X[` at the start of a statement.
const TYPE_PARAMS_OPEN = /^[ \t]*(?:async[ \t]+)?(?:def|class|type)[ \t]+[\p{ID_Start}_][\p{ID_Continue}]*[ \t]*\[/gmu;

/** Applies both rewrites; returns the same string when neither applies. */
export function repairPython(source: string): string {
  return blankTypeParamDefaults(source.replace(COMMENT_LINE, (line) => ' '.repeat(line.length)));
}

/** Blanks `= default` of each top-level item inside every PEP 695 type parameter list. */
function blankTypeParamDefaults(source: string): string {
  const chars = source.split('');
  let changed = false;
  for (const m of source.matchAll(TYPE_PARAMS_OPEN)) {
    let depth = 0;
    let defaultStart = -1;
    for (let i = m.index + m[0].length - 1; i < source.length; i++) {
      const c = source[i];
      if (c === '[' || c === '(' || c === '{') depth++;
      else if (c === ']' || c === ')' || c === '}') depth--;
      // The default runs to the next top-level `,` or to the closing `]`.
      if (defaultStart >= 0 && ((depth === 1 && c === ',') || depth === 0)) {
        for (let j = defaultStart; j < i; j++) if (chars[j] !== '\n' && chars[j] !== '\r') chars[j] = ' ';
        changed = true;
        defaultStart = -1;
      }
      if (depth === 0) break;
      if (depth === 1 && c === '=' && defaultStart < 0) defaultStart = i;
    }
  }
  return changed ? chars.join('') : source;
}
