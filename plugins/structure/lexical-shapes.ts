/**
 * Lexical shapes for `twins`: every symbol's shape is the 5-token shingles of the normalised tokens
 * on its lines (graph ranges; lexer.ts), so two copies of a function with renamed variables have the
 * same shingles. One pass of a byte loop costs a few per cent of a tree-sitter parse, so a cold
 * `twins` picks its candidates with no parse at all.
 * Pure: runs in a facts worker (facts-worker.ts) or in-process for a few files.
 */
import type { Language } from '../graph/api.ts';
import type { Shape } from './definition-shapes.ts';
import { lexFile, type FileTokens } from './lexer.ts';
import { distinct, SHINGLE, sortDistinct } from './shingles.ts';
import type { IntSink } from './int-sink.ts';
import { HASHES, minhashOf, oneHashSignatureInto } from './minhash.ts';

/** A symbol's shape reads at most this many tokens (a huge class costs no more than this). */
const MAX_SHAPE_TOKENS = 6000;

/** The token count of the symbol `sortedShingles` read last. */
let tokensRead = 0;

/**
 * The distinct shingles of a symbol on 1-based lines [startLine, endLine] of a lexed file, sorted,
 * in `distinct[0, n)`; returns n and sets `tokensRead` (the symbol's token count, at most MAX_SHAPE_TOKENS).
 */
function sortedShingles(file: FileTokens, startLine: number, endLine: number): number {
  const lines = file.lineStart.length - 1;
  const from = file.lineStart[Math.min(Math.max(0, startLine - 1), lines)];
  const to = Math.min(file.lineStart[Math.min(Math.max(0, endLine), lines)], from + MAX_SHAPE_TOKENS);
  const end = Math.min(Math.max(from, to - SHINGLE + 1), file.shingles.length);
  tokensRead = Math.max(0, to - from);
  return sortDistinct(file.shingles, from, Math.max(0, end - from));
}

/** The shape of a symbol on 1-based lines [startLine, endLine] of a lexed file. */
export function rangeShape(file: FileTokens, startLine: number, endLine: number): Shape {
  const n = sortedShingles(file, startLine, endLine);
  return { shingles: distinct.slice(0, n), tokens: tokensRead };
}

/** Shapes of a file's symbols (1-based line ranges, in the order given); `minTokens`: those of at least that many tokens also get their MinHash signature. */
export function lexicalShapes(language: Language, source: Uint8Array | string, ranges: readonly (readonly [number, number])[], minTokens = Infinity): Shape[] {
  const file = lexFile(language, source);
  return ranges.map(([a, b]) => {
    const shape = rangeShape(file, a, b);
    if (shape.tokens >= minTokens) shape.minhash = minhashOf(shape.shingles);
    return shape;
  });
}

/**
 * Writes the sketches of a file's symbols (1-based line ranges, flat: start, end, …) to `out`, as
 * `unpackShapes` reads them: the count, then per symbol its tokens, its shingle count, 1 and the
 * shingles and one-permutation signature when it has at least `minTokens` tokens (else 0, 0: its
 * token count only). No object or array per symbol: a cold `twins` sketches every symbol.
 */
export function writeSketches(file: FileTokens, ranges: readonly number[], minTokens: number, out: IntSink): void {
  out.push(ranges.length >> 1);
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const n = sortedShingles(file, ranges[r], ranges[r + 1]);
    if (tokensRead < minTokens) {
      out.reserve(3);
      out.data[out.at++] = tokensRead;
      out.data[out.at++] = 0;
      out.data[out.at++] = 0;
      continue;
    }
    out.reserve(3 + n + HASHES);
    const data = out.data;
    data[out.at++] = tokensRead;
    data[out.at++] = n;
    data[out.at++] = 1;
    data.set(distinct.subarray(0, n), out.at);
    oneHashSignatureInto(data, out.at, out.at + n, data, out.at + n);
    out.at += n + HASHES;
  }
}

/**
 * Reads one file's sketches as `writeSketches` wrote them, from `at` (just after the file's count),
 * with no view or object per sketch: each `next()` moves to the following sketch; `at` is then past it.
 */
export class SketchReader {
  tokens = 0;
  /** Whether the current sketch has shingles and a signature (at least the least tokens). */
  signed = false;
  /** Where its shingles start (its signature follows them) and how many there are. */
  shinglesAt = 0;
  length = 0;

  constructor(
    private readonly packed: Int32Array,
    public at: number,
  ) {}

  next(): void {
    const p = this.packed;
    this.tokens = p[this.at];
    this.length = p[this.at + 1];
    this.signed = p[this.at + 2] === 1;
    this.shinglesAt = this.at + 3;
    this.at = this.shinglesAt + this.length + (this.signed ? HASHES : 0);
  }
}

/** The shapes `writeSketches` packed (a batch: one file after another, −1 for an unreadable one), as views of its buffer (no copy). */
export function unpackShapes(packed: Int32Array): (Shape[] | null)[] {
  const files: (Shape[] | null)[] = [];
  for (let at = 0; at < packed.length; ) {
    const count = packed[at++];
    if (count < 0) {
      files.push(null);
      continue;
    }
    const list: Shape[] = [];
    const sketch = new SketchReader(packed, at);
    for (let k = 0; k < count; k++) {
      sketch.next();
      const { tokens, shinglesAt, length } = sketch;
      const shape: Shape = { tokens, shingles: packed.subarray(shinglesAt, shinglesAt + length) };
      if (sketch.signed) shape.minhash = packed.subarray(shinglesAt + length, shinglesAt + length + HASHES);
      list.push(shape);
    }
    at = sketch.at;
    files.push(list);
  }
  return files;
}
