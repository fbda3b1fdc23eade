/** Did-you-mean over verb names: edit distance, with a bonus for shared prefixes and substrings. */

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** Up to `max` names close to `query`, best first; names within distance 6 or sharing a part qualify. */
export function suggestNames(query: string, names: Iterable<string>, max = 3): string[] {
  // No verb name is longer than 64 characters: compare a prefix, so the edit distance stays cheap.
  const q = query.slice(0, 64).trim().toLowerCase().replace(/^m1nd[._]/, '').replace(/[-\s.]/g, '_');
  if (!q) return [];
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const d = editDistance(q, name);
    let score = d;
    if (name.includes(q) || q.includes(name)) score -= 3;
    if (name.split('_').some((part) => part.length > 2 && q.split('_').includes(part))) score -= 1;
    if (d <= 6 || score < d) scored.push({ name, score });
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  return scored.slice(0, Math.max(1, max)).map((s) => s.name);
}
