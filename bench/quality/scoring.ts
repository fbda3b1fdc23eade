/** Scoring of the quality benchmark: set precision/recall, ranks, hit@k and MRR. Pure functions. */

/** True/false positives and false negatives of one predicted set against the truth. */
export interface Confusion {
  tp: number;
  fp: number;
  fn: number;
}

/** Compares a predicted set with the true set. */
export function confusion(predicted: Iterable<string>, truth: Iterable<string>): Confusion {
  const p = new Set(predicted);
  const t = new Set(truth);
  let tp = 0;
  for (const x of p) if (t.has(x)) tp++;
  return { tp, fp: p.size - tp, fn: t.size - tp };
}

/** Sums confusions (micro-averaging). */
export function addConfusion(a: Confusion, b: Confusion): Confusion {
  return { tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn };
}

/** Precision and recall of a (summed) confusion; an empty denominator scores 1 (nothing claimed, nothing missed). */
export function precisionRecall(c: Confusion): { precision: number; recall: number } {
  return {
    precision: c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp),
    recall: c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn),
  };
}

/** 1-based rank of the first item that is a hit, or null when none is. */
export function firstHitRank<T>(ranked: readonly T[], isHit: (item: T) => boolean): number | null {
  const i = ranked.findIndex(isHit);
  return i < 0 ? null : i + 1;
}

/** hit@1, hit@5 and mean reciprocal rank over questions (a null rank counts 0). */
export function retrievalSummary(ranks: readonly (number | null)[]): { n: number; hit1: number; hit5: number; mrr: number } {
  const n = ranks.length;
  if (n === 0) return { n: 0, hit1: 0, hit5: 0, mrr: 0 };
  const hits = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  return { n, hit1: hits(1), hit5: hits(5), mrr: ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / r), 0) / n };
}

/**
 * The bare name of a symbol for matching across tools: the last dotted segment, without a leading
 * `#` (JS private) and without an overload/duplicate suffix (`#2`, `~2`).
 */
export function bareName(name: string): string {
  const last = name.replace(/(?:#|~)\d+$/, '').split('.').pop() ?? name;
  return last.replace(/^#/, '');
}

/**
 * True when an expected (possibly qualified) name names the symbol: its segments, without private
 * marks and overload suffixes, end the symbol's qualified name (`Response.redirectMethod` names
 * `HttpConnection.Response.redirectMethod`, not `Request.redirectMethod`).
 */
export function namesSymbol(expected: string, qualifiedName: string): boolean {
  const segments = (n: string) => n.replace(/(?:#|~)\d+$/, '').split('.').map((x) => x.replace(/^#/, ''));
  const want = segments(expected);
  const have = segments(qualifiedName);
  return want.length <= have.length && want.every((w, i) => w === have[have.length - want.length + i]);
}

/** Paths of ranked results, first occurrence only, in order. */
export function distinctInOrder(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** A fixed pseudo-random generator (LCG), so a sample is the same on every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A seeded sample of up to `n` items (all of them when there are fewer), in their original order. */
export function seededSample<T>(items: readonly T[], n: number, seed: number): T[] {
  if (items.length <= n) return [...items];
  const rand = seededRandom(seed);
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => items[i]);
}
