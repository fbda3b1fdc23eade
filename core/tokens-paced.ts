/**
 * Exact token counts of large texts without holding the event loop: `countTokens`'s count, made in
 * slices of a few ms of this thread with a turn of the event loop between them. A megabyte of JSON
 * is ~0.1–0.25 s of BPE; in one stretch it delayed every other session by as much.
 */
import { countSteps, countTokens, countWith, nextTurn, tokenizerReady } from './tokens.ts';

/** Texts shorter than this are counted in one go (well under a slice). */
export const PACED_COUNT_MIN_CHARS = 16_384;
/** The longest stretch of counting between two turns of the event loop. */
export const COUNT_SLICE_MS = 8;

/**
 * `countTokens(text)`, exactly: the same segments (core/tokens.ts `countWith`) and, in each, the
 * same pieces of the tokenizer's split regex, counted for at most `sliceMs` at a time. A counter
 * without steps (the package's own, when no rank table could be loaded) counts in one go.
 */
export async function countTokensPaced(text: string, sliceMs = COUNT_SLICE_MS): Promise<number> {
  await tokenizerReady();
  const steps = countSteps();
  if (!steps || text.length < PACED_COUNT_MIN_CHARS) return countTokens(text);
  // The segments countWith hands the BPE (runs over 256 characters of one kind are sliced): one pass
  // over the text (~3 ms a MB), in a turn of its own when it took the slice.
  let until = performance.now() + sliceMs;
  const segments: string[] = [];
  countWith((segment) => {
    segments.push(segment);
    return 0;
  }, text);
  let total = 0;
  if (performance.now() >= until) {
    await nextTurn();
    until = performance.now() + sliceMs;
  }
  for (const segment of segments) {
    const step = steps(segment);
    for (;;) {
      const { tokens, done } = step(until);
      if (done) {
        total += tokens;
        break;
      }
      await nextTurn();
      until = performance.now() + sliceMs;
    }
    if (performance.now() >= until) {
      await nextTurn();
      until = performance.now() + sliceMs;
    }
  }
  return total;
}
