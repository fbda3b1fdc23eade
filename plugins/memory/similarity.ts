/** Word-set similarity of short texts: near-duplicate claims and claim/task relevance. */

/** Lower-cased word tokens (letters, digits, underscore) of two or more characters. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}_]{2,}/gu)) out.add(m[0]);
  return out;
}

/** Jaccard similarity of two word sets (0 when both are empty). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Share of `query`'s words that occur in `text` (0..1). */
export function coverage(query: ReadonlySet<string>, text: ReadonlySet<string>): number {
  if (query.size === 0) return 0;
  let hit = 0;
  for (const w of query) if (text.has(w)) hit++;
  return hit / query.size;
}
