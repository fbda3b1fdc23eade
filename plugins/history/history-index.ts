/**
 * The mined log as queries want it: every path mapped to its current name (renames followed), each
 * commit flagged when it is a sweeping change (formatting, mass renames, vendored updates) that says
 * nothing about coupling, and per-file commit lists from which co-change partners are counted on
 * demand. Built in slices with yields, so a long history never holds the event loop.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { MinedCommit } from './log-parser.ts';

/** One commit, paths renamed to their current names. */
export interface IndexedCommit {
  hash: string;
  time: number;
  author: string;
  subject: string;
  files: string[];
  /** Lines added + deleted (binary files count 0). */
  churn: number;
  /** A sweeping commit: kept in the timeline, never counted as coupling. */
  sweep: boolean;
}

/** One file's history under its current name. */
export interface FileHistory {
  /** Indices into `commits`, oldest first. */
  commits: number[];
  /** Lines added + deleted in this file by each of those commits. */
  lines: number[];
  churn: number;
  authors: Map<string, number>;
  /** Earlier names of this file, newest rename first. */
  formerNames: string[];
}

/** When a commit is too broad to say two files belong together. */
export interface SweepRules {
  /** A commit touching more files than this is sweeping (default 30). */
  maxFiles: number;
  /** ...or touching at least this share of the files known so far, with at least `minFiles` files (default 0.5). */
  share: number;
  minFiles: number;
  /** ...or with a mechanical subject (formatting, lint, rename, vendoring) and at least 3 files. */
  subject: RegExp;
}

export const DEFAULT_SWEEP: SweepRules = {
  maxFiles: 30,
  share: 0.5,
  minFiles: 5,
  subject: /\b(format(ting|ted)?|reformat|prettier|black|gofmt|rustfmt|clang-format|lint(ing)?|whitespace|indent(ation)?|license|copyright|vendor(ed|ing)?|mass[- ]rename|rename all|bump (all )?dep|regenerate|auto-?sync)\b/i,
};

/** Co-change counts of one file's partners over a commit range. */
export interface PartnerCounts {
  /** Non-sweeping commits of the file in range (recency-weighted when asked). */
  base: number;
  commits: number;
  partners: Map<string, { support: number; weight: number; last: number }>;
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

/** Damping of a commit's pair weight by its size: small commits count fully, big ones less. */
export function pairDamping(files: number): number {
  return files <= 5 ? 1 : 4 / (files - 1);
}

/** The indexed history of one repository. */
export class HistoryIndex {
  readonly commits: IndexedCommit[] = [];
  readonly files = new Map<string, FileHistory>();
  private readonly alias = new Map<string, string>();

  /** Newest commit time (the anchor of every window: a quiet repository still has a recent past). */
  get newest(): number {
    return this.commits.at(-1)?.time ?? 0;
  }

  get oldest(): number {
    return this.commits[0]?.time ?? 0;
  }

  /** The current name of a path (itself when it was never renamed). */
  canonical(path: string): string {
    let p = path;
    for (let hops = 0; hops < 64; hops++) {
      const next = this.alias.get(p);
      if (!next || next === p) return p;
      p = next;
    }
    return p;
  }

  /** Files seen so far (the denominator of the sweep share). */
  private readonly seen = new Set<string>();

  private constructor(private readonly rules: SweepRules) {}

  /** Builds the index from commits, oldest first. */
  static async build(log: readonly MinedCommit[], rules: SweepRules = DEFAULT_SWEEP): Promise<HistoryIndex> {
    const ix = new HistoryIndex(rules);
    // Renames are resolved newest first: a rename maps the old name to wherever the new name ends up.
    for (let i = log.length - 1; i >= 0; i--) {
      for (const f of log[i].files) if (f.from && f.from !== f.path && !ix.alias.has(f.from)) ix.alias.set(f.from, ix.canonical(f.path));
      if (i % 2000 === 0) await yieldTurn();
    }
    await ix.add(log);
    return ix;
  }

  /**
   * Appends newer commits in place; false (nothing changed) when one of them renames a file, since a
   * rename changes the names of older commits too and the index must be rebuilt.
   */
  async append(newer: readonly MinedCommit[]): Promise<boolean> {
    if (newer.some((c) => c.files.some((f) => f.from && f.from !== f.path))) return false;
    await this.add(newer);
    return true;
  }

  private async add(log: readonly MinedCommit[]): Promise<void> {
    const rules = this.rules;
    for (let i = 0; i < log.length; i++) {
      const c = log[i];
      const files = [...new Set(c.files.map((f) => this.canonical(f.path)))];
      for (const f of files) this.seen.add(f);
      const churn = c.files.reduce((s, f) => s + Math.max(0, f.added) + Math.max(0, f.deleted), 0);
      const n = files.length;
      const sweep = n > rules.maxFiles || (n >= rules.minFiles && n >= rules.share * this.seen.size) || (n >= 3 && rules.subject.test(c.subject));
      const index = this.commits.length;
      this.commits.push({ hash: c.hash, time: c.time, author: c.author, subject: c.subject, files, churn, sweep });
      for (const ch of c.files) {
        const name = this.canonical(ch.path);
        let fh = this.files.get(name);
        if (!fh) this.files.set(name, (fh = { commits: [], lines: [], churn: 0, authors: new Map(), formerNames: [] }));
        const lines = Math.max(0, ch.added) + Math.max(0, ch.deleted);
        if (fh.commits.at(-1) !== index) {
          fh.commits.push(index);
          fh.lines.push(0);
          fh.authors.set(c.author, (fh.authors.get(c.author) ?? 0) + 1);
        }
        fh.lines[fh.lines.length - 1] += lines;
        fh.churn += lines;
        if (ch.from && ch.from !== ch.path && !fh.formerNames.includes(ch.from)) fh.formerNames.unshift(ch.from);
      }
      if (i % 1000 === 999) await yieldTurn();
    }
  }

  /** Index of the first commit at or after `time` (commits are in time order, oldest first, near enough). */
  firstAtOrAfter(time: number): number {
    let lo = 0;
    let hi = this.commits.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.commits[mid].time < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Partners of `file` over commits [from, to): support = commits shared, weight = shared commits
   * damped by size and (with `halfLifeSeconds`) by age before `anchor`. Sweeping commits are skipped
   * unless `raw` (which also turns damping off: the naive co-change count).
   */
  partners(file: string, opts: { from?: number; to?: number; halfLifeSeconds?: number; anchor?: number; raw?: boolean } = {}): PartnerCounts {
    const out: PartnerCounts = { base: 0, commits: 0, partners: new Map() };
    const fh = this.files.get(file);
    if (!fh) return out;
    const from = opts.from ?? 0;
    const to = opts.to ?? this.commits.length;
    const anchor = opts.anchor ?? this.newest;
    for (const ci of fh.commits) {
      if (ci < from || ci >= to) continue;
      const c = this.commits[ci];
      if (c.sweep && !opts.raw) continue;
      const r = opts.halfLifeSeconds ? Math.pow(0.5, Math.max(0, anchor - c.time) / opts.halfLifeSeconds) : 1;
      out.base += r;
      out.commits++;
      const d = (opts.raw ? 1 : pairDamping(c.files.length)) * r;
      for (const g of c.files) {
        if (g === file) continue;
        const p = out.partners.get(g);
        if (p) {
          p.support++;
          p.weight += d;
          if (c.time > p.last) p.last = c.time;
        } else out.partners.set(g, { support: 1, weight: d, last: c.time });
      }
    }
    return out;
  }
}

/** Parses a window: `7d`, `30d`, `12w`, `6m`, `1y` or `all` (null); throws on anything else. */
export function windowSeconds(text: string): number | null {
  if (text === 'all') return null;
  const m = /^(\d+)\s*([hdwmy])$/.exec(text.trim());
  if (!m) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `window "${text}" is not a duration`, { hint: 'give 7d, 30d, 90d, 12w, 6m, 1y or all' });
  const unit = { h: 3600, d: 86_400, w: 7 * 86_400, m: 30 * 86_400, y: 365 * 86_400 }[m[2] as 'h' | 'd' | 'w' | 'm' | 'y'];
  return Number(m[1]) * unit;
}
