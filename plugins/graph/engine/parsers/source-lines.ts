/** Line bookkeeping over a source string: line count and offset → line lookups without calling into WASM. */

/** Offsets of every line start in a source, plus its line count. */
export interface LineIndex {
  /** starts[i] is the UTF-16 offset where 0-based line i begins. */
  readonly starts: Int32Array;
  /** Number of lines, not counting an empty last line after a final newline (0 for an empty file). */
  readonly loc: number;
}

/** Builds the line index of a source in one pass. */
export function indexLines(source: string): LineIndex {
  let count = 1;
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) count++;
  const starts = new Int32Array(count);
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts[line++] = i + 1;
  const trailingNewline = source.length > 0 && source.charCodeAt(source.length - 1) === 10;
  const loc = source.length === 0 ? 0 : trailingNewline ? count - 1 : count;
  return { starts, loc };
}

/** 1-based line holding a UTF-16 offset. */
export function lineAt(index: LineIndex, offset: number): number {
  const starts = index.starts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** 1-based last line of a node ending (exclusively) at `end`: a node ending right after a newline ends on the line before. */
export function endLineAt(index: LineIndex, start: number, end: number): number {
  return lineAt(index, end > start ? end - 1 : start);
}
