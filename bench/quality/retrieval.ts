/**
 * Retrieval questions: `seek` and `activate` through the client, ranked at symbol and file level,
 * next to a ripgrep baseline that ranks files by how many matches of the query's words they hold.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { CodeGraphEngine } from '../../plugins/graph/engine/engine.ts';
import type { CallVerb } from './callers.ts';
import { distinctInOrder, firstHitRank, namesSymbol, retrievalSummary } from './scoring.ts';

/** One question of questions/<repo>.json. */
export interface Question {
  q: string;
  symbols: { path: string; name: string }[];
  files: string[];
}

/** Ranks of every question for one ranker (null: not found in what it returned). */
export interface RankerRanks {
  ranker: string;
  symbol: (number | null)[] | null;
  file: (number | null)[];
}

const TOP_K = 50;

/** Words of a question for the baseline: alphanumeric runs of 3+ characters, as typed. */
export function queryWords(q: string): string[] {
  return distinctInOrder(q.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []);
}

// Common English function words: a second, fairer baseline drops them before counting.
const STOP_WORDS = new Set('the and are for from how into its that this what when where which who why with was were does doing done can could should would will not but all any each only such than then them they their there these those has have had use used using our your you'.split(' '));

/** The baseline's words without common English function words. */
export function contentWords(q: string): string[] {
  return queryWords(q).filter((w) => !STOP_WORDS.has(w));
}

/** ripgrep's version line, or null when `rg` is not installed. */
export function ripgrepVersion(): string | null {
  try {
    return execFileSync('rg', ['--version']).toString().split('\n')[0];
  } catch {
    return null;
  }
}

/** Files ranked by the number of case-insensitive matches of the words (ripgrep, else a plain scan). */
export function baselineFiles(root: string, words: string[], useRipgrep: boolean): string[] {
  if (words.length === 0) return [];
  const counts = new Map<string, number>();
  if (useRipgrep) {
    let out = '';
    try {
      out = execFileSync('rg', ['--count-matches', '--ignore-case', '--no-messages', ...words.flatMap((w) => ['-e', w]), '.'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }).toString();
    } catch (e: any) {
      out = e.stdout?.toString() ?? ''; // exit 1 = no match
    }
    for (const line of out.split('\n')) {
      const m = /^(.*):(\d+)$/.exec(line);
      if (m) counts.set(m[1].replace(/^\.\//, ''), Number(m[2]));
    }
  } else {
    const re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith('.')) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else {
          const n = (fs.readFileSync(p, 'utf8').match(re) ?? []).length;
          if (n) counts.set(path.relative(root, p).split(path.sep).join('/'), n);
        }
      }
    };
    walk(root);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([f]) => f);
}

const symbolHit = (question: Question) => (r: { path: string; qualifiedName: string }) => question.symbols.some((s) => s.path === r.path && namesSymbol(s.name, r.qualifiedName));

/** Ranks of seek, activate and the baseline for every question. */
export async function rankQuestions(call: CallVerb, engine: CodeGraphEngine, root: string, questions: Question[], useRipgrep: boolean): Promise<{ rankers: RankerRanks[]; perQuestion: unknown[] }> {
  const rankers: RankerRanks[] = [
    { ranker: 'seek', symbol: [], file: [] },
    { ranker: 'activate', symbol: [], file: [] },
    { ranker: useRipgrep ? 'ripgrep (match count)' : 'plain scan (match count, no rg)', symbol: null, file: [] },
    { ranker: useRipgrep ? 'ripgrep, stop words dropped' : 'plain scan, stop words dropped', symbol: null, file: [] },
  ];
  const perQuestion: unknown[] = [];
  for (const question of questions) {
    const row: Record<string, unknown> = { q: question.q };
    for (const [i, verb] of (['seek', 'activate'] as const).entries()) {
      const answer = await call(verb, { query: question.q, top_k: TOP_K });
      const results: { id: string }[] = answer.isError ? [] : (answer.json?.results ?? []);
      const nodes = results
        .map((r) => engine.getNode(r.id))
        .filter((n) => n !== null)
        .map((n) => ({ path: n.path, qualifiedName: n.qualifiedName ?? n.label, kind: n.kind, id: n.id }));
      const sRank = firstHitRank(nodes, symbolHit(question));
      const files = distinctInOrder(nodes.filter((n) => n.kind !== 'module').map((n) => n.path));
      const fRank = firstHitRank(files, (f) => question.files.includes(f));
      rankers[i].symbol!.push(sRank);
      rankers[i].file.push(fRank);
      row[verb] = { symbolRank: sRank, fileRank: fRank, top3: nodes.slice(0, 3).map((n) => n.id), ...(answer.isError ? { error: true } : {}) };
    }
    for (const [i, words] of [queryWords(question.q), contentWords(question.q)].entries()) {
      const files = baselineFiles(root, words, useRipgrep);
      const fRank = firstHitRank(files, (f) => question.files.includes(f));
      rankers[2 + i].file.push(fRank);
      row[i === 0 ? 'baseline' : 'baselineContentWords'] = { fileRank: fRank, top3: files.slice(0, 3) };
    }
    perQuestion.push(row);
  }
  return { rankers, perQuestion };
}

/** Summaries (hit@1, hit@5, MRR) of one ranker's ranks. */
export function summarize(r: RankerRanks) {
  return { ranker: r.ranker, symbol: r.symbol ? retrievalSummary(r.symbol) : null, file: retrievalSummary(r.file) };
}
