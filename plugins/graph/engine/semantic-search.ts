/**
 * Semantic `search`: passages rather than symbols. Seek's candidates are re-read line by line and
 * each is answered by its best-matching line (query words matched as stems of identifier parts, so
 * "retries" meets `retryCount += 1`; prefixes, abbreviations and synonyms at half weight), with context; a passage's score blends the symbol's seek score
 * with how much of the query that line holds. The result is the lines that do the work, in an order
 * that can differ from seek's (a candidate whose best single line holds little of the query falls).
 */
import type { SeekHit } from './seek-scoring.ts';
import { analyze, STOP_WORDS, stem, synonymsOf, tokenize } from './lexical-words.ts';

/** One passage: the best line of a seek candidate, with context. */
export interface Passage {
  /** The symbol (or section) the line belongs to. */
  id: string;
  kind: SeekHit['kind'];
  label: string;
  path: string;
  /** 1-based line of the passage. */
  line: number;
  text: string;
  before: string[];
  after: string[];
  /** Passage score in [0,1]. */
  score: number;
  /** The symbol's seek score. */
  symbolScore: number;
  /** Query words on this line. */
  matched: string[];
}

/** Options for passage search. */
export interface PassageOptions {
  topK?: number;
  contextLines?: number;
}

/** Lines of a symbol scanned for its best passage. */
const MAX_SCAN_LINES = 400;
const MAX_LINE_CHARS = 400;

/** Picks the best line of each seek candidate and ranks the passages. */
export function rankPassages(
  query: string,
  candidates: readonly SeekHit[],
  textOf: (path: string) => string | null,
  idf: (term: string) => number,
  options: PassageOptions = {},
): Passage[] {
  const topK = options.topK ?? 20;
  const context = options.contextLines ?? 2;
  const words = new Map<string, string>();
  for (const w of tokenize(query)) if (!STOP_WORDS.has(w) && !words.has(stem(w))) words.set(stem(w), w);
  const terms = [...words.keys()];
  const weights = terms.map((t) => Math.max(idf(t), 0.1));
  const synonyms = terms.map((t) => synonymsOf(t));
  const mass = weights.reduce((a, b) => a + b, 0) || 1;
  const linesOf = new Map<string, string[] | null>();
  const seen = new Set<string>();
  const out: Passage[] = [];
  for (const hit of candidates) {
    if (hit.kind === 'file' || hit.kind === 'module' || hit.startLine < 1) continue;
    let lines = linesOf.get(hit.path);
    if (lines === undefined) {
      const text = textOf(hit.path);
      linesOf.set(hit.path, (lines = text === null ? null : text.split('\n')));
    }
    if (!lines) continue;
    let best = -1;
    let bestScore = 0;
    let bestMatched: string[] = [];
    const end = Math.min(lines.length, hit.endLine, hit.startLine - 1 + MAX_SCAN_LINES);
    for (let i = hit.startLine - 1; i < end; i++) {
      const present = new Set(analyze(lines[i]));
      if (present.size === 0) continue;
      let s = 0;
      const matched: string[] = [];
      terms.forEach((t, k) => {
        const w = present.has(t) ? weights[k] : relatedOnLine(t, present) || synonyms[k].some((x) => present.has(x)) ? weights[k] * 0.5 : 0;
        if (w > 0) {
          s += w;
          matched.push(words.get(t)!);
        }
      });
      if (s > bestScore) {
        bestScore = s;
        best = i;
        bestMatched = matched;
      }
    }
    if (best < 0) best = hit.startLine - 1;
    const key = `${hit.path}:${best}`;
    if (seen.has(key)) continue; // a nested symbol's line already answered through its parent
    seen.add(key);
    const coverage = bestScore / mass;
    out.push({
      id: hit.id,
      kind: hit.kind,
      label: hit.label,
      path: hit.path,
      line: best + 1,
      text: clip(lines[best] ?? ''),
      before: lines.slice(Math.max(0, best - context), best).map(clip),
      after: lines.slice(best + 1, Math.min(lines.length, best + 1 + context)).map(clip),
      score: Math.round(hit.score * (0.5 + 0.5 * coverage) * 1000) / 1000,
      symbolScore: hit.score,
      matched: bestMatched,
    });
  }
  out.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line - b.line);
  return out.slice(0, topK);
}

/**
 * A line term the query term prefixes (`handl` → `handler`) or that abbreviates it (`config` for
 * `configur`), as seek's prefix and abbreviation matches; both sides ≥ 4 letters.
 */
function relatedOnLine(term: string, present: ReadonlySet<string>): boolean {
  if (term.length < 4) return false;
  for (const t of present) {
    if (t.length < 4) continue;
    if (t.startsWith(term) || (term.length >= 6 && term.startsWith(t) && t.length < term.length - 1)) return true;
  }
  return false;
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
