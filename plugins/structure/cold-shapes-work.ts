/**
 * The two jobs of a cold `twins` (cold-shapes.ts), per batch of files: `sketch` — each symbol's
 * lexical MinHash sketch from the text (lexical-shapes.ts, no parse), which picks the candidate
 * symbols; `shapes` — the AST shapes of the candidates only: a Python file is parsed on the
 * candidates' line ranges alone (tree-sitter's included ranges: a definition's subtree, hence its
 * shape, is the same as in the whole file's tree), other languages whole. Results are packed into
 * one Int32Array per batch (one transfer between threads). Pure: runs in a facts worker or in-process.
 */
import type { Language } from '../graph/api.ts';
import { parseCode, type TextRange } from './code-trees.ts';
import { readDefinitions, writeDefinitionShapes, type DefinitionShape, type Shape } from './definition-shapes.ts';
import { IntSink } from './int-sink.ts';
import { unpackShapes, writeSketches } from './lexical-shapes.ts';
import { lexFile } from './lexer.ts';

/** Sketches of fewer lexical tokens are not compared (a one-liner looks like every other). */
export const SKETCH_MIN_TOKENS = 15;

export interface RangedTask {
  path: string;
  language: Language;
  /** 1-based line ranges, flat: start, end, start, end, … */
  ranges?: number[];
}

function pairsOf(flat: readonly number[] = []): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Lexical sketches of each task's ranges (its file's UTF-8 bytes, or text) with one-permutation signatures (a sketch under SKETCH_MIN_TOKENS keeps its token count only); packed (`unpackSketches`). */
export function sketchJob(tasks: readonly RangedTask[], texts: readonly (Uint8Array | string | null)[]): Int32Array {
  const out = new IntSink();
  for (let k = 0; k < tasks.length; k++) {
    const text = texts[k];
    if (text === null) out.push(-1);
    else writeSketches(lexFile(tasks[k].language, text), tasks[k].ranges ?? [], SKETCH_MIN_TOKENS, out);
  }
  return out.done();
}

/** The sketches `sketchJob` packed, per file in task order (null: unreadable). */
export function unpackSketches(packed: Int32Array): (Shape[] | null)[] {
  return unpackShapes(packed);
}

/** Python ranges to parse: each from its first line's first non-blank character to the end of its last line, nested and touching ones merged. */
function includedRanges(text: string, lines: readonly [number, number][]): TextRange[] {
  const sorted = [...lines].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const last = starts.length; // lines
  return merged.map(([a, b]) => {
    const lineStart = starts[Math.min(a, last) - 1];
    let start = lineStart;
    while (start < text.length && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++;
    if (b < last) return { startIndex: start, endIndex: starts[b], startPosition: { row: a - 1, column: start - lineStart }, endPosition: { row: b, column: 0 } };
    return { startIndex: start, endIndex: text.length, startPosition: { row: a - 1, column: start - lineStart }, endPosition: { row: last - 1, column: text.length - starts[last - 1] } };
  });
}

/** The definitions' AST shapes of each task, parsing a Python file on its ranges only; packed (`unpackDefinitions`): per file −1 (unreadable) or `writeDefinitionShapes`' count and definitions. */
export async function shapesJob(tasks: readonly RangedTask[], texts: readonly (string | null)[]): Promise<Int32Array> {
  const out = new IntSink();
  for (let k = 0; k < tasks.length; k++) {
    const text = texts[k];
    const t = tasks[k];
    const ranges = text !== null && t.language === 'python' && t.ranges?.length ? includedRanges(text, pairsOf(t.ranges)) : undefined;
    const parsed = text === null ? null : await parseCode(t.language, text, ranges);
    if (!parsed) {
      out.push(-1);
      continue;
    }
    try {
      writeDefinitionShapes(parsed.tree.rootNode, parsed.language, out);
    } finally {
      parsed.done();
    }
  }
  return out.done();
}

/** The definitions `shapesJob` packed, as views of its buffer. */
export function unpackDefinitions(packed: Int32Array): (DefinitionShape[] | null)[] {
  const files: (DefinitionShape[] | null)[] = [];
  for (let at = 0; at < packed.length; ) {
    const count = packed[at++];
    if (count < 0) {
      files.push(null);
      continue;
    }
    const list: DefinitionShape[] = [];
    at = readDefinitions(packed, at, count, list);
    files.push(list);
  }
  return files;
}
