/**
 * Source excerpts of the files connected to a surgical context's focus: one per connected file,
 * ranked by the summed strength of the edges that link it, showing the linked symbols' lines
 * (merged, capped per file), packed into a token budget.
 */
import { countValueTokens, packToTokenBudget, type BudgetReport } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { readFileBytes } from './file-bytes.ts';
import type { Neighbour, Neighbourhood } from './neighbourhood.ts';
import { numbered, splitLines } from './surgical.ts';

/** One connected file's excerpt. */
export interface Excerpt {
  file_path: string;
  score: number;
  relations: string[];
  lines: [number, number][];
  content: string;
  truncated: boolean;
}

/** Ranks the connected files, reads each once and packs the excerpts into `budget` tokens. */
export function connectedExcerpts(
  graph: GraphService,
  around: Neighbourhood,
  limits: { maxFiles: number; maxLinesPerFile: number; budget: number },
): { excerpts: Excerpt[]; budget: BudgetReport; files_connected: number } {
  const byFile = new Map<string, { score: number; relations: Set<string>; nodes: Neighbour[] }>();
  const groups: [string, Neighbour[]][] = [['caller', around.callers], ['callee', around.callees], ['importer', around.importers], ['test', around.tests]];
  for (const [role, list] of groups) {
    for (const n of list) {
      let f = byFile.get(n.path);
      if (!f) byFile.set(n.path, (f = { score: 0, relations: new Set(), nodes: [] }));
      // Nearer links count more: a 2-hop caller concerns the file less than a direct one.
      f.score += n.weight / n.hops;
      f.relations.add(`${role}:${n.relation}`);
      f.nodes.push(n);
    }
  }
  const ranked = [...byFile.entries()].sort((a, b) => b[1].score - a[1].score || a[0].localeCompare(b[0])).slice(0, limits.maxFiles);
  const excerpts: Excerpt[] = [];
  for (const [path, f] of ranked) {
    let all: string[];
    try {
      all = splitLines(readFileBytes(graph, path).text);
    } catch {
      continue; // vanished since the graph saw it
    }
    // Symbols show their own lines; a file linked only as a whole (an importer, a test file) shows its head.
    // A caller's file is its importer too: its head (the imports) would crowd out the caller's code.
    const linked = f.nodes.some((n) => n.kind !== 'file') ? f.nodes.filter((n) => n.kind !== 'file') : f.nodes;
    const ranges = linked
      .map((n): [number, number] => (n.kind === 'file' ? [1, Math.min(all.length, limits.maxLinesPerFile)] : [n.lines[0], Math.min(n.lines[1], all.length)]))
      .filter(([a, b]) => a >= 1 && b >= a)
      .sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const r of ranges) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    let room = limits.maxLinesPerFile;
    let truncated = false;
    const shown: [number, number][] = [];
    const parts: string[] = [];
    for (const [a, b] of merged) {
      if (room <= 0) {
        truncated = true;
        break;
      }
      const end = Math.min(b, a + room - 1);
      if (end < b) truncated = true;
      shown.push([a, end]);
      parts.push(numbered(all.slice(a - 1, end), a));
      room -= end - a + 1;
    }
    excerpts.push({ file_path: path, score: Math.round(f.score * 1000) / 1000, relations: [...f.relations].sort(), lines: shown, content: parts.join('\n…\n'), truncated });
  }
  const packed = packToTokenBudget(excerpts, limits.budget, countValueTokens);
  return { excerpts: packed.kept, budget: packed.report, files_connected: byFile.size };
}
