/** A file's centrality for glob and metrics: its PageRank and that of everything it contains. */
import { RELATION_CODE } from '../../graph/api.ts';
import type { CodeGraphEngine } from '../../graph/api.ts';

/**
 * PageRank of node `index` plus that of its contains-descendants. Calls and references land on a
 * file's symbols (a Go file is imported by no file), so a file node's own score says little.
 */
export function containedRank(g: CodeGraphEngine['graph'], scores: ArrayLike<number>, index: number): number {
  const contains = RELATION_CODE.contains;
  const stack = [index];
  let sum = 0;
  while (stack.length) {
    const i = stack.pop()!;
    if (i < 0) continue;
    sum += scores[i] ?? 0;
    g.forEachOut(i, (t, _w, rel) => void (rel === contains && stack.push(t)));
  }
  return sum;
}
